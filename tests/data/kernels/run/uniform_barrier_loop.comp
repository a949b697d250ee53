// progress: --workgroups 1
// A loop around a barrier that never ends, its exit uniform (WGSL accepts
// it as written), with a spin on a flag nobody raises inside: the spin's
// check fires first, then the outer loop's uniform check ends it. A
// counted loop around a barrier before it runs its 3 turns.
#version 450
layout(local_size_x = 2) in;

layout(set = 0, binding = 0) buffer Memory { uint flag; uint rounds; };

void main() {
    for (uint i = 0u; i < 3u; i++) {
        barrier();
    }
    while (true) {
        if (gl_LocalInvocationID.x == 0u) {
            atomicAdd(rounds, 1u);
            while (atomicAdd(flag, 0u) == 0u) {
            }
        }
        barrier();
    }
}
