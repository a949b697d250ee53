// progress: --workgroups 3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// A single-pass prefix scan with decoupled look-back (Merrill and Garland,
// 2016; CUB's scan): three workgroups of two invocations, one tile each.
// A workgroup takes its tile number from a counter (so tiles are numbered in
// the order workgroups start, as CUB does), sums its tile through workgroup
// memory and barrier(), and its leader publishes the tile's aggregate
// (flag 1) at once, then looks back: it waits on the previous tile's flag,
// adds that tile's aggregate (flag 1) and looks further back, or adds its
// inclusive prefix (flag 2) and stops; then it publishes its own inclusive
// prefix. Tile 0 publishes its prefix without looking back. The result is
// the tiles' inclusive prefixes; an earlier version of this file that also
// wrote each element's prefix (a second barrier, workgroup memory and a
// buffer store per invocation) had the same 11 verdicts at 275,718 states
// instead of 6,601.
//
// Cycles: a leader waits on a tile whose flag is still 0: a workgroup that
// took that tile number (so has taken a step) and has not yet published its
// aggregate, which it does before it ever waits.
// - unfair: F. fair: the awaited workgroup is in F and never steps: P.
// - HSA: workgroup 1 takes tile 0, workgroup 0 takes tile 1 and its leader
//   waits on tile 0: F = {0} throughout (the lowest enabled id), workgroup 1
//   starves, and the wait is workgroup 0's only step (its second invocation
//   returned after the barrier): F weak and strong.
// - OBE, HSA+OBE, LOBE: the awaited workgroup took its tile, so it has
//   started and is in F; its invocations must step, and they publish the
//   aggregate without waiting: P. This is why look-back needs OBE-like
//   progress, and why tiles are dealt dynamically: with tile =
//   gl_WorkGroupID.x a tile would wait on workgroups that may never start.
#version 450
layout(local_size_x = 2) in;

layout(set = 0, binding = 0) buffer Tiles {
    uint next_tile;
    uint flags[3];
    uint aggregates[3];
    uint prefixes[3];
};

shared uint partner;

const uint AGGREGATE = 1u;
const uint PREFIX = 2u;

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint value = lane + 1u;
    uint t = 0u;
    if (lane == 0u) {
        t = atomicAdd(next_tile, 1u);
    } else {
        partner = value;
    }
    barrier();
    if (lane == 0u) {
        uint sum = value + partner;
        uint before = 0u;
        if (t != 0u) {
            aggregates[t] = sum;
            atomicExchange(flags[t], AGGREGATE);
            uint j = t - 1u;
            while (true) {
                uint flag = atomicAdd(flags[j], 0u);
                if (flag == PREFIX) {
                    before += prefixes[j];
                    break;
                }
                if (flag == AGGREGATE) {
                    before += aggregates[j];
                    j -= 1u;
                }
            }
        }
        prefixes[t] = before + sum;
        atomicExchange(flags[t], PREFIX);
    }
}
