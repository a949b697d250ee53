// Subgroup operations: outside the supported subset.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Shared {
    uint lock;
};

void main() {
    uvec4 votes = subgroupBallot(lock == 0u);
    if (subgroupElect()) {
        lock = votes.x;
    }
}
