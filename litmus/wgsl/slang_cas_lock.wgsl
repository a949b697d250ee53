// progress: --workgroups 2 --buffer lockWord=1 --buffer counter=1
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// slang_cas_lock.spvasm (Slang's SPIR-V of a compare-and-swap spin lock) in
// WGSL: the lock word and the counter runtime-sized arrays as Slang's
// RWStructuredBuffers are, the lock taken with atomicCompareExchangeWeak
// until it returns the old value 0 (naga writes it as SPIR-V's
// OpAtomicCompareExchange, which does not fail spuriously), the counter
// updated with a plain load and store.
//
// The verdicts, and why, are those of ../kernels/slang_cas_lock.spvasm.

@group(0) @binding(0) var<storage, read_write> lockWord: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> counter: array<u32>;

@compute @workgroup_size(1, 1, 1)
fn main(@builtin(workgroup_id) groupId: vec3<u32>) {
    var original = 1u;
    while (original != 0u) {
        original = atomicCompareExchangeWeak(&lockWord[0], 0u, 1u).old_value;
    }
    counter[0] = counter[0] + 1u;
    atomicExchange(&lockWord[0], 0u);
}
