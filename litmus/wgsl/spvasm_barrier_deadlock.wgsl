// progress: --workgroups 2
// expect: unfair F | fair/weak F | fair/strong F | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// spvasm_barrier_deadlock.spvasm in WGSL: in each workgroup of two
// invocations, only the first reaches `workgroupBarrier()` (inside an `if` on
// `local_invocation_id`, which naga accepts), the other returns.
//
// The verdicts, and why, are those of ../kernels/spvasm_barrier_deadlock.spvasm.

@group(0) @binding(0) var<storage, read_write> seen: u32;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_id) local_id: vec3<u32>) {
    if (local_id.x == 0u) {
        seen = 1u;
        workgroupBarrier();
    }
}
