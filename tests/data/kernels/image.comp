// A storage image: outside the supported subset.
#version 450
layout(local_size_x = 1) in;
layout(binding = 0, r32ui) uniform uimage2D img;

void main() {
    imageStore(img, ivec2(0, 0), uvec4(1u));
}
