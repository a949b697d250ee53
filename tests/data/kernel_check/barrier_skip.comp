// One invocation of each workgroup skips barrier(): the others wait forever.
// progress: --workgroups 1
#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Data { uint data[2]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    data[i] = 1u;
    if (i == 0u) {
        barrier();
    }
    data[i] = 2u;
}
