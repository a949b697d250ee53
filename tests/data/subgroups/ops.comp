// Every supported subgroup operation once; each invocation writes its 24
// results to results[6 * gl_LocalInvocationIndex ...], four to a uvec4 (one
// store each: few interleavings) (tests/test_kernel_subgroups.py).
// progress: --workgroups 1 --buffer results=24
#version 450
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_vote : enable
#extension GL_KHR_shader_subgroup_ballot : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
#extension GL_KHR_shader_subgroup_shuffle : enable
#extension GL_KHR_shader_subgroup_shuffle_relative : enable
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Results { uvec4 results[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    uint lane = gl_SubgroupInvocationID;
    uint base = 6u * i;
    uint r0 = subgroupAdd(lane + 1u);
    uint r1 = subgroupInclusiveAdd(lane + 1u);
    uint r2 = subgroupExclusiveAdd(lane + 1u);
    uint r3 = subgroupMin(lane + 5u);
    uint r4 = subgroupMax(lane + 5u);
    uint r5 = subgroupMul(lane + 1u);
    uint r6 = subgroupOr(1u << lane);
    uint r7 = subgroupXor(1u << lane);
    uint r8 = subgroupAnd(lane | 8u);
    uint r9 = subgroupElect() ? 1u : 0u;
    uint r10 = subgroupAll(lane < 3u) ? 1u : 0u;
    uint r11 = subgroupAny(lane == 1u) ? 1u : 0u;
    uint r12 = subgroupAllEqual(lane / 8u) ? 1u : 0u;
    uint r13 = subgroupBroadcast(lane * 3u, 1u);
    uint r14 = subgroupBroadcastFirst(lane + 7u);
    uint r15 = subgroupShuffleXor(lane, 1u);
    uint r16 = subgroupShuffleDown(lane + 20u, 1u);
    uvec4 votes = subgroupBallot(lane >= 1u);
    uint r17 = votes.x;
    uint r18 = subgroupBallotBitCount(votes);
    uint r19 = subgroupBallotExclusiveBitCount(votes);
    uint r20 = subgroupBallotBitExtract(votes, lane) ? 1u : 0u;
    uint r21 = gl_SubgroupSize * 100u + gl_NumSubgroups * 10u + gl_SubgroupID;
    uint r22 = gl_SubgroupLtMask.x;
    subgroupBarrier();
    uint r23 = subgroupShuffle(lane, (lane + 1u) % gl_SubgroupSize);
    results[base + 0u] = uvec4(r0, r1, r2, r3);
    results[base + 1u] = uvec4(r4, r5, r6, r7);
    results[base + 2u] = uvec4(r8, r9, r10, r11);
    results[base + 3u] = uvec4(r12, r13, r14, r15);
    results[base + 4u] = uvec4(r16, r17, r18, r19);
    results[base + 5u] = uvec4(r20, r21, r22, r23);
}
