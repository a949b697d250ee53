// progress: --workgroups 1
// The wait is in a function called from main: a timeout there must leave
// main too, so `result` is never written.
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Memory { uint flag; uint result; };

uint wait_for(uint value) {
    uint seen = 0u;
    while (seen != value) {
        seen = atomicAdd(flag, 0u);
    }
    return seen;
}

void main() {
    result = wait_for(1u) + 6u;
}
