// A quad swap, then lane 0 waits for lane 1's store of what the swap gave it:
// a lane-scope wait after a collective step, small enough for the brute-force
// oracle of tests/brute_scoped.py (tests/test_kernel_subgroups.py).
// progress: --workgroups 1 --buffer flag=1 --subgroup-size 2
#version 450
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_quad : enable
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) buffer Flag { uint flag[]; };
void main() {
    uint partner = subgroupQuadSwapHorizontal(gl_SubgroupInvocationID);
    if (gl_SubgroupInvocationID == 0u) {
        while (atomicAdd(flag[0], 0u) == 0u) {
        }
    } else {
        atomicExchange(flag[0], partner + 1u);
    }
}
