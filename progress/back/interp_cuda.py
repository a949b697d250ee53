"""The CUDA interpreter: one kernel, compiled once, that runs any packed test from its instruction words.

Kernel `progress_interp`, launched with one thread per block and K * N * M
blocks (`progress.gpu.pack`):

    (int *memory, const unsigned int *code, const int *starts, const int *lengths,
     const int *cells, const long long *bases, const int *active,
     int *failed, unsigned int *count, unsigned long long *began,
     unsigned long long budget, unsigned int grace,
     int h, int layout, unsigned int k, unsigned int n, unsigned int m, int *trace)

Block g runs, in layout 0 (interleave), workgroup g div K of test g mod K,
in layout 1 (concat) workgroup g mod W of test g div W (W = N * M); the
workgroup's (instance, thread) is the heuristic's (`mapping.mapping_c`, as
in the generated kernels).
Test `t`'s instance i has `cells[t]` ints at `memory + bases[t] + i*cells[t]`;
thread j's words are `code[starts[t*N+j] ..][0 .. lengths[t*N+j]]`
(`interp_layout`). A test with `active[t] == 0` (decided already: the
runner's `--stop-early`) returns at once. A thread that times out sets
`failed[t*M + i]`, and the first of its instance adds one to `count[t]`.
`trace` is null or receives `(t*M + instance)*N + thread` per block.

Deadline: `began[t]` (zero before the launch) takes the `%globaltimer` of
test t's first block to start; a thread's deadline is `began[t] + budget`,
as a generated kernel's is its launch's start + budget (a test's blocks
that start late get what is left). But a thread may take `grace` backward
jumps before it looks at the clock: in a pack, a test's blocks can wait
behind another test's spinning blocks past its deadline, which in a launch
of its own they would not, and a retry loop that needs no other thread
(swap 1 in, jump back once while the old value was 0) must not time out
for it. A thread that waits for another takes its `grace` jumps in
microseconds and then times out as before.

The semantics are the generated kernels' (`cuda_source`, `codegen`): one
instruction at a time, an exchanging AXB is `atomicExch`, a non-exchanging
one `atomicOr(p, 0)`, relaxed; a jump to the same or an earlier
instruction first compares `%globaltimer` with the launch's deadline.
"""

from __future__ import annotations

from progress.back.cuda_source import PRELUDE
from progress.back.interp_layout import decode

KERNEL_NAME = "progress_interp"

_FIELDS = decode("word")

KERNEL = f"""
extern "C" __global__ void __launch_bounds__(1) {KERNEL_NAME}(
        int *memory, const unsigned int *code, const int *starts, const int *lengths,
        const int *cells, const long long *bases, const int *active,
        int *failed, unsigned int *count, unsigned long long *began,
        unsigned long long budget, unsigned int grace,
        int h, int layout, unsigned int k, unsigned int n, unsigned int m, int *trace) {{
    const unsigned int g = blockIdx.x;
    const unsigned int per_test = n * m;
    const unsigned int test = layout ? g / per_test : g % k;
    if (!active[test]) return;
    const unsigned long long now = progress_now();
    unsigned long long first = atomicCAS(&began[test], 0ull, now);
    if (first == 0ull) first = now;
    const unsigned long long limit = first + budget;
    unsigned int spins = 0;
    int local_instance, thread;
    progress_slot(h, layout ? g % per_test : g / k, n, m, &local_instance, &thread);
    const int instance = (int)(test * m) + local_instance;
    if (trace) trace[g] = instance * (int)n + thread;
    int *const mem = memory + bases[test] + (long long)local_instance * cells[test];
    const unsigned int *const words = code + starts[test * n + thread];
    const unsigned int length = (unsigned int)lengths[test * n + thread];
    unsigned int pc = 0;
    while (pc < length) {{
        const unsigned int word = words[pc];
        int *const cell = &mem[{_FIELDS["loc"]}];
        const int old = {_FIELDS["xchg"]} ? AXB_XCHG(cell, (int){_FIELDS["val"]}) : AXB_LOAD(cell);
        const unsigned int target = {_FIELDS["target"]};
        if (old == (int){_FIELDS["cmp"]}) {{
            if (target <= pc && ++spins > grace && progress_now() > limit) {{
                if (atomicExch(&failed[instance], 1) == 0) atomicAdd(&count[test], 1u);
                return;
            }}
            pc = target;
        }} else {{
            pc += 1;
        }}
    }}
}}
"""


def module() -> str:
    """The interpreter's translation unit: the generated kernels' prelude
    (atomics, timer, mapping, `progress_set_deadline`), then the kernel."""
    return PRELUDE + KERNEL
