// A wait on a buffer the function gets as a parameter: its condition names `flags`, which
// no global is called. Workgroup 0 waits until workgroup 1 sets b[1]: only fair terminates.
// glslang's HLSL legalization deletes the wait; the guard did not see a wait (no memory
// named) and let 11 x P through.
RWStructuredBuffer<uint> b;
void wait_for(RWStructuredBuffer<uint> flags, uint i) {
    while (flags[i] == 0) {
    }
}
[numthreads(1, 1, 1)]
void main(uint3 wg : SV_GroupID) {
    if (wg.x == 0) {
        wait_for(b, 1);
    } else {
        b[1] = 1;
    }
}
