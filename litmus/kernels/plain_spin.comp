// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// Message passing whose wait is a plain buffer load: `while (flag == 0u) {}`.
// As written (every load of a buffer is a visible step) this is
// message_passing.comp: workgroup 1 waits for workgroup 0's flag.
// - unfair: F. fair: P. HSA: workgroup 0 is the lowest enabled id: P.
// - OBE: workgroup 1 waits while workgroup 0 has never started: F weak and
//   strong. HSA+OBE, LOBE: workgroup 0 is in F: P.
//
// `progress check --optimize` finds what the optimizer makes of it:
// `spirv-opt -O` deletes the loop (its aggressive dead-code elimination,
// `--eliminate-dead-code-aggressive` alone, removes a loop that stores
// nothing and whose loads feed only its own exit test: it assumes the loop
// ends), so the optimized kernel "terminates" under every model, unfair
// included, without waiting for the flag, and workgroup 1 may read `data`
// before workgroup 0 wrote it: the verdicts and the terminal memory states
// differ. The same happens with a `volatile` buffer (volatile_spin.comp);
// an atomic read (message_passing.comp) survives.
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Flag { uint flag; };
layout(set = 0, binding = 1) buffer Message {
    uint data;
    uint result;
};

void main() {
    if (gl_WorkGroupID.x == 0u) {
        data = 42u;
        flag = 1u;
    } else {
        while (flag == 0u) {
        }
        result = data;
    }
}
