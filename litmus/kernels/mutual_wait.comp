// progress: --workgroups 2
// expect: unfair F | fair/weak F | fair/strong F | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// A deliberate deadlock: each workgroup waits for the other's flag before
// raising its own, so neither ever raises one. Both spin forever on every
// schedule: a livelock that every model allows (under fair, both spin and
// both step, so the spin is a weak witness; closed under the fair steps, a
// strong one). On a device every iteration must time out, cleanly, at the
// wait, and the run go on (`progress run`, docs/gpu.md).
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Flags { uint flags[2]; };

void main() {
    uint me = gl_WorkGroupID.x;
    while (atomicAdd(flags[1u - me], 0u) == 0u) {
    }
    atomicExchange(flags[me], 1u);
}
