// Quad operations: outside the supported subset (ballots and the other
// subgroup operations are inside: tests/test_kernel_subgroups.py).
#version 450
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Shared {
    uint lock;
};
void main() {
    uint first = subgroupQuadBroadcast(lock, 0u);
    if (first == 0u) {
        lock = first + 1u;
    }
}
