// A ticket lock as an engine's shader library writes it: included by
// litmus/kernels/engine_ticket_lock.comp.glsl (`#include "../include/ticket_lock.h"`).
// Not a kernel: it has no main.
#ifndef PROGRESS_TICKET_LOCK_H
#define PROGRESS_TICKET_LOCK_H

#include "ticket_buffers.h"

// Take a ticket, then wait (an atomic read: a fetch-and-add of 0) until it is served.
uint ticket_lock_acquire() {
    uint ticket = atomicAdd(next, 1u);
    while (atomicAdd(serving, 0u) != ticket) {
    }
    return ticket;
}

void ticket_lock_release() {
    atomicAdd(serving, 1u);
}

#endif
