// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// plain_spin.comp with the flag in a `volatile` buffer: the wait is still
// `while (flag == 0u) {}`, and glslang marks the block member Volatile
// (OpMemberDecorate ... Volatile). As written this is message_passing.comp:
// workgroup 1 waits for workgroup 0's flag.
// - unfair: F. fair: P. HSA: workgroup 0 is the lowest enabled id: P.
// - OBE: workgroup 1 waits while workgroup 0 has never started: F weak and
//   strong. HSA+OBE, LOBE: workgroup 0 is in F: P.
//
// `progress check --optimize`: SPIRV-Tools v2023.1's `spirv-opt -O` deletes
// this loop too, as it deletes plain_spin.comp's (its aggressive dead-code
// elimination, `--eliminate-dead-code-aggressive` alone, does it), although
// SPIR-V says accesses to Volatile memory cannot be eliminated: the pass
// does not honour the member's Volatile decoration here. The optimized
// kernel "terminates" under every model, unfair included, without waiting
// for the flag: the verdicts and the terminal memory states differ.
// `coherent` does not help either; an atomic read (message_passing.comp)
// survives.
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) volatile buffer Flag { uint flag; };
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
