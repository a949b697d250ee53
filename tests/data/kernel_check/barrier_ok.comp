// Both invocations meet at barrier(); each then reads what the other wrote.
// progress: --workgroups 1
#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Data { uint data[2]; uint seen[2]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    data[i] = i + 1u;
    barrier();
    seen[i] = data[1u - i];
}
