// progress: --workgroups 3 --init inputs=1
// expect: unfair P | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// lookback_scan.comp with a fallback (the "decoupled fallback" of Levien's
// WebGPU prefix sum, which cannot assume OBE): three workgroups of two
// invocations, one tile of two inputs each (every input 1). The leader
// takes its tile number, sums its tile's inputs, publishes the aggregate
// (flag 1) and looks back; where a tile has published nothing yet it does
// not wait for it: it reduces that tile's inputs itself and looks further
// back. A published prefix (flag 2), or tile 0, ends the look-back.
//
// Every turn of the look-back moves to an earlier tile or ends it, so no
// schedule runs forever: guaranteed to terminate under every model, unfair
// included. The price is redundant work when a predecessor is slow, not a
// dependence on it running: the look-back needs no progress model at all.
#version 450
layout(local_size_x = 2) in;

layout(set = 0, binding = 0) buffer Tiles {
    uint next_tile;
    uint flags[3];
    uint aggregates[3];
    uint prefixes[3];
};
layout(set = 0, binding = 1) buffer Inputs { uint inputs[6]; };

const uint AGGREGATE = 1u;
const uint PREFIX = 2u;

void main() {
    if (gl_LocalInvocationID.x != 0u) {
        return;
    }
    uint t = atomicAdd(next_tile, 1u);
    uint sum = inputs[2u * t] + inputs[2u * t + 1u];
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
            } else {
                before += inputs[2u * j] + inputs[2u * j + 1u];
            }
            if (j == 0u) {
                break;
            }
            j -= 1u;
        }
    }
    prefixes[t] = before + sum;
    atomicExchange(flags[t], PREFIX);
}
