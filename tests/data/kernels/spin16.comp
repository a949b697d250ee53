// A 16-bit counter: outside the supported subset (32- and 64-bit integers only).
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Shared {
    uint16_t counter;
};

void main() {
    counter = counter + uint16_t(1);
}
