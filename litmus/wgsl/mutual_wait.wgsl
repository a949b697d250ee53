// progress: --workgroups 2
// expect: unfair F | fair/weak F | fair/strong F | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// mutual_wait.comp in WGSL: each workgroup waits with `atomicLoad` for the
// other's flag before raising its own with `atomicStore`.
//
// The verdicts, and why, are those of ../kernels/mutual_wait.comp.

@group(0) @binding(0) var<storage, read_write> flags: array<atomic<u32>, 2>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) group: vec3<u32>) {
    let me = group.x;
    while (atomicLoad(&flags[1u - me]) == 0u) {
    }
    atomicStore(&flags[me], 1u);
}
