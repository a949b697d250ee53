// glslang rejects this shader: `flag` is not declared.
#version 450
layout(local_size_x = 1) in;

void main() {
    while (flag == 0u) {
    }
}
