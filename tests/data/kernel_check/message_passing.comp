// Workgroup 1 waits for workgroup 0's flag.
// progress: --workgroups 2
#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint data; uint flag; uint got; };
void main() {
    if (gl_WorkGroupID.x == 0u) {
        data = 42u;
        atomicExchange(flag, 1u);
    } else {
        while (atomicAdd(flag, 0u) == 0u) { }
        got = data;
    }
}
