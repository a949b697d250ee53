// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// A spin lock inside each workgroup: two workgroups of two invocations, each
// workgroup with its own lock in workgroup (shared) memory. The invocations
// of a workgroup take turns adding to their workgroup's counter in `sums`.
//
// Cycles: an invocation spins while the other invocation of its own
// workgroup holds the lock and does not run.
// - unfair: F.
// - every other model: the spinner's workgroup is in F whenever the spin can
//   go on forever: the holder's workgroup is the spinner's own, so the holder
//   is fair too and must step. (HSA: while workgroup 0 runs, workgroup 1 is
//   not in F, but then workgroup 0's invocations are fair and enabled and do
//   not step in workgroup 1's spin: no witness; once workgroup 0 has
//   returned, workgroup 1 is in F.) P weak and strong.
// This relies on invocations of one workgroup being scheduled independently
// (docs/semantics.md section 8); in SIMT lock-step, without independent
// thread scheduling, a spin lock between lanes of one subgroup can hang.
#version 450
layout(local_size_x = 2) in;

layout(set = 0, binding = 0) buffer Sums { uint sums[2]; };

shared uint lock;

void main() {
    uint group = gl_WorkGroupID.x;
    while (atomicExchange(lock, 1u) != 0u) {
    }
    sums[group] = sums[group] + 1u;
    atomicExchange(lock, 0u);
}
