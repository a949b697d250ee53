// progress: --workgroups 2 --buffer data=2 --buffer flag=1
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// clspv_message_passing.spvasm (OpenCL C's message passing as clspv
// compiles it) in WGSL: 2 workgroups of one invocation (its Dat3M header's
// `@Config: 1, 1, 2`), runtime-sized buffers of 2 and 1 elements starting
// at 0 (its @Input), here in a `// progress:` line; the workgroup size an
// override with clspv's default of 1; the release store and the acquire
// load WGSL's atomicStore and atomicLoad (WGSL atomics are relaxed: the
// checker's accesses are sequentially consistent either way).
//
// The verdicts, and why, are those of ../kernels/clspv_message_passing.spvasm.

@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> flag: array<atomic<u32>>;

override size_x: u32 = 1u;

@compute @workgroup_size(size_x)
fn mp(@builtin(workgroup_id) group: vec3<u32>) {
    if (group.x == 0u) {
        data[0] = 42u;
        atomicStore(&flag[0], 1u);
    } else {
        loop {
            if (atomicLoad(&flag[0]) != 0u) {
                break;
            }
        }
        data[1] = data[0];
    }
}
