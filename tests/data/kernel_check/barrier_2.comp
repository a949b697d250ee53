// litmus/idioms/barrier_2.axb by hand (Fig. 11 form), c = mem[0]; the
// non-exchanging AXB reads with atomicOr(.., 0u), which leaves the value.
// progress: --workgroups 2
#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Mem { uint mem[1]; };
void main() {
    uint pc = 0u;
    while (pc != 3u) {
        switch (pc) {
        case 0u: pc = atomicExchange(mem[0], 1u) == 0u ? 2u : 1u; break;
        case 1u: pc = atomicExchange(mem[0], 2u) == 1u ? 3u : 2u; break;
        case 2u: pc = atomicOr(mem[0], 0u) == 1u ? 2u : 3u; break;
        }
    }
}
