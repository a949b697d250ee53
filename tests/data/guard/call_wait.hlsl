// A wait whose condition reads the buffer only through a function call (two calls deep).
// Workgroup 0 waits until workgroup 1 sets b[1]: only fair terminates (a spin on a plain
// load: unfair, HSA and OBE may starve workgroup 1). glslang's HLSL legalization deletes
// the wait; the guard did not see it (the condition names no buffer) and let 11 x P through.
RWStructuredBuffer<uint> b;
uint read_at(uint i) {
    return b[i];
}
uint load_flag(uint i) {
    return read_at(i);
}
[numthreads(1, 1, 1)]
void main(uint3 wg : SV_GroupID) {
    if (wg.x == 0) {
        while (load_flag(1) == 0) {
        }
    } else {
        b[1] = 1;
    }
}
