// progress: --workgroups 2
@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;

@compute @workgroup_size(1)
fn main() {
    while (atomicLoad(flag) == 0u) {
    }
}
