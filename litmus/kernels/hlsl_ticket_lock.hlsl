// progress: --workgroups 3 --buffer tickets=2 --buffer counter=2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// ticket_lock.comp in HLSL for three workgroups: tickets[0] deals tickets
// (InterlockedAdd returns the old value), tickets[1] is the ticket being
// served, read with InterlockedAdd of 0; the holder adds to counter[0] with
// a plain read and write (counter has 2 elements, one unused: the two
// buffers need not have one length).
//
// Cycles: a ticket holder waits while the holder of the served ticket, which
// has taken a step (it took its ticket), does not run.
// - unfair: F. fair: the served holder is in F and never steps: P.
// - HSA: workgroup 1 takes ticket 0, workgroup 0 takes ticket 1 and waits:
//   F = {0} throughout, workgroup 1 starves: F weak and strong.
// - OBE, HSA+OBE, LOBE: the served holder has started, so it is in F: P.
RWStructuredBuffer<uint> tickets : register(u0);
RWStructuredBuffer<uint> counter : register(u1);

[numthreads(1, 1, 1)]
void main() {
    uint ticket;
    InterlockedAdd(tickets[0], 1, ticket);
    uint serving;
    InterlockedAdd(tickets[1], 0, serving);
    while (serving != ticket) {
        InterlockedAdd(tickets[1], 0, serving);
    }
    counter[0] = counter[0] + 1;
    uint ignored;
    InterlockedAdd(tickets[1], 1, ignored);
}
