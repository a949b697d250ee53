// progress: --workgroups 3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// ticket_lock.comp in WGSL: the two counters atomics in one struct, the
// served ticket read with `atomicLoad` (GLSL's version adds 0).
//
// The verdicts, and why, are those of ../kernels/ticket_lock.comp.

struct Tickets {
    next: atomic<u32>,
    serving: atomic<u32>,
}

@group(0) @binding(0) var<storage, read_write> tickets: Tickets;
@group(0) @binding(1) var<storage, read_write> counter: u32;

@compute @workgroup_size(1)
fn main() {
    let ticket = atomicAdd(&tickets.next, 1u);
    while (atomicLoad(&tickets.serving) != ticket) {
    }
    counter = counter + 1u;
    atomicAdd(&tickets.serving, 1u);
}
