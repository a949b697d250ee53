// progress: --workgroups 2 --local-size 2
#version 450
// A workgroup tree reduction written for 512 invocations: the size is a specialization
// constant (local_size_x_id, default 512) and the shared array and the loop read it as
// gl_WorkGroupSize, so --local-size checks it at 2 (or 4) invocations without an edit.
layout(local_size_x = 512, local_size_x_id = 0) in;
layout(std430, binding = 0) buffer B { uint total; };
shared uint partial[gl_WorkGroupSize.x];
void main() {
    uint lid = gl_LocalInvocationID.x;
    partial[lid] = lid + 1u;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            partial[lid] += partial[lid + s];
        }
        barrier();
    }
    if (lid == 0u) {
        atomicAdd(total, partial[0]);
    }
}
