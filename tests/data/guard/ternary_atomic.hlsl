// progress: --workgroups 2 --buffer flags=2
// An atomic whose value is a ?: : Slang puts the OpAtomicExchange in the merge block of
// the ?: branches, after a DebugScope and no DebugLine (a line applies to its own block).
RWStructuredBuffer<uint> flags;

[numthreads(1, 1, 1)]
void main(uint3 gid : SV_GroupID)
{
    uint t;
    InterlockedExchange(flags[gid.x], gid.x ? 1u : 2u, t);
}
