#version 450
// Benchmark kernel (benchmarks/bench_kernel_scale.py): the leader of each
// workgroup takes a global ticket lock for its workgroup; the others wait at a
// barrier until it is done.
layout(local_size_x = 1, local_size_x_id = 0) in;
layout(std430, binding = 0) buffer Lock { uint next; uint serving; uint count; };
void main() {
    if (gl_LocalInvocationID.x == 0u) {
        uint ticket = atomicAdd(next, 1u);
        while (atomicAdd(serving, 0u) != ticket) { }
        count = count + 1u;
        atomicAdd(serving, 1u);
    }
    barrier();
}
