// progress: --workgroups 3 --local-size 2 -D ITEMS_PER_INVOCATION=2 -I ../include --buffer flags=3 --buffer aggregates=3 --buffer prefixes=3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// lookback_dynamic.comp as a scan library writes it: a `.comp.glsl` file
// that includes a common header by a quoted path relative to itself
// (`"../include/lookback_common.h"`: the tile-state buffers and the flag
// values) and a helper by an angled path under an include root given with
// -I (`<progress/workgroup.h>`), the workgroup size a specialization
// constant (local_size_x_id = 0, 256 by default), the work per invocation
// a define with a default (`ITEMS_PER_INVOCATION`, 16 unless -D says). The
// header checks it unedited at 2 invocations and 2 items (`--local-size 2
// -D ITEMS_PER_INVOCATION=2`).
//
// Each workgroup takes a tile from a counter in the order workgroups start
// (as CUB does); its leader publishes the tile's aggregate (flag 1), looks
// back (waiting while a tile's flag is 0), and publishes its inclusive
// prefix (flag 2).
//
// The verdicts are lookback_dynamic.comp's, and for its reasons: a leader
// waits only for a tile that a started workgroup took, so OBE suffices (P,
// and HSA+OBE, LOBE), while HSA's lowest id may be a waiter whose tile's
// owner starves (F); unfair F, fair P. The items change the values summed,
// not who waits for whom.
#version 450
#extension GL_GOOGLE_include_directive : require

#include "../include/lookback_common.h"
#include <progress/workgroup.h>

#ifndef ITEMS_PER_INVOCATION
#define ITEMS_PER_INVOCATION 16
#endif

layout(local_size_x = 256, local_size_x_id = 0) in;

shared uint partner;

void main() {
    uint value = 0u;
    for (uint i = 0u; i < ITEMS_PER_INVOCATION; i++) {
        value += gl_LocalInvocationID.x + 1u;
    }
    uint t = 0u;
    if (is_leader()) {
        t = atomicAdd(next_tile, 1u);
    }
    if (gl_LocalInvocationID.x == 1u) {
        partner = value;
    }
    barrier();
    if (is_leader()) {
        uint sum = value + partner;
        uint before = 0u;
        if (t != 0u) {
            aggregates[t] = sum;
            atomicExchange(flags[t], FLAG_AGGREGATE);
            uint j = t - 1u;
            while (true) {
                uint flag = atomicAdd(flags[j], 0u);
                if (flag == FLAG_PREFIX) {
                    before += prefixes[j];
                    break;
                }
                if (flag == FLAG_AGGREGATE) {
                    before += aggregates[j];
                    j -= 1u;
                }
            }
        }
        prefixes[t] = before + sum;
        atomicExchange(flags[t], FLAG_PREFIX);
    }
}
