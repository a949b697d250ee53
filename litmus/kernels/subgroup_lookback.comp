// progress: --workgroups 3 --subgroup-size 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P | fair/fair/unfair/weak P
//
// A decoupled look-back scan written with subgroup operations, as modern
// scans are (lookback_scan.comp is the same algorithm with a workgroup
// barrier and shared memory): each workgroup is one subgroup of two lanes
// and takes a tile by ticket (subgroupElect: lane 0 takes it,
// subgroupBroadcastFirst hands it to the other lane); the tile's reduction is
// subgroupAdd(lane + 1) = 3; a tile other than the first publishes its
// aggregate, then looks back over its predecessors a window of two tiles at
// a time: lane k reads the flag of tile j - k, subgroupBallot and
// subgroupBallotFindLSB find the nearest unpublished tile (w) and the nearest
// tile with an inclusive prefix (p); with p < w the prefix and the
// aggregates before it end the look-back (subgroupAdd of each lane's
// share), with w > 0 the aggregates before w are taken and the window
// moves; w = 0 spins. Each tile publishes its inclusive prefix: 3, 6, 9
// (tests/test_kernel_subgroups.py checks every end state).
//
// Workgroup models (the expect line; (M, fair, fair)). A cycle is a look-back
// spinning on an unpublished tile while the tile's owner does not step.
// - unfair: F.
// - fair: P: the owner is fair.
// - HSA: F: workgroup 1 takes ticket 0 and workgroup 0 ticket 1; workgroup 0,
//   the lowest enabled, spins on tile 0 while workgroup 1 is never fair.
// - OBE, HSA+OBE, LOBE: P: a tile's owner took its ticket, a step, so it is
//   fair (LOBE and HSA+OBE contain OBE). Strong as weak.
//
// Lane models (scoped; the expect line's fair/fair/M cells, tests/test_kernel_subgroups.py): (fair, fair, M) is P
// for every lane model M, unfair included: every loop of a lane passes
// through collective steps, which wait for both lanes, so a fair subgroup
// that progresses makes both lanes progress. Compare warp_spinlock.comp.
#version 450
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_ballot : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
layout(local_size_x = 2) in;

layout(set = 0, binding = 0) buffer Tiles {
    uint next_tile;
    uint flags[3];
    uint aggregates[3];
    uint prefixes[3];
};

const uint AGGREGATE = 1u;
const uint PREFIX = 2u;
const uint NONE = 0xffffffffu;

void main() {
    uint lane = gl_SubgroupInvocationID;
    uint t = 0u;
    if (subgroupElect()) {
        t = atomicAdd(next_tile, 1u);
    }
    t = subgroupBroadcastFirst(t);
    uint sum = subgroupAdd(lane + 1u);
    uint before = 0u;
    if (t != 0u) {
        if (subgroupElect()) {
            aggregates[t] = sum;
            atomicExchange(flags[t], AGGREGATE);
        }
        uint j = t - 1u;
        while (true) {
            bool inside = lane <= j;
            uint k = j - lane;
            uint flag = PREFIX;
            if (inside) {
                flag = atomicAdd(flags[k], 0u);
            }
            uint w = subgroupBallotFindLSB(subgroupBallot(flag == 0u));
            uint p = subgroupBallotFindLSB(subgroupBallot(flag == PREFIX));
            if (p < w) {
                uint mine = 0u;
                if (inside && lane < p) {
                    mine = aggregates[k];
                }
                if (inside && lane == p) {
                    mine = prefixes[k];
                }
                before += subgroupAdd(mine);
                break;
            }
            if (w > 0u) {
                uint mine = 0u;
                if (lane < w) {
                    mine = aggregates[k];
                }
                before += subgroupAdd(mine);
                j -= min(w, gl_SubgroupSize);
            }
        }
    }
    if (subgroupElect()) {
        prefixes[t] = before + sum;
        atomicExchange(flags[t], PREFIX);
    }
}
