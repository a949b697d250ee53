// progress: --workgroups 3 --buffer flags=3 --buffer aggregates=3 --buffer prefixes=3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// lookback_scan.comp with runtime-sized arrays, so that it runs at any size
// (`progress run lookback_static.comp --workgroups 16384 --buffer flags=16384
// --buffer aggregates=16384 --buffer prefixes=16384`): tile =
// gl_WorkGroupID.x, so tile t is workgroup t, whenever the device starts it.
// Two invocations a workgroup, one tile each; the leader publishes the
// tile's aggregate (flag 1), looks back (waiting while a tile's flag is 0),
// and publishes its inclusive prefix (flag 2).
//
// Cycles: a leader waits on the tile below its own, whose workgroup has a
// lower id and may not have started.
// - unfair: F. fair: the awaited workgroup is in F and never steps: P.
// - HSA: every workgroup below the lowest enabled one has returned, having
//   published its prefix, so the fair workgroup's wait ends: P. HSA+OBE, LOBE: the awaited workgroup has a
//   lower id than a started one: P.
// - OBE: workgroup 1 starts and waits while workgroup 0 never has: F weak
//   and strong. A static look-back needs the device to start low ids first
//   (or all of them): the `reverse` and `interleave` launch shapes of
//   `progress run` take that order away (docs/results/gpu/kernels/report.md).
#version 450
layout(local_size_x = 2) in;

layout(set = 0, binding = 0) buffer Counter { uint next_tile; };
layout(set = 0, binding = 1) buffer Flags { uint flags[]; };
layout(set = 0, binding = 2) buffer Aggregates { uint aggregates[]; };
layout(set = 0, binding = 3) buffer Prefixes { uint prefixes[]; };

shared uint partner;

const uint AGGREGATE = 1u;
const uint PREFIX = 2u;

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint value = lane + 1u;
    uint t = gl_WorkGroupID.x;
    if (lane != 0u) {
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
