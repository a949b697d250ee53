// progress: --workgroups 2 --subgroup-size 4
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P | fair/fair/unfair/weak F | fair/fair/unfair/strong F | fair/fair/HSA/weak F | fair/fair/HSA/strong F | fair/fair/OBE/weak P | fair/fair/OBE/strong P
//
// ballot_leader.comp in WGSL: subgroupBallot gives
// the votes as a vec4<u32>, the lowest volunteer is firstTrailingBit of its
// first word (a subgroup of four lanes), `ready` an array of atomics.
//
// WGSL spells this `enable subgroups;`, which naga-wasm 30.1 refuses ("not
// yet implemented"); it reads the subgroup built-ins without it, so the
// directive is left out here (docs/kernels.md, "Subgroups").
//
// The verdicts, and why, are those of ../kernels/ballot_leader.comp.

@group(0) @binding(0) var<storage, read_write> leader: array<u32, 2>;
@group(0) @binding(1) var<storage, read_write> ready: array<atomic<u32>, 2>;

@compute @workgroup_size(4)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(subgroup_invocation_id) lane: u32) {
    let w = group.x;
    let votes = subgroupBallot(lane % 2u == 1u);
    if (lane == firstTrailingBit(votes.x)) {
        leader[w] = lane;
        atomicExchange(&ready[w], 1u);
    } else {
        while (atomicAdd(&ready[w], 0u) == 0u) {
        }
    }
}
