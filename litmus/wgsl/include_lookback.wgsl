// progress: --workgroups 3 --local-size 2 --buffer flags=3 --buffer aggregates=3 --buffer prefixes=3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// include_lookback.comp.glsl in WGSL, which has neither #include nor
// #define: the common header's flags and buffers written out here, the
// workgroup size an override (@id(0), 256 by default, set by --local-size
// through @workgroup_size), the items per invocation a constant at the
// value the GLSL header defines (-D ITEMS_PER_INVOCATION=2; the compiler
// options -D and -I are the GLSL file's alone).
//
// The verdicts, and why, are those of ../kernels/include_lookback.comp.glsl.

const FLAG_AGGREGATE = 1u;
const FLAG_PREFIX = 2u;
const ITEMS_PER_INVOCATION = 2u;

@id(0) override WORKGROUP: u32 = 256u;

@group(0) @binding(0) var<storage, read_write> next_tile: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> aggregates: array<u32>;
@group(0) @binding(3) var<storage, read_write> prefixes: array<u32>;
var<workgroup> partner: u32;

fn is_leader(local_id: vec3<u32>) -> bool {
    return local_id.x == 0u;
}

@compute @workgroup_size(WORKGROUP)
fn main(@builtin(local_invocation_id) local_id: vec3<u32>) {
    var value = 0u;
    for (var i = 0u; i < ITEMS_PER_INVOCATION; i++) {
        value += local_id.x + 1u;
    }
    var t = 0u;
    if (is_leader(local_id)) {
        t = atomicAdd(&next_tile, 1u);
    }
    if (local_id.x == 1u) {
        partner = value;
    }
    workgroupBarrier();
    if (is_leader(local_id)) {
        let sum = value + partner;
        var before = 0u;
        if (t != 0u) {
            aggregates[t] = sum;
            atomicExchange(&flags[t], FLAG_AGGREGATE);
            var j = t - 1u;
            loop {
                let flag = atomicAdd(&flags[j], 0u);
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
        atomicExchange(&flags[t], FLAG_PREFIX);
    }
}
