// ticket_lock.hlsli: a ticket lock over one RWStructuredBuffer, as an
// engine's shader library keeps its synchronization helpers (included by
// ../kernels/hlsl_include_ticket_lock.hlsl; not a kernel itself).
// Element 0 deals tickets, element 1 is the ticket being served.
#pragma once

uint TicketAcquire(RWStructuredBuffer<uint> tickets)
{
    uint ticket;
    InterlockedAdd(tickets[0], 1, ticket);
    uint serving;
    InterlockedAdd(tickets[1], 0, serving);
    while (serving != ticket)
    {
        InterlockedAdd(tickets[1], 0, serving);
    }
    return ticket;
}

void TicketRelease(RWStructuredBuffer<uint> tickets)
{
    uint ignored;
    InterlockedAdd(tickets[1], 1, ignored);
}
