// progress: --workgroups 4
// Each workgroup writes, in the order workgroups run, its id as the kernel
// reads it, the number of workgroups and its first global invocation id.
#version 450
layout(local_size_x = 2) in;

layout(set = 0, binding = 0) buffer Order { uint count; uint ids[4]; uint counts[4]; uint globals[4]; };

void main() {
    if (gl_LocalInvocationID.x == 0u) {
        uint slot = atomicAdd(count, 1u);
        ids[slot] = gl_WorkGroupID.x;
        counts[slot] = gl_NumWorkGroups.x;
        globals[slot] = gl_GlobalInvocationID.x;
    }
}
