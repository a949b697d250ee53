// progress: --workgroups 3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// lookback_scan.comp in WGSL: the decoupled look-back scan as WebGPU
// scans write it: tiles numbered by an atomic counter, each tile summed
// through `var<workgroup>` memory and `workgroupBarrier()`, its leader
// publishing the aggregate (flag 1), looking back in a `loop` with
// `atomicLoad` of the previous tiles' flags, then publishing its inclusive
// prefix (flag 2).
//
// The verdicts, and why, are those of ../kernels/lookback_scan.comp.

struct Tiles {
    next_tile: atomic<u32>,
    flags: array<atomic<u32>, 3>,
    aggregates: array<u32, 3>,
    prefixes: array<u32, 3>,
}

const AGGREGATE = 1u;
const PREFIX = 2u;

@group(0) @binding(0) var<storage, read_write> tiles: Tiles;
var<workgroup> partner: u32;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_id) local_id: vec3<u32>) {
    let lane = local_id.x;
    let value = lane + 1u;
    var t = 0u;
    if (lane == 0u) {
        t = atomicAdd(&tiles.next_tile, 1u);
    } else {
        partner = value;
    }
    workgroupBarrier();
    if (lane == 0u) {
        let sum = value + partner;
        var before = 0u;
        if (t != 0u) {
            tiles.aggregates[t] = sum;
            atomicStore(&tiles.flags[t], AGGREGATE);
            var j = t - 1u;
            loop {
                let flag = atomicLoad(&tiles.flags[j]);
                if (flag == PREFIX) {
                    before += tiles.prefixes[j];
                    break;
                }
                if (flag == AGGREGATE) {
                    before += tiles.aggregates[j];
                    j -= 1u;
                }
            }
        }
        tiles.prefixes[t] = before + sum;
        atomicStore(&tiles.flags[t], PREFIX);
    }
}
