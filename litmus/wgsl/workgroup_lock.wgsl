// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// workgroup_lock.comp in WGSL: each workgroup's lock a
// `var<workgroup> lock: atomic<u32>`, two invocations a workgroup taking
// turns to add to their workgroup's element of `sums`.
//
// The verdicts, and why, are those of ../kernels/workgroup_lock.comp.

@group(0) @binding(0) var<storage, read_write> sums: array<u32, 2>;
var<workgroup> lock: atomic<u32>;

@compute @workgroup_size(2)
fn main(@builtin(workgroup_id) group_id: vec3<u32>) {
    let group = group_id.x;
    while (atomicExchange(&lock, 1u) != 0u) {
    }
    sums[group] = sums[group] + 1u;
    atomicExchange(&lock, 0u);
}
