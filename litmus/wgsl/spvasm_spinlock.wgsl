// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// spvasm_spinlock.spvasm in WGSL: the lock and the counter in one struct,
// the spin a `loop` whose `continuing` block leaves with `break if` once the
// exchange swapped out a 0 (the assembly's loop that branches back to its
// header).
//
// The verdicts, and why, are those of ../kernels/spvasm_spinlock.spvasm.

struct Mem {
    lock: atomic<u32>,
    counter: u32,
}

@group(0) @binding(0) var<storage, read_write> mem: Mem;

@compute @workgroup_size(1)
fn main() {
    loop {
        let held = atomicExchange(&mem.lock, 1u) != 0u;
        continuing {
            break if !held;
        }
    }
    mem.counter = mem.counter + 1u;
    atomicExchange(&mem.lock, 0u);
}
