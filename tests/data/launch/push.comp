#version 450
// Push constants: each workgroup adds `step` to the counter `rounds` times.
layout(local_size_x = 1) in;
layout(push_constant) uniform Params { uint step; uint rounds; } params;
layout(std430, binding = 0) buffer B { uint counter; };
void main() {
    for (uint i = 0u; i < params.rounds; i++) {
        atomicAdd(counter, params.step);
    }
}
