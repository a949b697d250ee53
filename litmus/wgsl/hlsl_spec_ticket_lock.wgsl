// progress: --workgroups 2 --buffer tickets=2 --buffer counter=1 --spec ROUNDS=2 --push pc.increments=3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// hlsl_spec_ticket_lock.hlsl in WGSL: ROUNDS an override (@id(1), 8 by
// default), the increments an immediate (`var<immediate>`, naga's push
// constants), tickets and counter runtime-sized arrays; the served ticket
// read with atomicAdd of 0 as the HLSL's InterlockedAdd(tickets[1], 0, ...).
//
// The verdicts, and why, are those of ../kernels/hlsl_spec_ticket_lock.hlsl.

@id(1) override ROUNDS: u32 = 8u;

struct Parameters {
    increments: u32,
}

@group(0) @binding(0) var<storage, read_write> tickets: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> counter: array<u32>;
var<immediate> pc: Parameters;

@compute @workgroup_size(1, 1, 1)
fn main() {
    for (var round = 0u; round < ROUNDS; round++) {
        let ticket = atomicAdd(&tickets[0], 1u);
        var serving = atomicAdd(&tickets[1], 0u);
        while (serving != ticket) {
            serving = atomicAdd(&tickets[1], 0u);
        }
        counter[0] = counter[0] + pc.increments;
        atomicAdd(&tickets[1], 1u);
    }
}
