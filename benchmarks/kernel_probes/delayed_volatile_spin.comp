// progress: --workgroups 2 --init spins=20000
// A probe of how a device compiles a wait (issue 32, docs/results/gpu/kernels/report.md):
// plain_spin.comp with workgroup 0 made late. It counts to `spins` (atomics, so
// the loop is kept) before it writes data and raises the flag; workgroup 1,
// started at the same time, first reads the flag as 0. The wait here:
// `while (flag == 0u) {}` on a volatile buffer. If the device reads the flag
// again on every turn, workgroup 1 sees it raised after workgroup 0's count and
// every iteration finishes; if the compile reads it once (the wait is a data race,
// so a compiler may), workgroup 1 spins on the 0 it read and every iteration
// times out. Run with --no-check (the count makes the checker's state space large).
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) volatile buffer Flag { uint flag; };
layout(set = 0, binding = 1) buffer Message {
    uint data;
    uint result;
};
layout(set = 0, binding = 2) buffer Delay {
    uint spins;
    uint counted;
};

void main() {
    if (gl_WorkGroupID.x == 0u) {
        for (uint i = 0u; i < spins; i++) {
            atomicAdd(counted, 1u);
        }
        data = 42u;
        flag = 1u;
    } else {
        while (flag == 0u) {
        }
        result = data;
    }
}
