// progress: --workgroups 2 --buffer tickets=2 --buffer counter=1 --spec ROUNDS=2 --push pc.increments=3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// spec_ticket_lock.comp as an HLSL engine writes it for Vulkan: the number
// of times each workgroup takes the lock is a specialization constant
// (`[[vk::constant_id(1)]]`, 8 by default), the work done under the lock
// comes from a push-constant block (`[[vk::push_constant]]` on a
// ConstantBuffer: glslang 12 reads the attribute only there, a plain
// struct global would land in the `$Global` uniform buffer), and the
// buffers are runtime-sized RWStructuredBuffers. The header checks it,
// unedited, at 2 rounds and 3 increments (`--spec ROUNDS=2 --push
// pc.increments=3`); `--spec 1=2` names the same constant by its id.
// tickets[0] deals tickets, tickets[1] is the ticket being served (read
// with InterlockedAdd of 0), counter[0] is updated with a plain load and
// store under the lock.
//
// Cycles: a ticket holder waits while the holder of the ticket being served
// does not run (it has taken its ticket, so it has taken a step).
// - unfair: F. fair: the served holder is in F and never steps: P.
// - HSA: workgroup 1 takes ticket 0, workgroup 0 takes ticket 1 and waits:
//   F = {0} throughout, workgroup 1 starves: F weak and strong.
// - OBE, HSA+OBE, LOBE: the holder of the served ticket took it, so it has
//   started and is in F: P. A second round changes none of this: a
//   workgroup waits only for a ticket taken before its own.
[[vk::constant_id(1)]] const uint ROUNDS = 8;

struct Parameters {
    uint increments;
};
[[vk::push_constant]] ConstantBuffer<Parameters> pc;

RWStructuredBuffer<uint> tickets : register(u0);
RWStructuredBuffer<uint> counter : register(u1);

[numthreads(1, 1, 1)]
void main() {
    for (uint round = 0; round < ROUNDS; round++) {
        uint ticket;
        InterlockedAdd(tickets[0], 1, ticket);
        uint serving;
        InterlockedAdd(tickets[1], 0, serving);
        while (serving != ticket) {
            InterlockedAdd(tickets[1], 0, serving);
        }
        counter[0] = counter[0] + pc.increments;
        uint ignored;
        InterlockedAdd(tickets[1], 1, ignored);
    }
}
