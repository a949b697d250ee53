// A test-and-set spin lock: each workgroup's one invocation takes the lock,
// bumps a counter, and releases it.
// progress: --workgroups 2
#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Shared {
    uint lock;
    uint counter;
};

void main() {
    while (atomicExchange(lock, 1u) == 1u) {
    }
    counter = counter + 1u;
    atomicExchange(lock, 0u);
}
