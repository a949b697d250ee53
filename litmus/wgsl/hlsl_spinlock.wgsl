// progress: --workgroups 2 --buffer lock=1 --buffer counter=1
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// hlsl_spinlock.hlsl in WGSL: runtime-sized arrays (`array<atomic<u32>>`,
// as the RWStructuredBuffer is; one element each: --buffer lock=1 --buffer
// counter=1), the exchange's old value kept in a `var`.
//
// The verdicts, and why, are those of ../kernels/hlsl_spinlock.hlsl.

@group(0) @binding(0) var<storage, read_write> lock: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> counter: array<u32>;

@compute @workgroup_size(1, 1, 1)
fn main() {
    var old = 1u;
    while (old != 0u) {
        old = atomicExchange(&lock[0], 1u);
    }
    counter[0] = counter[0] + 1u;
    atomicExchange(&lock[0], 0u);
}
