// The buffers of litmus/include/ticket_lock.h (included from there, beside it).
#pragma once
layout(set = 0, binding = 0) buffer Tickets {
    uint next;
    uint serving;
};
layout(set = 0, binding = 1) buffer Counter { uint counter; };
