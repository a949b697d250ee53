// progress: --workgroups 3 --init next=4294967295 --init serving=4294967295
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// ticket_lock.comp with 64-bit tickets (GL_EXT_shader_atomic_int64), as a
// driver's long-running counters are written: `next` and `serving` start at
// 2^32 - 1 (the header's --init), so the second and third tickets dealt and
// hand-overs carry into the high word. A 64-bit atomic reads and writes both
// 32-bit cells in one step (tests/test_spirv_int64.py checks the carry).
//
// Cycles: a ticket holder waits while the holder of the ticket being served
// does not run; it took its ticket, so it has taken a step.
// - unfair: F. fair: the served holder is in F and never steps: P.
// - HSA: workgroup 1 takes the first ticket, workgroup 0 the second and
//   waits: workgroup 0 is the lowest enabled id throughout, so F = {0},
//   workgroup 1 starves and the wait is the only fair step: F weak and strong.
// - OBE, HSA+OBE, LOBE: the served holder has started, so it is in F: P.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Tickets {
    uint64_t next;
    uint64_t serving;
};
layout(set = 0, binding = 1) buffer Counter { uint counter; };

void main() {
    uint64_t ticket = atomicAdd(next, 1ul);
    while (atomicAdd(serving, 0ul) != ticket) {
    }
    counter = counter + 1u;
    atomicAdd(serving, 1ul);
}
