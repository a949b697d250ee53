// progress: --workgroups 3 --subgroup-size 2
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P | fair/fair/unfair/weak P
//
// subgroup_lookback.comp in WGSL: subgroupBroadcastFirst, subgroupAdd and
// subgroupBallot as WGSL names them; naga-wasm 30.1 has no subgroupElect, so
// a lane is elected when subgroupBroadcastFirst(lane) is its own lane (the
// first lane taking part, what subgroupElect picks); the nearest lane of a
// ballot is firstTrailingBit of its first word (0xffffffff for none, as
// subgroupBallotFindLSB); flags an array of atomics.
//
// WGSL spells this `enable subgroups;`, which naga-wasm 30.1 refuses ("not
// yet implemented"); it reads the subgroup built-ins without it, so the
// directive is left out here (docs/kernels.md, "Subgroups").
//
// The verdicts, and why, are those of ../kernels/subgroup_lookback.comp.

struct Tiles {
    next_tile: atomic<u32>,
    flags: array<atomic<u32>, 3>,
    aggregates: array<u32, 3>,
    prefixes: array<u32, 3>,
}

@group(0) @binding(0) var<storage, read_write> tiles: Tiles;

const AGGREGATE: u32 = 1u;
const PREFIX: u32 = 2u;

@compute @workgroup_size(2)
fn main(@builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) size: u32) {
    var t = 0u;
    if (subgroupBroadcastFirst(lane) == lane) {
        t = atomicAdd(&tiles.next_tile, 1u);
    }
    t = subgroupBroadcastFirst(t);
    let sum = subgroupAdd(lane + 1u);
    var before = 0u;
    if (t != 0u) {
        if (subgroupBroadcastFirst(lane) == lane) {
            tiles.aggregates[t] = sum;
            atomicExchange(&tiles.flags[t], AGGREGATE);
        }
        var j = t - 1u;
        loop {
            let inside = lane <= j;
            let k = j - lane;
            var flag = PREFIX;
            if (inside) {
                flag = atomicAdd(&tiles.flags[k], 0u);
            }
            let w = firstTrailingBit(subgroupBallot(flag == 0u).x);
            let p = firstTrailingBit(subgroupBallot(flag == PREFIX).x);
            if (p < w) {
                var mine = 0u;
                if (inside && lane < p) {
                    mine = tiles.aggregates[k];
                }
                if (inside && lane == p) {
                    mine = tiles.prefixes[k];
                }
                before += subgroupAdd(mine);
                break;
            }
            if (w > 0u) {
                var mine = 0u;
                if (lane < w) {
                    mine = tiles.aggregates[k];
                }
                before += subgroupAdd(mine);
                j -= min(w, size);
            }
        }
    }
    if (subgroupBroadcastFirst(lane) == lane) {
        tiles.prefixes[t] = before + sum;
        atomicExchange(&tiles.flags[t], PREFIX);
    }
}
