// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// An inter-workgroup (grid) barrier as it is usually written: two
// workgroups of two invocations. Each invocation stores its value, the
// workgroup meets at barrier(), its leader (invocation 0) adds 1 to `arrived`
// and waits until every workgroup has, the workgroup meets at barrier()
// again, and each invocation reads a value of the other workgroup.
//
// Cycles: a leader waits on `arrived` while the other workgroup's leader has
// not added its 1 (that workgroup has not started, or its invocations have
// not all reached the first barrier). The leader's partner is disabled at the
// second barrier meanwhile, so the wait is its workgroup's only step.
// - unfair: F. fair: the other workgroup is in F and never steps: P.
// - HSA, OBE, HSA+OBE, LOBE: workgroup 0 arrives and waits before workgroup
//   1 has run at all: F = {0} under each (the lowest id; the only started
//   one; nothing above 0 started), workgroup 1 starves and the wait is the
//   only fair step: F weak and strong. A grid barrier needs every workgroup
//   to be running; occupancy_discovery.comp is the fix.
#version 450
layout(local_size_x = 2) in;

layout(set = 0, binding = 0) buffer Grid { uint arrived; };
layout(set = 0, binding = 1) buffer Values { uint values[4]; };
layout(set = 0, binding = 2) buffer Results { uint results[4]; };

void main() {
    uint me = gl_GlobalInvocationID.x;
    values[me] = me + 1u;
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        atomicAdd(arrived, 1u);
        while (atomicAdd(arrived, 0u) < gl_NumWorkGroups.x) {
        }
    }
    barrier();
    results[me] = values[(me + 2u) % 4u];
}
