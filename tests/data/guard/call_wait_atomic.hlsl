// The same wait through a function that reads the flag with an atomic: glslang's HLSL
// legalization keeps the wait but inlines the call, so the read sits at the called
// function's line (7), in the loop's block; the guard must not refuse it.
RWStructuredBuffer<uint> b;
uint load_flag(uint i) {
    uint v;
    InterlockedAdd(b[i], 0, v);
    return v;
}
[numthreads(1, 1, 1)]
void main(uint3 wg : SV_GroupID) {
    if (wg.x == 0) {
        while (load_flag(1) == 0) {
        }
    } else {
        uint old;
        InterlockedExchange(b[1], 1, old);
    }
}
