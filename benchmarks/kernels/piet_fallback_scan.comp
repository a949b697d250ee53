// progress: --workgroups 4 --init inputs=1
#version 450
// Benchmark kernel (benchmarks/bench_kernel_scale.py, issue 29): a decoupled
// look-back scan with a fallback in the shape of piet-gpu's / Vello's prefix
// scan, where the whole workgroup helps. Written for this benchmark from the
// algorithm's description (Levien, "Prefix sum on portable compute shaders",
// 2021), not copied. Up to 4 workgroups (tiles) of up to 4 invocations (the
// size is a specialization constant, set by --local-size); every input 1.
//
// Each workgroup takes a tile number (its leader, by an atomic ticket, shared
// through Workgroup memory), reduces its tile with every invocation loading
// one input, and, past tile 0, publishes the aggregate (flag 1). Then the
// whole workgroup looks back: the leader reads the predecessor's flag and
// shares it; every invocation takes the same branch. A published prefix
// (flag 2) ends the look-back; an aggregate (flag 1) is added and the
// look-back moves one tile earlier; no flag yet: the workgroup does not wait,
// it reduces that tile's inputs itself (every invocation loads one again)
// and moves one tile earlier. Tile 0 ends it.
//
// Verdicts, reasoned: every branch taken at a barrier is the same for the
// whole workgroup (t and flag come from Workgroup memory written by the
// leader before the barrier, read after it), so every barrier is reached by
// all invocations of the workgroup: no deadlock. Every loop is bounded (the
// look-back moves to an earlier tile each turn or ends; the reductions count
// to the workgroup size), and nothing waits for another workgroup: the run of
// each invocation has a bounded number of steps whatever the schedule, so
// there is no infinite run at all. Guaranteed to terminate under every model
// and fairness, unfair included: PPPPPPPPPPP.
layout(local_size_x = 4, local_size_x_id = 0) in;
layout(std430, binding = 0) buffer Tiles {
    uint next_tile;
    uint flags[4];
    uint aggregates[4];
    uint prefixes[4];
};
layout(std430, binding = 1) buffer Inputs { uint inputs[16]; };

shared uint sh_tile;
shared uint sh_flag;
shared uint sh_part[4];

const uint AGGREGATE = 1u;
const uint PREFIX = 2u;

uint reduce_tile(uint tile, uint lid) {
    sh_part[lid] = inputs[4u * tile + lid];
    barrier();
    uint sum = 0u;
    for (uint i = 0u; i < gl_WorkGroupSize.x; i++) {
        sum += sh_part[i];
    }
    barrier();
    return sum;
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    if (lid == 0u) {
        sh_tile = atomicAdd(next_tile, 1u);
    }
    barrier();
    uint t = sh_tile;
    uint sum = reduce_tile(t, lid);
    uint before = 0u;
    if (t != 0u) {
        if (lid == 0u) {
            aggregates[t] = sum;
            atomicExchange(flags[t], AGGREGATE);
        }
        uint j = t - 1u;
        while (true) {
            if (lid == 0u) {
                sh_flag = atomicAdd(flags[j], 0u);
            }
            barrier();
            uint flag = sh_flag;
            barrier();
            if (flag == PREFIX) {
                before += prefixes[j];
                break;
            }
            if (flag == AGGREGATE) {
                before += aggregates[j];
            } else {
                before += reduce_tile(j, lid);
            }
            if (j == 0u) {
                break;
            }
            j -= 1u;
        }
    }
    if (lid == 0u) {
        prefixes[t] = before + sum;
        atomicExchange(flags[t], PREFIX);
    }
}
