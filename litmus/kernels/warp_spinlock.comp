// progress: --workgroups 2 --subgroup-size 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P | fair/fair/unfair/weak F | fair/fair/unfair/strong F | fair/fair/HSA/weak F | fair/fair/HSA/strong F | fair/fair/OBE/weak P | fair/fair/OBE/strong P | fair/fair/LOBE/weak P | fair/fair/LOBE/strong P
//
// A warp-level spin lock: each workgroup is one subgroup of two lanes, and
// the two lanes of a subgroup take their workgroup's lock (locks[w]) with an
// atomic exchange, count in counter[w] with a plain load and store, and
// release it. The classic SIMT hazard: a lane spins on a lock that another
// lane of its own subgroup holds.
//
// Workgroup models (the expect line; --model M is (M, fair, fair): every lane
// of a fair workgroup is fair). A cycle is a lane spinning while the holder,
// a lane of the same workgroup, does not step.
// - unfair: F (any cycle).
// - fair, HSA, OBE, HSA+OBE, LOBE, weak and strong: P. The holder's workgroup
//   is the spinner's. Under HSA the lowest enabled workgroup is fair, and a
//   cycle of its spinner leaves its holder fair and not stepping; a cycle of
//   the other workgroup's spinner leaves the lowest workgroup fair and not
//   stepping (it is enabled until it returns). Under OBE the spinner's
//   workgroup has started, so its holder is fair. LOBE and HSA+OBE contain OBE.
//
// Lane models (scoped, docs/semantics.md section 10; the expect line's fair/fair/M cells):
// - (fair, fair, unfair): F, weak and strong. The subgroup is fair as a group:
//   its spinning lane's steps are its progress, the holder starves. This is
//   lock-step (SIMT) scheduling: the diverged spinning path runs, the
//   holder's path never does.
// - (fair, fair, HSA): F. Lane 1 holds the lock, lane 0 spins and is the
//   lowest enabled lane, the only fair one.
// - (fair, fair, OBE), (fair, fair, LOBE): P. The holder took the lock, so it
//   has stepped and is fair; the spinner cannot cycle without it stepping.
// - (fair, fair, fair): P: independent thread scheduling's promise.
#version 450
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) buffer Locks { uint locks[2]; uint counter[2]; };
void main() {
    uint w = gl_WorkGroupID.x;
    while (atomicExchange(locks[w], 1u) != 0u) {
    }
    counter[w] = counter[w] + 1u;
    atomicExchange(locks[w], 0u);
}
