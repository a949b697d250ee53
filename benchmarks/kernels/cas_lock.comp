#version 450
// Benchmark kernel (benchmarks/bench_kernel_scale.py): every invocation takes a
// global compare-and-swap lock, adds to a counter, and releases it. The size is a
// specialization constant, set by --local-size.
layout(local_size_x = 1, local_size_x_id = 0) in;
layout(std430, binding = 0) buffer Lock { uint lock; uint count; };
void main() {
    while (atomicCompSwap(lock, 0u, 1u) != 0u) { }
    count = count + 1u;
    atomicExchange(lock, 0u);
}
