// progress: --workgroups 3 --buffer tickets=2 --buffer counter=2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// hlsl_ticket_lock.hlsl in WGSL for three workgroups: tickets[0] deals
// tickets, tickets[1] is the ticket being served (runtime-sized arrays,
// --buffer tickets=2 --buffer counter=2), read again at the end of each
// turn of the wait.
//
// The verdicts, and why, are those of ../kernels/hlsl_ticket_lock.hlsl.

@group(0) @binding(0) var<storage, read_write> tickets: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> counter: array<u32>;

@compute @workgroup_size(1, 1, 1)
fn main() {
    let ticket = atomicAdd(&tickets[0], 1u);
    var serving = atomicLoad(&tickets[1]);
    while (serving != ticket) {
        serving = atomicLoad(&tickets[1]);
    }
    counter[0] = counter[0] + 1u;
    atomicAdd(&tickets[1], 1u);
}
