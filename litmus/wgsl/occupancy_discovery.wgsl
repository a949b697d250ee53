// progress: --workgroups 3
// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P
//
// occupancy_discovery.comp in WGSL (the occupancy discovery protocol of
// Sorensen et al., as its WebGPU ports write it): `lock()` and `unlock()`
// functions around an atomic mutex, the `closed` and `count` fields read and
// written plainly under it, then a barrier among the workgroups that joined.
//
// The verdicts, and why, are those of ../kernels/occupancy_discovery.comp.

struct Discovery {
    mutex: atomic<u32>,
    closed: u32,
    count: u32,
    arrived: atomic<u32>,
}

@group(0) @binding(0) var<storage, read_write> discovery: Discovery;
@group(0) @binding(1) var<storage, read_write> members: array<u32, 3>;

fn lock() {
    while (atomicExchange(&discovery.mutex, 1u) != 0u) {
    }
}

fn unlock() {
    atomicExchange(&discovery.mutex, 0u);
}

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) group: vec3<u32>) {
    lock();
    let joined = discovery.closed == 0u;
    let id = discovery.count;
    if (joined) {
        discovery.count = id + 1u;
    }
    unlock();
    if (!joined) {
        return;
    }
    lock();
    discovery.closed = 1u;
    let participants = discovery.count;
    unlock();
    atomicAdd(&discovery.arrived, 1u);
    while (atomicLoad(&discovery.arrived) < participants) {
    }
    members[id] = group.x + 1u;
}
