// progress: --workgroups 2 --buffer sync=2 --buffer boxes=4 --push args.sync=@sync --push args.boxes=@boxes+8
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak F | OBE/strong F | HSA+OBE/weak F | HSA+OBE/strong F | LOBE/weak F | LOBE/strong F
//
// A phase barrier as Mesa's BVH builders write it (radv's ploc_internal.comp):
// no descriptor is bound; the kernel reaches its memory through buffer
// references (GL_EXT_buffer_reference, PhysicalStorageBuffer64) whose 64-bit
// addresses come in push constants, here two raw regions the header makes
// (`--buffer sync=2`, `--push args.sync=@sync`; `args.boxes` points 8 bytes
// into `boxes`). Each workgroup computes a float bound, counts itself in
// `sync.arrived` and waits for the other before reading the other's bound.
//
// Cycles: a workgroup waits on `arrived` while the other has not added its 1
// (it has not started: every step before the add is its own).
// - unfair: F. fair: the other workgroup is in F and never steps: P.
// - HSA, OBE, HSA+OBE, LOBE: workgroup 0 adds and waits before workgroup 1
//   has run at all: F = {0} under each (the lowest id; the only started one;
//   nothing above 0 started), workgroup 1 starves and the wait is the only
//   fair step: F weak and strong (as grid_barrier.comp: a phase barrier needs
//   every workgroup running at once, which Mesa gets by dispatching only as
//   many workgroups as fit).
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Sync {
    uint arrived;
    uint phase;
};
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Bounds {
    float low[2];
};
layout(push_constant) uniform Args {
    Sync sync;
    uint64_t boxes;
} args;

void main() {
    uint me = gl_WorkGroupID.x;
    Bounds bounds = Bounds(args.boxes);
    bounds.low[me] = float(me) * 0.5 - 1.0;
    atomicAdd(args.sync.arrived, 1u);
    while (atomicAdd(args.sync.arrived, 0u) < 2u) {
    }
    Bounds first = Bounds(args.boxes - 8ul);
    first.low[me] = max(bounds.low[0], bounds.low[1]);
}
