// A 64-bit counter: outside the supported subset (32-bit integers only).
#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Shared {
    uint64_t counter;
};

void main() {
    counter = counter + 1ul;
}
