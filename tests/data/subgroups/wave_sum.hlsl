// progress: --workgroups 1 --subgroup-size 4 --buffer results=4
// HLSL's wave intrinsics through the HLSL compiler: each lane writes
// WaveActiveSum(lane + 1) * 100 + WavePrefixSum(lane + 1) * 10 + WaveIsFirstLane().
RWStructuredBuffer<uint> results : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_GroupThreadID) {
    uint lane = WaveGetLaneIndex();
    uint first = WaveIsFirstLane() ? 1u : 0u;
    results[id.x] = WaveActiveSum(lane + 1u) * 100u + WavePrefixSum(lane + 1u) * 10u + first;
}
