// progress: --workgroups 1
// Lane 0 reaches one subgroup operation, lane 1 another: non-uniform control
// flow, an error of the kernel naming both lines (docs/semantics.md section 10).
#version 450
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) buffer Results { uint a; uint b; };
void main() {
    uint lane = gl_SubgroupInvocationID;
    if (lane == 0u) {
        a = subgroupAdd(1u);
    } else {
        b = subgroupMax(2u);
    }
}
