// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// plain_spin.comp in WGSL: the flag a plain `u32` in a storage buffer,
// awaited by `while (flag == 0u) {}` (a data race WGSL accepts). As written,
// every load of the buffer is a visible step: message_passing.wgsl's
// verdicts. naga writes the plain loads as they are; `--optimize` shows what
// `spirv-opt -O` makes of the loop, as for plain_spin.comp.
//
// The verdicts, and why, are those of ../kernels/plain_spin.comp.

struct Message {
    data: u32,
    result: u32,
}

@group(0) @binding(0) var<storage, read_write> flag: u32;
@group(0) @binding(1) var<storage, read_write> message: Message;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) group: vec3<u32>) {
    if (group.x == 0u) {
        message.data = 42u;
        flag = 1u;
    } else {
        while (flag == 0u) {
        }
        message.result = message.data;
    }
}
