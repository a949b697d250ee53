// progress: --workgroups 2 --local-size 2 --spec ROUNDS=2 --push pc.increments=3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// spec_ticket_lock.comp in WGSL, as a WebGPU engine writes it: the
// workgroup size and the number of rounds are pipeline-overridable
// constants (`override`, WebGPU's specialization constants: WORKGROUP
// @id(0), 64 by default, named by `@workgroup_size`; ROUNDS @id(1), 8 by
// default), the work done under the lock an immediate (`var<immediate>`,
// naga's push constants). The header's --local-size sets WORKGROUP, --spec
// sets ROUNDS, --push the immediate, as the GLSL version's header does.
//
// The verdicts, and why, are those of ../kernels/spec_ticket_lock.comp.

@id(0) override WORKGROUP: u32 = 64u;
@id(1) override ROUNDS: u32 = 8u;

struct Tickets {
    next: atomic<u32>,
    serving: atomic<u32>,
}

struct Parameters {
    increments: u32,
}

@group(0) @binding(0) var<storage, read_write> tickets: Tickets;
@group(0) @binding(1) var<storage, read_write> counter: u32;
var<immediate> pc: Parameters;

@compute @workgroup_size(WORKGROUP)
fn main(@builtin(local_invocation_index) index: u32) {
    if (index != 0u) {
        return;
    }
    for (var round = 0u; round < ROUNDS; round++) {
        let ticket = atomicAdd(&tickets.next, 1u);
        while (atomicLoad(&tickets.serving) != ticket) {
        }
        counter = counter + pc.increments;
        atomicAdd(&tickets.serving, 1u);
    }
}
