// litmus/paper/mutex.axb by hand, in the paper's form (Fig. 11): one
// workgroup of one invocation per AXB thread, m = mem[0].
// progress: --workgroups 2
#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Mem { uint mem[1]; };
void main() {
    uint pc = 0u;
    if (gl_WorkGroupID.x == 0u) {
        while (pc != 2u) {
            switch (pc) {
            case 0u: pc = atomicExchange(mem[0], 1u) == 1u ? 0u : 1u; break;
            case 1u: pc = atomicExchange(mem[0], 0u) == 0u ? 2u : 2u; break;
            }
        }
    } else {
        while (pc != 2u) {
            switch (pc) {
            case 0u: pc = atomicExchange(mem[0], 1u) == 1u ? 0u : 1u; break;
            case 1u: pc = atomicExchange(mem[0], 0u) == 0u ? 2u : 2u; break;
            }
        }
    }
}
