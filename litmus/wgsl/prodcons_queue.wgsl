// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// prodcons_queue.comp in WGSL: a bounded queue of two slots, `for` loops
// over three items, head and tail atomics awaited with `atomicLoad`.
//
// The verdicts, and why, are those of ../kernels/prodcons_queue.comp.

struct Queue {
    head: atomic<u32>,
    tail: atomic<u32>,
    slots: array<u32, 2>,
}

const ITEMS = 3u;
const CAPACITY = 2u;

@group(0) @binding(0) var<storage, read_write> queue: Queue;
@group(0) @binding(1) var<storage, read_write> sum: u32;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) group: vec3<u32>) {
    if (group.x == 0u) {
        for (var i = 0u; i < ITEMS; i++) {
            while (i - atomicLoad(&queue.head) == CAPACITY) {
            }
            queue.slots[i % CAPACITY] = i + 1u;
            atomicAdd(&queue.tail, 1u);
        }
    } else {
        var total = 0u;
        for (var i = 0u; i < ITEMS; i++) {
            while (atomicLoad(&queue.tail) == i) {
            }
            total += queue.slots[i % CAPACITY];
            atomicAdd(&queue.head, 1u);
        }
        sum = total;
    }
}
