// Two invocations per workgroup meet at a workgroup barrier; each writes
// its slot of a runtime-sized buffer.
// progress: --workgroups 2 --buffer data=4 --init data[3]=7
#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Data {
    uint data[];
};
shared uint seen;

void main() {
    uint me = gl_GlobalInvocationID.x;
    if (gl_LocalInvocationID.x == 0u) {
        seen = 1u;
    }
    barrier();
    data[me] = seen + me;
}
