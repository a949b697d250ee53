// progress: --workgroups 2 -I ../include -D INCREMENT=2 --buffer tickets=2 --buffer counter=1
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// hlsl_ticket_lock.hlsl as an HLSL code base writes it: the lock's helpers
// in a shared header found through an include folder (`#include
// <ticket_lock.hlsli>`, -I ../include; `#pragma once` in it), the amount
// added under the lock a define with a default (`INCREMENT`, 1 unless -D
// says: the header gives 2), compiled by Slang like every HLSL kernel.
// Each workgroup takes a ticket, waits until it is served, adds INCREMENT
// to counter[0] with a plain load and store, and serves the next ticket.
//
// Cycles: a ticket holder waits while the holder of the served ticket, which
// has taken a step (it took its ticket), does not run.
// - unfair: F. fair: the served holder is in F and never steps: P.
// - HSA: workgroup 1 takes ticket 0, workgroup 0 takes ticket 1 and waits:
//   F = {0} throughout, workgroup 1 starves: F weak and strong.
// - OBE, HSA+OBE, LOBE: the served holder has started, so it is in F: P.
#include <ticket_lock.hlsli>

#ifndef INCREMENT
#define INCREMENT 1
#endif

RWStructuredBuffer<uint> tickets : register(u0);
RWStructuredBuffer<uint> counter : register(u1);

[numthreads(1, 1, 1)]
void main()
{
    TicketAcquire(tickets);
    counter[0] = counter[0] + INCREMENT;
    TicketRelease(tickets);
}
