// A local livelock: the loop touches no shared memory.
// progress: --workgroups 1
#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint done; };
void main() {
    done = 1u;
    while (true) { }
}
