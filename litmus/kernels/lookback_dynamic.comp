// progress: --workgroups 3 --buffer flags=3 --buffer aggregates=3 --buffer prefixes=3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// lookback_scan.comp with runtime-sized arrays, so that it runs at any size
// (`progress run lookback_dynamic.comp --workgroups 16384 --buffer flags=16384
// --buffer aggregates=16384 --buffer prefixes=16384`): tiles dealt from a
// counter in the order workgroups start, as CUB does.
// Two invocations a workgroup, one tile each; the leader publishes the
// tile's aggregate (flag 1), looks back (waiting while a tile's flag is 0),
// and publishes its inclusive prefix (flag 2).
//
// The verdicts are lookback_scan.comp's: a leader waits only for a tile
// that a started workgroup took, so OBE suffices (P), while HSA's lowest
// id may be a waiter whose tile's owner starves (F). lookback_static.comp
// is the same scan with tile = gl_WorkGroupID.x, which needs id order.
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
    uint t = 0u;
    if (lane == 0u) {
        t = atomicAdd(next_tile, 1u);
    }
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
