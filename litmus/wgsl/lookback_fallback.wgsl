// progress: --workgroups 3 --init inputs=1
// expect: unfair P | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// lookback_fallback.comp in WGSL, the decoupled fallback as WebGPU scans
// write it: where a predecessor has published nothing yet, the leader
// reduces that tile's inputs itself and looks further back, so it never
// waits on another workgroup.
//
// The verdicts, and why, are those of ../kernels/lookback_fallback.comp.

struct Tiles {
    next_tile: atomic<u32>,
    flags: array<atomic<u32>, 3>,
    aggregates: array<u32, 3>,
    prefixes: array<u32, 3>,
}

const AGGREGATE = 1u;
const PREFIX = 2u;

@group(0) @binding(0) var<storage, read_write> tiles: Tiles;
@group(0) @binding(1) var<storage, read_write> inputs: array<u32, 6>;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_id) local_id: vec3<u32>) {
    if (local_id.x != 0u) {
        return;
    }
    let t = atomicAdd(&tiles.next_tile, 1u);
    let sum = inputs[2u * t] + inputs[2u * t + 1u];
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
            } else {
                before += inputs[2u * j] + inputs[2u * j + 1u];
            }
            if (j == 0u) {
                break;
            }
            j -= 1u;
        }
    }
    tiles.prefixes[t] = before + sum;
    atomicStore(&tiles.flags[t], PREFIX);
}
