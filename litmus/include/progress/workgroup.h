// progress/workgroup.h: helpers of a workgroup's leader, as an engine's
// shader library keeps them under its include root (reached with -I).
#ifndef PROGRESS_WORKGROUP_H
#define PROGRESS_WORKGROUP_H

bool is_leader() {
    return gl_LocalInvocationID.x == 0u;
}

#endif
