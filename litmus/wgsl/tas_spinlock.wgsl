// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// tas_spinlock.comp in WGSL: the lock an `atomic<u32>` in a storage buffer,
// taken by atomicExchange in a `while` loop, the counter a plain `u32` (a
// load and a store inside the critical section).
//
// The verdicts, and why, are those of ../kernels/tas_spinlock.comp.

@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> counter: u32;

@compute @workgroup_size(1)
fn main() {
    while (atomicExchange(&lock, 1u) != 0u) {
    }
    counter = counter + 1u;
    atomicExchange(&lock, 0u);
}
