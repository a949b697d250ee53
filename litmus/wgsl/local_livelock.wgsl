// progress: --workgroups 2
// expect: unfair F | fair/weak F | fair/strong F | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// local_livelock.comp in WGSL: the waiting workgroup reads the flag once
// (`atomicLoad` into a `let`) and spins on the value it read: a loop that
// touches no memory.
//
// The verdicts, and why, are those of ../kernels/local_livelock.comp.

@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> result: u32;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) group: vec3<u32>) {
    if (group.x == 0u) {
        atomicExchange(&flag, 1u);
    } else {
        let seen = atomicLoad(&flag);
        while (seen == 0u) {
        }
        result = seen;
    }
}
