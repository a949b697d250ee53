// progress: --workgroups 1
// Lane 0 waits at a subgroup barrier while lane 1 waits at the workgroup
// barrier: non-uniform control flow, an error naming both lines.
#version 450
#extension GL_KHR_shader_subgroup_basic : enable
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) buffer Results { uint a; };
void main() {
    if (gl_SubgroupInvocationID == 0u) {
        subgroupBarrier();
    } else {
        barrier();
    }
    atomicAdd(a, 1u);
}
