#version 450
// A literal size the code depends on without reading it: `511` is the last invocation.
layout(local_size_x = 512) in;
layout(std430, binding = 0) buffer B { uint total; };
void main() {
    if (gl_LocalInvocationID.x == 511u) {
        atomicAdd(total, 1u);
    }
}
