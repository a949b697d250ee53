// progress: --workgroups 1 --subgroup-size 4 --buffer results=4
// HLSL as DXC reads it (OneSweep's SortCommon.hlsl writes both): an explicit cast of
// WaveActiveBallot's uint4 to uint is its first component (DXC truncates, with a
// warning), and two `for` loops of one function each declare `j` (HLSL 2021 scopes
// it to its loop). Lane l writes ballot(lane < 2).x = 3, plus sum of j over each loop
// where l < j (1, 2 for the first loop; 2, 1 for the second), times 10.
RWStructuredBuffer<uint> results : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_GroupThreadID) {
    uint lane = WaveGetLaneIndex();
    uint sum = 0;
    for (uint j = 1; j < 4; j <<= 1)
        if (lane < j)
            sum += j;
    for (uint j = 2; j > 0; j >>= 1)
        if (lane < j)
            sum += j;
    results[id.x] = (uint) WaveActiveBallot(lane < 2) + sum * 10;
}
