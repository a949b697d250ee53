// ARB_shader_ballot's reads (SPV_KHR_shader_ballot): outside the supported
// subset (the KHR subgroup operations are inside: tests/test_kernel_subgroups.py).
#version 450
#extension GL_ARB_shader_ballot : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Shared {
    uint lock;
};
void main() {
    uint first = readFirstInvocationARB(lock);
    if (first == 0u) {
        lock = first + 1u;
    }
}
