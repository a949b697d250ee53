// A 64-bit counter: two 32-bit cells, counter and counter:hi (docs/kernels.md, "Floats and 64-bit integers").
#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Shared {
    uint64_t counter;
};

void main() {
    counter = counter + 1ul;
}
