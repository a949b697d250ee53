#version 450
// A literal size the code reads through gl_WorkGroupSize (stored, so glslang keeps the read).
layout(local_size_x = 512) in;
layout(std430, binding = 0) buffer B { uint total; };
void main() {
    uvec3 size = gl_WorkGroupSize;
    if (gl_LocalInvocationID.x + 1u == size.x) {
        atomicAdd(total, 1u);
    }
}
