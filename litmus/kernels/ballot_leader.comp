// progress: --workgroups 2 --subgroup-size 4
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P | fair/fair/unfair/weak F | fair/fair/unfair/strong F | fair/fair/HSA/weak F | fair/fair/HSA/strong F | fair/fair/OBE/weak P | fair/fair/OBE/strong P
//
// Ballot leader election, as real code elects one lane per subgroup to do a
// subgroup's shared work: each workgroup is one subgroup of four lanes; the
// odd lanes volunteer, subgroupBallot collects the votes,
// subgroupBallotFindLSB picks the lowest volunteer (lane 1), which writes
// leader[w] and raises ready[w]; every other lane spins until ready[w] is set.
//
// The ballot is a collective step (docs/semantics.md section 10): each lane's
// arrival is its own step, the last arrival performs it for all four.
//
// Workgroup models (the expect line, (M, fair, fair)): a cycle is lanes of one
// workgroup spinning on ready[w] while its leader does not step.
// - unfair: F.
// - fair, HSA, OBE, HSA+OBE, LOBE, weak and strong: P. The leader is in the
//   spinners' workgroup: under HSA the lowest enabled workgroup is fair (and
//   a cycle inside the other workgroup leaves it fair and still), under OBE
//   the spinners' workgroup has started, so in each case the leader is fair
//   and must step.
//
// Lane models (scoped; the expect line's fair/fair/M cells, tests/test_kernel_subgroups.py):
// - (fair, fair, unfair): F, and (fair, fair, HSA): F: lane 0 spins and is
//   the lowest enabled lane; the leader, lane 1, is never fair.
// - (fair, fair, OBE): P: every lane arrived at the ballot, a step of its
//   own, so the leader has stepped and is fair.
// - (fair, fair, fair): P.
#version 450
#extension GL_KHR_shader_subgroup_ballot : enable
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Election { uint leader[2]; uint ready[2]; };
void main() {
    uint w = gl_WorkGroupID.x;
    uint lane = gl_SubgroupInvocationID;
    uvec4 votes = subgroupBallot(lane % 2u == 1u);
    if (lane == subgroupBallotFindLSB(votes)) {
        leader[w] = lane;
        atomicExchange(ready[w], 1u);
    } else {
        while (atomicAdd(ready[w], 0u) == 0u) {
        }
    }
}
