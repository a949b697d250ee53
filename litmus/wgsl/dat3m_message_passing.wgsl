// progress: --workgroups 2 --buffer flag=1 --buffer data=2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// dat3m_message_passing.spvasm in WGSL: 2 workgroups of 2 invocations (the
// Dat3M header's @Config: 1, 2, 2), runtime-sized buffers of 1 and 2
// elements starting at 0 (its @Input), here in a `// progress:` line. In
// workgroup 0, invocation 0 writes data[0] and invocation 1 raises the flag
// once it sees data[0] written; in workgroup 1, invocation 0 waits for the
// flag and copies data[0] to data[1]. WGSL reads data[0] atomically only if
// it is an atomic, so `data` is `array<atomic<u32>>`.
//
// The verdicts, and why, are those of ../kernels/dat3m_message_passing.spvasm.

@group(0) @binding(0) var<storage, read_write> flag: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> data: array<atomic<u32>>;

@compute @workgroup_size(2)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    if (group.x == 0u) {
        if (lane == 0u) {
            atomicStore(&data[0], 42u);
        } else {
            while (atomicLoad(&data[0]) == 0u) {
            }
            atomicStore(&flag[0], 1u);
        }
    } else if (lane == 0u) {
        while (atomicLoad(&flag[0]) == 0u) {
        }
        atomicStore(&data[1], atomicLoad(&data[0]));
    }
}
