// Workgroup 1 spins on a plain (non-atomic) load of the flag that workgroup 0 sets.
// progress: --workgroups 2
#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint flag; uint got; };
void main() {
    if (gl_WorkGroupID.x == 0u) {
        flag = 1u;
    } else {
        while (flag == 0u) { }
        got = 1u;
    }
}
