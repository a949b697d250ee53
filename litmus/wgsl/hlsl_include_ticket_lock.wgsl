// progress: --workgroups 2 --buffer tickets=2 --buffer counter=1
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// hlsl_include_ticket_lock.hlsl in WGSL, which has neither #include nor
// #define: the header's helpers written out as functions here, INCREMENT a
// constant at the value the HLSL header defines (-D INCREMENT=2; the
// compiler options -D and -I are the HLSL file's alone).
//
// The verdicts, and why, are those of ../kernels/hlsl_include_ticket_lock.hlsl.

const INCREMENT = 2u;

@group(0) @binding(0) var<storage, read_write> tickets: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> counter: array<u32>;

fn ticket_acquire() -> u32 {
    let ticket = atomicAdd(&tickets[0], 1u);
    var serving = atomicAdd(&tickets[1], 0u);
    while (serving != ticket) {
        serving = atomicAdd(&tickets[1], 0u);
    }
    return ticket;
}

fn ticket_release() {
    atomicAdd(&tickets[1], 1u);
}

@compute @workgroup_size(1, 1, 1)
fn main() {
    ticket_acquire();
    counter[0] = counter[0] + INCREMENT;
    ticket_release();
}
