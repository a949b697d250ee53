// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// message_passing.comp in WGSL: the flag an `atomic<u32>`, set with
// `atomicStore` and awaited with `atomicLoad` (WGSL's relaxed atomics, as
// WebGPU code passes a message between workgroups); the data plain.
//
// The verdicts, and why, are those of ../kernels/message_passing.comp.

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
        while (atomicLoad(&flag) == 0u) {
        }
        message.result = message.data;
    }
}
