// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// volatile_spin.comp in WGSL. WGSL has no `volatile`: what WebGPU code
// writes to make a wait read memory every time is an atomic, here a
// `loop` that leaves when `atomicLoad` sees the flag. The verdicts are
// volatile_spin.comp's (and message_passing's); unlike the volatile load,
// the atomic load survives `spirv-opt -O`.
//
// The verdicts, and why, are those of ../kernels/volatile_spin.comp.

struct Message {
    data: u32,
    result: u32,
}

@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> message: Message;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) group: vec3<u32>) {
    if (group.x == 0u) {
        message.data = 42u;
        atomicStore(&flag, 1u);
    } else {
        loop {
            if (atomicLoad(&flag) != 0u) {
                break;
            }
        }
        message.result = message.data;
    }
}
