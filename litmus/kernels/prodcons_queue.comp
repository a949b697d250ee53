// progress: --workgroups 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// A bounded producer-consumer queue between two workgroups: workgroup 0
// puts 3 items into a ring of 2 slots, workgroup 1 takes them out and adds
// them up. `tail` counts items put, `head` items taken (both only ever grow,
// by fetch-and-add); the producer waits while the ring is full
// (tail - head == 2), the consumer while it is empty (tail == head).
//
// Cycles: (a) the consumer waits on an empty ring while the producer does
// not run; (b) the producer waits on a full ring (it has put 2 items) while
// the consumer does not run, which may not even have started.
// - unfair: F. fair: the other side is in F and never steps: P.
// - HSA: (b): workgroup 0 is the lowest enabled id, F = {0}, the consumer
//   starves and the producer's wait is the only fair step: F weak and strong.
// - OBE: (a) with the producer never started: F = {1}: F weak and strong.
// - HSA+OBE, LOBE: (b) with the consumer never started: F = {0} under both
//   (the lowest id; the only started one; nothing above 0 started): F.
// A queue both sides wait on needs both to be running: only fair promises it.
#version 450
layout(local_size_x = 1) in;

layout(set = 0, binding = 0) buffer Queue {
    uint head;
    uint tail;
    uint slots[2];
};
layout(set = 0, binding = 1) buffer Sum { uint sum; };

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
            while (atomicAdd(tail, 0u) == i) {
            }
            total += slots[i % CAPACITY];
            atomicAdd(head, 1u);
        }
        sum = total;
    }
}
