// progress: --workgroups 1 --subgroup-size 4 --buffer results=4
// HLSL's quad intrinsics through the HLSL compiler (QuadSwap and
// QuadBroadcast): each lane writes QuadReadAcrossX(lane) * 1000 +
// QuadReadAcrossY(lane) * 100 + QuadReadAcrossDiagonal(lane) * 10 +
// QuadReadLaneAt(lane, 3).
RWStructuredBuffer<uint> results : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_GroupThreadID) {
    uint lane = WaveGetLaneIndex();
    results[id.x] = QuadReadAcrossX(lane) * 1000u + QuadReadAcrossY(lane) * 100u
        + QuadReadAcrossDiagonal(lane) * 10u + QuadReadLaneAt(lane, 3u);
}
