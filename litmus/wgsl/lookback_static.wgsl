// progress: --workgroups 3 --buffer flags=3 --buffer aggregates=3 --buffer prefixes=3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// lookback_static.comp in WGSL: the look-back scan with runtime-sized
// arrays (`array<atomic<u32>>` flags, `array<u32>` aggregates and
// prefixes), tile = `workgroup_id.x`; the wait a `loop` on `atomicLoad`.
//
// The verdicts, and why, are those of ../kernels/lookback_static.comp.

const AGGREGATE = 1u;
const PREFIX = 2u;

@group(0) @binding(0) var<storage, read_write> next_tile: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> aggregates: array<u32>;
@group(0) @binding(3) var<storage, read_write> prefixes: array<u32>;
var<workgroup> partner: u32;

@compute @workgroup_size(2)
fn main(
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    let lane = local_id.x;
    let value = lane + 1u;
    let t = group.x;
    if (lane != 0u) {
        partner = value;
    }
    workgroupBarrier();
    if (lane == 0u) {
        let sum = value + partner;
        var before = 0u;
        if (t != 0u) {
            aggregates[t] = sum;
            atomicStore(&flags[t], AGGREGATE);
            var j = t - 1u;
            loop {
                let flag = atomicLoad(&flags[j]);
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
        atomicStore(&flags[t], PREFIX);
    }
}
