// progress: --workgroups 2 --subgroup-size 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P | fair/fair/unfair/weak F | fair/fair/unfair/strong F | fair/fair/HSA/weak F | fair/fair/HSA/strong F | fair/fair/OBE/weak P | fair/fair/OBE/strong P | fair/fair/LOBE/weak P | fair/fair/LOBE/strong P
//
// warp_spinlock.comp in WGSL: each workgroup's lock an `atomic<u32>` in a
// storage array, the counter a plain `u32`; two invocations per workgroup,
// one subgroup of two lanes (--subgroup-size 2).
//
// The verdicts, and why, are those of ../kernels/warp_spinlock.comp.

@group(0) @binding(0) var<storage, read_write> locks: array<atomic<u32>, 2>;
@group(0) @binding(1) var<storage, read_write> counter: array<u32, 2>;

@compute @workgroup_size(2)
fn main(@builtin(workgroup_id) group: vec3<u32>) {
    let w = group.x;
    while (atomicExchange(&locks[w], 1u) != 0u) {
    }
    counter[w] = counter[w] + 1u;
    atomicExchange(&locks[w], 0u);
}
