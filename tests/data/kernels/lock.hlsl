// A spin lock in HLSL.
// progress: --workgroups 2
RWStructuredBuffer<uint> lock : register(u0);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint old = 1;
    while (old == 1) {
        InterlockedExchange(lock[0], 1, old);
    }
    InterlockedExchange(lock[0], 0, old);
}
