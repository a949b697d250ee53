// progress: --workgroups 2 --local-size 2 --spec ROUNDS=2 --push pc.increments=3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// ticket_lock.comp as an engine writes it: the workgroup size is a
// specialization constant (local_size_x_id, 64 by default), so is the number
// of times each workgroup takes the lock (ROUNDS, constant_id 1, 8 by
// default), and the work done under the lock comes from a push constant.
// Invocation 0 of each workgroup takes a ticket, waits until it is served,
// adds `pc.increments` to `counter` with plain loads and stores, and serves
// the next ticket. The header checks it, unedited, at 2 invocations per
// workgroup, 2 rounds and 3 increments (`--local-size 2 --spec ROUNDS=2
// --push pc.increments=3`); the other invocations return at once.
//
// Cycles: a ticket holder waits while the holder of the ticket being served
// does not run (it has taken its ticket, so it has taken a step).
// - unfair: F. fair: the served holder is in F and never steps: P.
// - HSA: workgroup 1 takes ticket 0, workgroup 0 takes ticket 1 and waits:
//   F = {0} throughout (workgroup 0 is the lowest enabled; its invocation 1
//   has returned), workgroup 1 starves: F weak and strong.
// - OBE, HSA+OBE, LOBE: the holder of the served ticket took it, so it has
//   started and is in F: P. A second round changes none of this: a
//   workgroup waits only for a ticket taken before its own.
#version 450
layout(local_size_x = 64, local_size_x_id = 0) in;
layout(constant_id = 1) const uint ROUNDS = 8;

layout(push_constant) uniform Parameters { uint increments; } pc;
layout(set = 0, binding = 0) buffer Tickets {
    uint next;
    uint serving;
};
layout(set = 0, binding = 1) buffer Counter { uint counter; };

void main() {
    if (gl_LocalInvocationIndex != 0u) {
        return;
    }
    for (uint round = 0u; round < ROUNDS; round++) {
        uint ticket = atomicAdd(next, 1u);
        while (atomicAdd(serving, 0u) != ticket) {
        }
        counter = counter + pc.increments;
        atomicAdd(serving, 1u);
    }
}
