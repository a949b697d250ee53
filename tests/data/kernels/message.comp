// Message passing: workgroup 0 writes the data then raises the flag;
// workgroup 1 waits for the flag, then reads the data.
// progress: --workgroups 2
// expect: unfair F | HSA/weak P | OBE/weak F | fair/weak P | fair/strong P
#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Shared {
    uint flag;
    uint data;
    uint result;
};

void main() {
    if (gl_WorkGroupID.x == 0u) {
        data = 42u;
        atomicExchange(flag, 1u);
    } else {
        while (atomicAdd(flag, 0u) == 0u) {
        }
        result = data;
    }
}
