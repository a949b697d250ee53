// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// grid_barrier.comp in WGSL: the WebGPU grid barrier, `storageBarrier()`
// around an arrival counter that each workgroup's first invocation bumps and
// then waits on with `atomicLoad` until every workgroup (`num_workgroups`)
// has arrived.
//
// The verdicts, and why, are those of ../kernels/grid_barrier.comp.

@group(0) @binding(0) var<storage, read_write> arrived: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> values: array<u32, 4>;
@group(0) @binding(2) var<storage, read_write> results: array<u32, 4>;

@compute @workgroup_size(2)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let me = global_id.x;
    values[me] = me + 1u;
    storageBarrier();
    if (local_id.x == 0u) {
        atomicAdd(&arrived, 1u);
        while (atomicLoad(&arrived) < groups.x) {
        }
    }
    storageBarrier();
    results[me] = values[(me + 2u) % 4u];
}
