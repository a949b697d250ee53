// progress: --workgroups 2
// expect: unfair F | fair/weak F | fair/strong F | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// A barrier that not every invocation reaches: two workgroups of two
// invocations, and a bounds check that returns early for global invocation 3
// (as if the data had 3 elements) before the workgroup's barrier().
//
// Invocation 1 of workgroup 1 returns; invocation 0 of workgroup 1 arrives at
// barrier() and is disabled until its whole workgroup has arrived, which
// never happens. Once workgroup 0 has returned, nothing is enabled and an
// invocation has not returned: a deadlock, reachable on every schedule, and a
// non-termination witness under every model and both fairnesses (even fair:
// no scheduler can run a disabled invocation). All 11 verdicts: F.
#version 450
layout(local_size_x = 2) in;

layout(set = 0, binding = 0) buffer Values { uint values[4]; };

const uint ELEMENTS = 3u;

void main() {
    uint me = gl_GlobalInvocationID.x;
    if (me >= ELEMENTS) {
        return;
    }
    values[me] = me + 1u;
    barrier();
    values[me] += values[me ^ 1u];
}
