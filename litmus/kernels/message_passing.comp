// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// Message passing through a flag: workgroup 0 writes `data` and then raises
// `flag` with an atomic exchange; workgroup 1 waits on the flag (atomic
// reads) and then reads `data` into `result`. The paper's producer-consumer
// test with increasing id (litmus/paper/prodcons_increasing.axb) as a kernel.
//
// The only cycle: workgroup 1 waits while workgroup 0 has not raised the flag.
// - unfair: F. fair: workgroup 0 is in F and does not step: P.
// - HSA: workgroup 0, the producer, is the lowest enabled id until it
//   returns, so it is in F: P.
// - OBE: workgroup 1 starts and waits while workgroup 0 has never run: F =
//   {1}, workgroup 0 starves and the wait is the only fair step: F weak and
//   strong. OBE promises nothing to a workgroup that has not started.
// - HSA+OBE: HSA's part keeps workgroup 0 in F: P.
// - LOBE: workgroup 1 has started, so every id up to 1 is in F: P.
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
        atomicExchange(flag, 1u);
    } else {
        while (atomicOr(flag, 0u) == 0u) {
        }
        result = data;
    }
}
