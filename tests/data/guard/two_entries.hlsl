// Two entry points, as an HLSL library holds its init and main kernels in one file;
// `--entry Spin` picks the second.
RWStructuredBuffer<uint> flags;

[numthreads(1, 1, 1)]
void Init(uint3 gid : SV_GroupID)
{
    flags[gid.x] = 0;
}

[numthreads(1, 1, 1)]
void Spin(uint3 gid : SV_GroupID)
{
    uint old;
    InterlockedExchange(flags[0], 1, old);
    flags[1] = old + 5;
}
