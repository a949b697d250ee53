// progress: --workgroups 2
// expect: unfair F | fair/weak F | fair/strong F | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// barrier_divergence.comp in WGSL: three elements, two workgroups of two
// invocations; the invocation past the end returns early and the other one
// of its workgroup waits at `workgroupBarrier()` for it. naga accepts the
// barrier in non-uniform control flow (Tint would not).
//
// The verdicts, and why, are those of ../kernels/barrier_divergence.comp.

const ELEMENTS = 3u;

@group(0) @binding(0) var<storage, read_write> values: array<u32, 4>;

@compute @workgroup_size(2)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let me = id.x;
    if (me >= ELEMENTS) {
        return;
    }
    values[me] = me + 1u;
    workgroupBarrier();
    values[me] += values[me ^ 1u];
}
