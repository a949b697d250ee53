// lookback_common.h: what every decoupled look-back kernel of litmus/kernels/
// shares, as a scan library's common header holds it (the buffers of the
// tile states, the flag values, the partner exchange in shared memory).
// Included by ../kernels/include_lookback.comp.glsl; not a kernel itself.
#ifndef LOOKBACK_COMMON_H
#define LOOKBACK_COMMON_H

#define FLAG_NOT_READY 0u
#define FLAG_AGGREGATE 1u
#define FLAG_PREFIX 2u

layout(set = 0, binding = 0) buffer Counter { uint next_tile; };
layout(set = 0, binding = 1) buffer Flags { uint flags[]; };
layout(set = 0, binding = 2) buffer Aggregates { uint aggregates[]; };
layout(set = 0, binding = 3) buffer Prefixes { uint prefixes[]; };

#endif
