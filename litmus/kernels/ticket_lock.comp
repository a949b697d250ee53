// progress: --workgroups 3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// A ticket lock for three workgroups: take a ticket with a fetch-and-add on
// `next`, wait (an atomic read: a fetch-and-add of 0) until `serving` shows
// it, increment `counter` with a plain load and store, pass the lock on by
// adding 1 to `serving`. Tickets are served in the order they were taken.
//
// Cycles: a ticket holder waits while the holder of the ticket being served
// does not run (it has taken its ticket, so it has taken a step).
// - unfair: F. fair: the served holder is in F and never steps: P.
// - HSA: workgroup 1 takes ticket 0, workgroup 0 takes ticket 1 and waits:
//   F = {0} throughout (workgroup 0 is the lowest enabled), workgroup 1
//   starves and the wait is the only fair step: F weak and strong.
// - OBE, HSA+OBE, LOBE: the holder of the served ticket took it, so it has
//   started and is in F: P. Unlike the AXB ticket lock (litmus/idioms), the
//   fetch-and-add deals any number of tickets.
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Tickets {
    uint next;
    uint serving;
};
layout(set = 0, binding = 1) buffer Counter { uint counter; };

void main() {
    uint ticket = atomicAdd(next, 1u);
    while (atomicAdd(serving, 0u) != ticket) {
    }
    counter = counter + 1u;
    atomicAdd(serving, 1u);
}
