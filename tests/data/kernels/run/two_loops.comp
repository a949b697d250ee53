// progress: --workgroups 2
// Two loops: the first ends after four turns, the second waits for a flag
// that nothing raises. Every iteration must time out at the second loop.
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Memory { uint flag; uint turns; };

void main() {
    for (uint i = 0u; i < 4u; i++) {
        atomicAdd(turns, 1u);
    }
    while (atomicAdd(flag, 0u) == 0u) {
    }
}
