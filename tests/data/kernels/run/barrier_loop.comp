// progress: --workgroups 1
// A barrier inside a loop whose exit waits for a flag nobody raises: the
// loop's check and the check after the barrier both fire; nothing hangs.
#version 450
layout(local_size_x = 4) in;

layout(set = 0, binding = 0) buffer Memory { uint flag; uint rounds; };

void main() {
    while (atomicAdd(flag, 0u) == 0u) {
        barrier();
        if (gl_LocalInvocationID.x == 0u) {
            atomicAdd(rounds, 1u);
        }
    }
}
