// A wait written as a macro: Slang puts its loop and load at the #define's lines (6-7),
// the guard looked for them at the line that uses it (13) and refused the module. Workgroup
// 0 waits until workgroup 1 sets b[1]: only fair terminates (a spin on a plain load).
RWStructuredBuffer<uint> b;

#define WAIT_FOR(flag) \
    while (flag == 0) { \
    }

[numthreads(1, 1, 1)]
void main(uint3 wg : SV_GroupID) {
    if (wg.x == 0) {
        WAIT_FOR(b[1]);
    } else {
        b[1] = 1;
    }
}
