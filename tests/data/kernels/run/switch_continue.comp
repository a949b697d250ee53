// progress: --workgroups 1
// A `continue` from inside a switch with cases (tests/test_spirv_naga.py):
// glslang branches from the switch construct to the loop's continue target,
// an exit from a switch the runner refuses on wgpu (gfx-rs/naga#1575).
#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Mem { uint lock; uint counter; } mem;
void main() {
    for (uint i = 0u; i < 4u; i++) {
        switch (atomicExchange(mem.lock, 1u)) {
        case 0u: continue;
        default: mem.counter += 1u; break;
        }
        mem.counter += 10u;
    }
}
