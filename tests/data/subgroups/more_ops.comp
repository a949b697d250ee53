// Clustered reductions, quad operations and NV's partitioned operations;
// each invocation writes its 12 results to results[3 * gl_LocalInvocationIndex
// ...], four to a uvec4 (tests/test_kernel_subgroups.py).
// progress: --workgroups 1 --buffer results=12
#version 450
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_clustered : enable
#extension GL_KHR_shader_subgroup_quad : enable
#extension GL_NV_shader_subgroup_partitioned : enable
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Results { uvec4 results[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    uint lane = gl_SubgroupInvocationID;
    uint base = 3u * i;
    uint r0 = subgroupClusteredAdd(lane + 1u, 2u);
    uint r1 = subgroupClusteredMax(lane * 3u, 4u);
    uint r2 = subgroupClusteredOr(1u << lane, 1u);
    uint r3 = subgroupQuadBroadcast(lane + 10u, 2u);
    uint r4 = subgroupQuadSwapHorizontal(lane + 20u);
    uint r5 = subgroupQuadSwapVertical(lane + 30u);
    uint r6 = subgroupQuadSwapDiagonal(lane + 40u);
    uvec4 p = subgroupPartitionNV(lane / 2u);
    uint r7 = p.x;
    uint r8 = subgroupPartitionedAddNV(lane + 1u, p);
    uint r9 = subgroupPartitionedInclusiveAddNV(lane + 1u, p);
    uint r10 = subgroupPartitionedExclusiveAddNV(lane + 1u, p);
    uint r11 = subgroupPartitionedMinNV(lane + 5u, subgroupPartitionNV(lane % 2u));
    results[base] = uvec4(r0, r1, r2, r3);
    results[base + 1u] = uvec4(r4, r5, r6, r7);
    results[base + 2u] = uvec4(r8, r9, r10, r11);
}
