// progress: --workgroups 2 --buffer lock=1 --buffer counter=1
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// tas_spinlock.comp in HLSL: InterlockedExchange on a RWStructuredBuffer
// (a runtime array in SPIR-V, one element here: --buffer lock=1), the
// critical section a plain read-modify-write of `counter`.
//
// The only cycle: a workgroup spins while the other holds the lock.
// - unfair: F. fair: the holder is in F and never steps: P.
// - HSA: workgroup 1 holds the lock, workgroup 0 spins: F = {0} throughout,
//   workgroup 1 starves: F weak and strong.
// - OBE, HSA+OBE, LOBE: the holder has taken a step, so it is in F: P.
RWStructuredBuffer<uint> lock : register(u0);
RWStructuredBuffer<uint> counter : register(u1);

[numthreads(1, 1, 1)]
void main() {
    uint old = 1;
    while (old != 0) {
        InterlockedExchange(lock[0], 1, old);
    }
    counter[0] = counter[0] + 1;
    uint ignored;
    InterlockedExchange(lock[0], 0, ignored);
}
