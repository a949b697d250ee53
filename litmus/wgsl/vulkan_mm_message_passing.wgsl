// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// vulkan_mm_message_passing.comp in WGSL. WGSL has no release, acquire,
// availability or visibility: its atomics are relaxed and its fences are
// barriers. What WebGPU code writes for the same hand-off is a
// `storageBarrier()` between the data and the flag on both sides; naga
// writes it as a workgroup control barrier with storage-buffer memory
// semantics (one invocation per workgroup here, so it waits for no one).
//
// The verdicts, and why, are those of ../kernels/vulkan_mm_message_passing.comp
// (the checker's accesses are sequentially consistent).

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
        storageBarrier();
        atomicStore(&flag, 1u);
    } else {
        while (atomicLoad(&flag) == 0u) {
        }
        storageBarrier();
        message.result = message.data;
    }
}
