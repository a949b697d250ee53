// progress: --workgroups 3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// ttas_spinlock.comp in WGSL for three workgroups. WGSL has no `volatile`
// and no plain access to an atomic, so the test part of test-and-test-and-set
// is `atomicLoad`, as WebGPU code writes it; the outer `while (true)` is
// WGSL's `loop`.
//
// The verdicts, and why, are those of ../kernels/ttas_spinlock.comp.

@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> counter: u32;

@compute @workgroup_size(1)
fn main() {
    loop {
        while (atomicLoad(&lock) != 0u) {
        }
        if (atomicExchange(&lock, 1u) == 0u) {
            break;
        }
    }
    counter = counter + 1u;
    atomicExchange(&lock, 0u);
}
