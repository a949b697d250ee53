// progress: --workgroups 3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// ticket_lock.comp as a game engine writes it: a `.comp.glsl` file, the lock
// and its buffers in a shader library of headers (litmus/include/: this file
// includes ticket_lock.h, which includes ticket_buffers.h beside it, guarded
// by #ifndef and #pragma once), GL_GOOGLE_include_directive required as
// shaderc users write it, and the increment a macro with a default
// (`-D INCREMENT=...` on the command line changes it, not the verdicts).
//
// The program is ticket_lock.comp's; so are the verdicts, and why:
// a ticket holder waits (in ticket_lock_acquire, ticket_lock.h line 12)
// while the holder of the served ticket does not run; it took its ticket,
// so it has taken a step.
// - unfair: F. fair: the served holder is in F and never steps: P.
// - HSA: workgroup 1 takes ticket 0, workgroup 0 takes ticket 1 and waits:
//   F = {0} throughout, workgroup 1 starves: F weak and strong.
// - OBE, HSA+OBE, LOBE: the holder of the served ticket has started, so it
//   is in F: P.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "../include/ticket_lock.h"

#ifndef INCREMENT
#define INCREMENT 1u
#endif

layout(local_size_x = 1) in;

void main() {
    ticket_lock_acquire();
    counter = counter + INCREMENT;
    ticket_lock_release();
}
