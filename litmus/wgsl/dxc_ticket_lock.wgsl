// progress: --workgroups 3 --buffer tickets=2 --buffer counter=2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// dxc_ticket_lock.spvasm (hlsl_ticket_lock.hlsl as DXC compiles it) in WGSL:
// the HLSL function kept as a function of its own that the entry point
// calls (DXC's `src.main` wrapper), the ticket and the served ticket in
// function variables, the served ticket read with atomicAdd of 0 as
// InterlockedAdd(tickets[1], 0, serving) is.
//
// The verdicts, and why, are those of ../kernels/dxc_ticket_lock.spvasm.

@group(0) @binding(0) var<storage, read_write> tickets: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> counter: array<u32>;

fn src_main() {
    var ticket: u32 = atomicAdd(&tickets[0], 1u);
    var serving: u32 = atomicAdd(&tickets[1], 0u);
    while (serving != ticket) {
        serving = atomicAdd(&tickets[1], 0u);
    }
    counter[0] = counter[0] + 1u;
    atomicAdd(&tickets[1], 1u);
}

@compute @workgroup_size(1, 1, 1)
fn main() {
    src_main();
}
