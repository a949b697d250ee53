"""Barrier phases (docs/semantics.md section 15): a read of Workgroup memory
whose variable no other invocation of the workgroup may write before its
next barrier arrival is a quiet step. `phases.PhaseWrites` on small kernels;
on random GLSL kernels whose workgroups share results through Workgroup
memory (leaders, every invocation's own slot, loops and calls with
barriers), the reduced verdicts (Python and compiled, same states) are the
unreduced checker's and every lasso replays on the unreduced system
(test_kernel_quiet._agree); a phase analysis that claims too little is
caught by that comparison."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernel_helpers import compile_glsl, system
from test_kernel_quiet import BOUND, _agree, _piet
from test_kernel_reduce import QUERIES

from progress.core import reduce
from progress.core.analyze import check_system
from progress.front.spirv.kernel import KernelSystem

PHASED = """#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Data { uint out_[4]; };
shared uint result;
shared uint other;
void publish(uint v) { result = v; barrier(); }
void main() {
    uint lid = gl_LocalInvocationID.x;
    if (lid == 0u) { other = 3u; }
    publish(lid + 1u);
    out_[lid] = result;
    for (uint i = 0u; i < 2u; i++) {
        uint seen = other;
        barrier();
        other = seen + 1u;
        barrier();
    }
}
"""


def _walk(kernel: KernelSystem, states: int = 400) -> None:
    """Explore a little, so that the kernel numbers its local states."""
    todo, seen = [kernel.initial], {kernel.initial}
    while todo and len(seen) < states:
        for _, after in kernel.successors(todo.pop()):
            if after not in seen:
                seen.add(after)
                todo.append(after)


def test_pending_workgroup_writes_end_at_the_next_barrier(tmp_path):
    """At the start every invocation may still write `result` (in the call,
    before its barrier) and `other`; after `publish`'s barrier, the reads of
    `result` and of `other` have no write of them before the next barrier
    (the loop's write of `other` comes after one); a waiting or returned
    invocation writes nothing."""
    kernel = system(compile_glsl(PHASED, tmp_path / "phased"), 1)
    _walk(kernel)
    bit = {name.split(":")[1]: kernel.phase_bit(at) for name, at in kernel.layout.names if name.startswith("wg0:")}
    assert bit["result"] and bit["other"] and bit["result"] != bit["other"]
    assert all(kernel.phase_bit(at) == 0 for name, at in kernel.layout.names if not name.startswith("wg"))
    first = kernel.initial[kernel.n_cells]
    assert kernel.phase_writes(first) == bit["result"] | bit["other"]
    by_line: dict[str, set[int]] = {}
    for local in range(kernel.local_count()):
        status = kernel.local_status(local)
        if status in (1, 3):  # WAITING, RETURNED
            assert kernel.phase_writes(local) == 0
            continue
        text = kernel._instruction(local).source.text.strip()
        by_line.setdefault(text, set()).add(kernel.phase_writes(local))
    assert by_line["out_[lid] = result;"] == {0}
    assert by_line["uint seen = other;"] == {0}
    assert by_line["other = seen + 1u;"] == {bit["other"]}


def test_phase_reads_fold_the_piet_scan_and_keep_its_verdicts(monkeypatch):
    """The piet-gpu-shaped scan at 2x2: every invocation reads the tile, the
    partial sums and the flag its leader shared before a barrier; with phase
    reads its normal forms are fewer, the verdicts the unreduced ones."""
    plain, phased = _agree(lambda: _piet(2, 2))
    monkeypatch.setattr(reduce, "PHASES", False)
    without = check_system(_piet(2, 2), QUERIES, max_states=BOUND, reduce=True, engine="compiled")
    assert phased < without.verdicts[0].states < plain


# The follower counts itself in, then reads `ready`; the leader waits for the
# count and then writes `ready`. Reading 1 sends the follower into a spin
# nobody ends: every fair model fails. The read must not be folded while the
# leader may still write `ready`.
LATE_READY = """#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Data { uint count; uint flag; };
shared uint ready;
void main() {
    if (gl_LocalInvocationID.x == 0u) {
        while (atomicAdd(count, 0u) == 0u) { }
        ready = 1u;
    } else {
        atomicAdd(count, 1u);
        if (ready == 1u) { while (atomicAdd(flag, 0u) == 0u) { } }
    }
    barrier();
}
"""


def test_a_phase_analysis_that_misses_a_write_is_caught(tmp_path, monkeypatch):
    """With `phase_writes` claiming that nobody writes (a wrong analysis), the
    follower's read of `ready` is folded before the leader's write and the
    spin is never reached: the reduced verdicts pass where the unreduced
    checker fails. With the real analysis they agree."""
    module = compile_glsl(LATE_READY, tmp_path / "late_ready")
    plain = check_system(system(module, 1), QUERIES, max_states=BOUND)
    assert not any(v.terminates for v in plain.verdicts)
    _agree(lambda: system(module, 1))
    monkeypatch.setattr(KernelSystem, "phase_writes", lambda self, local: 0)
    for engine in ("python", "compiled"):
        wrong = check_system(system(module, 1), QUERIES, max_states=BOUND, reduce=True, engine=engine)
        assert [v.terminates for v in wrong.verdicts] != [v.terminates for v in plain.verdicts], engine


# --- random kernels sharing through Workgroup memory -------------------------

LEADER = (
    "result = work[me] + 1u;",
    "result = atomicAdd(count, 1u);",
    "atomicExchange(flag, 1u);",
    "while (atomicAdd(flag, 0u) == 0u) { }",
    "part[2] = 5u;",
)
EVERYONE = (
    "barrier();",
    "barrier();",
    "part[lid] = work[me];",
    "work[me] = result + part[0];",
    "if (result == 0u) { return; }",
    "if (part[1] == 1u) { atomicAdd(count, 1u); }",
    "while (result == 0u) { barrier(); }",
    "for (uint i = 0u; i < 2u; i++) { uint s = result; barrier(); if (lid == 0u) { result = s + 1u; } barrier(); }",
    "publish(lid);",
    "while (atomicAdd(count, 0u) < 1u) { }",
)


@st.composite
def kernels(draw) -> tuple[str, int]:
    local = draw(st.integers(2, 3))
    groups = draw(st.integers(1, 2))
    lead = "\n        ".join(draw(st.lists(st.sampled_from(LEADER), min_size=1, max_size=2)))
    rest = "\n    ".join(draw(st.lists(st.sampled_from(EVERYONE), min_size=1, max_size=4)))
    source = f"""#version 450
layout(local_size_x = {local}) in;
layout(std430, binding = 0) buffer Data {{ uint flag; uint count; uint work[8]; }};
shared uint result;
shared uint part[3];
void publish(uint v) {{ if (gl_LocalInvocationID.x == 0u) {{ result = v; }} barrier(); }}
void main() {{
    uint me = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationID.x;
    if (lid == 0u) {{
        {lead}
    }}
    barrier();
    {rest}
}}
"""
    return source, groups


def _random(tmp_path_factory, case):
    source, groups = case
    module = compile_glsl(source, tmp_path_factory.mktemp("phases") / "k")
    _agree(lambda: system(module, groups))


@settings(max_examples=8, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(kernels())
def test_random_phase_kernels_agree(tmp_path_factory, case):
    _random(tmp_path_factory, case)


@pytest.mark.long
@settings(max_examples=120, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(kernels())
def test_many_random_phase_kernels_agree(tmp_path_factory, case):
    _random(tmp_path_factory, case)


def test_the_first_compiled_exploration_is_a_deep_probe(monkeypatch):
    """`kernel_reduce.SCOUT`: the first compiled exploration stops at that many
    normal forms and the guess is remade from what it met; the exploration
    that follows gives the unreduced verdicts (a state bound of the user's
    below SCOUT stays the user's: inconclusive)."""
    from progress.core import kernel_reduce

    monkeypatch.setattr(kernel_reduce, "SCOUT", 20)
    bounds = []
    original = kernel_reduce.explore_kernel

    def spy(system_, bound, *args, **kwargs):
        bounds.append(bound)
        return original(system_, bound, *args, **kwargs)

    monkeypatch.setattr(kernel_reduce, "explore_kernel", spy)
    plain = check_system(_piet(2, 2), QUERIES, max_states=BOUND)
    reduced = check_system(_piet(2, 2), QUERIES, max_states=BOUND, reduce=True, engine="compiled")
    assert [v.terminates for v in reduced.verdicts] == [v.terminates for v in plain.verdicts]
    assert bounds[0] == 20 and bounds[1] == BOUND and reduced.verdicts[0].states > 20
    bounds.clear()
    small = check_system(_piet(2, 2), QUERIES, max_states=10, reduce=True, engine="compiled")
    assert all(v.terminates is None for v in small.verdicts) and 20 not in bounds
