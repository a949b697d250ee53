// progress: --workgroups 3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// A test-and-test-and-set spin lock for three workgroups: wait with plain
// loads while the lock looks taken (a `volatile` buffer, which should make
// the compiler read it every time), then try to swap 1 in; on a lost race go
// back to waiting. `spirv-opt -O` deletes the inner wait all the same (see
// volatile_spin.comp), which leaves tas_spinlock.comp: the same verdicts.
//
// Cycles: workgroups wait (on the load or the exchange) while the holder,
// which swapped the 1 in, does not run. Two waiters can race for a released
// lock, but a lost race only ends in waiting for a holder again: no cycle
// without a holder standing still.
// - unfair: F. fair: the holder is in F and never steps: P.
// - HSA: workgroup 1 or 2 holds the lock while workgroup 0 waits: F = {0}
//   throughout, the holder starves and the waiting is the only fair step: F
//   weak and strong.
// - OBE, HSA+OBE, LOBE: the holder has taken steps, so it is in F: P.
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) volatile buffer Lock { uint lock; };
layout(set = 0, binding = 1) buffer Counter { uint counter; };

void main() {
    while (true) {
        while (lock != 0u) {
        }
        if (atomicExchange(lock, 1u) == 0u) {
            break;
        }
    }
    counter = counter + 1u;
    atomicExchange(lock, 0u);
}
