// The repro's two hazards (compiled by glslang's HLSL front end) and instructions outside
// the subset (a float wave sum, an exponential): all refused together, each at its line.
globallycoherent RWStructuredBuffer<uint> b : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 gid : SV_GroupID)
{
    b[2] = asuint(WaveActiveSum(asfloat(gid.x)));
    if (gid.x == 0) {
        while (b[1] == 0) {}
    } else {
        InterlockedCompareStore(b[1], 0, 1);
    }
    b[3] = uint(exp(float(gid.x)));
}
