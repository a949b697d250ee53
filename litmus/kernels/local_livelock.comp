// progress: --workgroups 2
// expect: unfair F | fair/weak F | fair/strong F | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// A wait that reads the flag once: workgroup 0 raises `flag`; workgroup 1
// reads it once into a local variable and then loops on that variable, which
// nothing can change (the read was hoisted out of the loop by hand).
//
// If workgroup 1 reads the flag before workgroup 0 raises it, its loop comes
// back to the same local state without touching shared memory: a local
// livelock, a step from that state to itself. Once workgroup 0 has returned,
// workgroup 1 is the only enabled workgroup and it livelocks by itself: it is
// in F under every model but unfair (the lowest enabled id, started, fair)
// and the self-loop is its step, so the state alone is a weak witness and,
// closed under that one fair step, a strong one. All 11 verdicts: F.
//
// `spirv-opt -O` deletes the local loop (aggressive dead-code elimination
// assumes loops end), so with `--optimize` the kernel terminates under every
// model, unfair included: the livelock is in the source, not in the optimized
// code, which stores whatever it read, 0 included, into `result`.
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Flag { uint flag; };
layout(set = 0, binding = 1) buffer Result { uint result; };

void main() {
    if (gl_WorkGroupID.x == 0u) {
        atomicExchange(flag, 1u);
    } else {
        uint seen = atomicOr(flag, 0u);
        while (seen == 0u) {
        }
        result = seen;
    }
}
