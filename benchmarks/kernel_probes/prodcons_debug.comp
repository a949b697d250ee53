// progress: --workgroups 2
// A probe (issue 32, docs/results/gpu/kernels/lavapipe_prodcons.md): litmus/kernels/
// prodcons_queue.comp with the consumer recording, for each item i, the value it
// read (reads[i]), the tail it read right after its wait (tails[i]) and how many
// turns its wait made (waits[i]). The wait `while (atomicAdd(tail, 0u) == i)`
// can only end once tail != i, so tails[i] > i in every run that ends by itself.
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Queue {
    uint head;
    uint tail;
    uint slots[2];
};
layout(set = 0, binding = 1) buffer Sum { uint sum; uint reads[3]; uint tails[3]; uint waits[3]; };

const uint ITEMS = 3u;
const uint CAPACITY = 2u;

void main() {
    if (gl_WorkGroupID.x == 0u) {
        for (uint i = 0u; i < ITEMS; i++) {
            while (i - atomicAdd(head, 0u) == CAPACITY) {
            }
            slots[i % CAPACITY] = i + 1u;
            atomicAdd(tail, 1u);
        }
    } else {
        uint total = 0u;
        for (uint i = 0u; i < ITEMS; i++) {
            uint n = 0u;
            while (atomicAdd(tail, 0u) == i) {
                n++;
            }
            uint t = atomicAdd(tail, 0u);
            uint v = slots[i % CAPACITY];
            reads[i] = v;
            tails[i] = t;
            waits[i] = n;
            total += v;
            atomicAdd(head, 1u);
        }
        sum = total;
    }
}
