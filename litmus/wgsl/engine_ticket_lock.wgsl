// progress: --workgroups 3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// engine_ticket_lock.comp.glsl in WGSL, which has no includes: the library's
// functions written out (WGSL modules are one file), the increment an
// `override` with a default (a pipeline constant, where GLSL had a macro).
//
// The verdicts, and why, are those of ../kernels/engine_ticket_lock.comp.glsl
// (and ../kernels/ticket_lock.comp).

struct Tickets {
    next: atomic<u32>,
    serving: atomic<u32>,
}

@group(0) @binding(0) var<storage, read_write> tickets: Tickets;
@group(0) @binding(1) var<storage, read_write> counter: u32;

override INCREMENT: u32 = 1u;

fn ticket_lock_acquire() -> u32 {
    let ticket = atomicAdd(&tickets.next, 1u);
    while (atomicLoad(&tickets.serving) != ticket) {
    }
    return ticket;
}

fn ticket_lock_release() {
    atomicAdd(&tickets.serving, 1u);
}

@compute @workgroup_size(1)
fn main() {
    ticket_lock_acquire();
    counter = counter + INCREMENT;
    ticket_lock_release();
}
