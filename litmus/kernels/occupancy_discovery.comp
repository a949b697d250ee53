// progress: --workgroups 3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// The occupancy-discovery protocol (Sorensen, Donaldson, Batty, Gopalakrishnan
// and Rakamaric, OOPSLA 2016) in front of an inter-workgroup barrier, for
// three workgroups. Under a spin lock, a workgroup joins while the poll is
// open (taking the next participant id); each participant then closes the
// poll (after which `count` is final) and waits at a barrier for `count`
// arrivals. A workgroup that comes after the poll closed does not take part
// and returns. Only workgroups that were running join, so the barrier waits
// for running workgroups only: grid_barrier.comp made safe.
//
// Cycles: (a) a workgroup spins on the lock while its holder does not run;
// (b) a participant waits at the barrier for another participant that has
// not arrived. Both wait for a workgroup that has taken a step (holders take
// the lock, participants joined).
// - unfair: F. fair: the awaited workgroup is in F and never steps: P.
// - HSA: (a) workgroup 1 holds the lock while workgroup 0 spins: F = {0}
//   throughout, workgroup 1 starves: F weak and strong.
// - OBE, HSA+OBE, LOBE: every awaited workgroup has started, so it is in F:
//   P. The barrier alone fails OBE (grid_barrier.comp); with discovery in
//   front it passes.
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Discovery {
    uint mutex;
    uint closed;
    uint count;
    uint arrived;
};
layout(set = 0, binding = 1) buffer Members { uint members[3]; };

void lock() {
    while (atomicExchange(mutex, 1u) != 0u) {
    }
}

void unlock() {
    atomicExchange(mutex, 0u);
}

void main() {
    lock();
    bool joined = closed == 0u;
    uint id = count;
    if (joined) {
        count = id + 1u;
    }
    unlock();
    if (!joined) {
        return;
    }
    lock();
    closed = 1u;
    uint participants = count;
    unlock();
    atomicAdd(arrived, 1u);
    while (atomicAdd(arrived, 0u) < participants) {
    }
    members[id] = gl_WorkGroupID.x + 1u;
}
