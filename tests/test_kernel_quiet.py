"""Quiet steps (docs/semantics.md section 13, `progress.core.reduce` with
`quiet`): barrier arrivals and last steps of units of started workgroups are
folded into normal forms too. Every reduced verdict is the unreduced
checker's, on random GLSL kernels full of barriers (divergent ones, leaders,
early returns), and every reduced lasso replays on the unreduced system with
F and the loop's condition recomputed there (test_kernel_reduce.validate)."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernel_helpers import LATE_SHARING, compile_glsl, system
from test_kernel_reduce import QUERIES, validate

from progress.core import reduce
from progress.core.analyze import check_system, foldable, queries_for
from progress.core.registry import all_models
from progress.models.base import STARTED

BOUND = 200_000


def _agree(kernel_of) -> tuple[int, int]:
    """The unreduced and reduced checks agree, the latter on the Python path
    and compiled (progress.core.kernel_reduce), with the same states; every
    lasso validates. Their states (unreduced, reduced)."""
    plain = check_system(kernel_of(), QUERIES, max_states=BOUND)
    states = []
    for engine in ("python", "compiled"):
        kernel = kernel_of()
        reduced = check_system(kernel, QUERIES, max_states=BOUND, reduce=True, engine=engine)
        assert [v.terminates for v in reduced.verdicts] == [v.terminates for v in plain.verdicts], engine
        for verdict in reduced.verdicts:
            if verdict.witness is not None:
                validate(kernel, verdict.witness, verdict.model, verdict.fairness)
        states.append([v.states for v in reduced.verdicts])
    assert states[0] == states[1]
    return plain.verdicts[0].states, states[0][0]


def test_builtin_models_keep_f_when_an_unfair_workgroup_is_disabled():
    """Condition R of section 13.1, exhaustively for up to 5 workgroups: for
    every enabled set e, memory m and enabled w not in F(e, m),
    F(e - {w}, m) = F(e, m); and R is what `foldable` relies on."""
    for model in all_models():
        for n in range(1, 6):
            memories = range(1 << n) if model.memory is STARTED else [model.memory.initial(n)]
            for enabled, memory in product(range(1 << n), memories):
                fair = model.fair(enabled, memory, n)
                for w in range(n):
                    if enabled >> w & 1 and not fair >> w & 1:
                        assert model.fair(enabled & ~(1 << w), memory, n) == fair, (model.name, enabled, memory, w)


def test_only_builtin_models_fold_quiet_steps(tmp_path):
    from dataclasses import replace

    module = compile_glsl(FOLLOWERS, tmp_path / "f")
    kernel = system(module, 2)
    assert foldable(kernel, QUERIES)
    model = all_models()[0]
    assert not foldable(kernel, queries_for([replace(model, name="plug-in")]))


FOLLOWERS = """#version 450
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Data { uint flag; uint out_[8]; };
void main() {
    uint me = gl_GlobalInvocationID.x;
    if (gl_LocalInvocationID.x == 0u) {
        if (gl_WorkGroupID.x == 0u) { atomicExchange(flag, 1u); }
        else { while (atomicAdd(flag, 0u) == 0u) { } }
    }
    barrier();
    out_[me] = me;
}
"""


def test_followers_arrive_and_finish_in_normal_forms(tmp_path):
    """Three followers per workgroup wait at a barrier, then write their own
    cell and return: their arrivals and last steps are quiet."""
    module = compile_glsl(FOLLOWERS, tmp_path / "followers")
    plain, reduced = _agree(lambda: system(module, 2))
    assert reduced * 10 < plain


BARRIER_LOOP = """#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Data { uint flag; };
void main() {
    atomicAdd(flag, 1u);
    while (true) { barrier(); }
}
"""


def test_quiet_steps_that_go_round_a_barrier_are_not_folded(tmp_path, monkeypatch):
    """Both invocations pass a barrier forever with nothing else: quiet steps
    would go round; the check falls back to section 11's private steps."""
    module = compile_glsl(BARRIER_LOOP, tmp_path / "loop")
    modes = []
    original = reduce._reduce_system

    def spy(system_, budget, seen, quiet):
        modes.append(quiet)
        return original(system_, budget, seen, quiet)

    monkeypatch.setattr(reduce, "_reduce_system", spy)
    _agree(lambda: system(module, 1))
    assert modes == [True, False] * 2  # the compiled explorer gives up too, to the same fallback


DOOMED = """#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Data { uint flag; uint done; };
void main() {
    if (gl_WorkGroupID.x == 0u) {
        if (gl_LocalInvocationID.x == 0u) { atomicAdd(done, 1u); return; }
        atomicAdd(done, 1u);
        barrier();
        atomicExchange(flag, 1u);
    } else {
        while (atomicAdd(flag, 0u) == 0u) { }
    }
}
"""


def test_a_workgroup_stuck_at_a_barrier_it_cannot_pass(tmp_path):
    """Workgroup 0's invocation 1 arrives at a barrier that invocation 0 has
    returned from: folding that arrival disables workgroup 0 at once, which
    changes who HSA calls fair; section 13.3 shows the verdicts do not move."""
    module = compile_glsl(DOOMED, tmp_path / "doomed")
    _agree(lambda: system(module, 2))


# --- random kernels with barriers ---------------------------------------------

ACTIONS = (
    "barrier();",
    "barrier();",
    "work[me] = work[me] + 1u;",
    "atomicExchange(flag, 1u);",
    "while (atomicAdd(flag, 0u) == 0u) { }",
    "atomicAdd(count, 1u);",
    "while (atomicAdd(count, 0u) < 2u) { }",
    "if (atomicExchange(lock, 1u) == 0u) { work[me] = 7u; atomicExchange(lock, 0u); }",
    "shared_cell[gl_LocalInvocationID.x] = work[me];",
    "if (shared_cell[0] == 0u) { return; }",
    "if (atomicAdd(count, 0u) == 1u) { return; }",
    "for (uint i = 0u; i < 2u; i++) { barrier(); work[me] = work[me] ^ i; }",
    "while (atomicAdd(flag, 0u) == 0u) { barrier(); }",
)


@st.composite
def kernels(draw) -> tuple[str, int]:
    local = draw(st.integers(1, 3))
    groups = draw(st.integers(1, 2 if local > 1 else 3))
    bodies = []
    for _role in ("leader", "others", "after"):
        picks = draw(st.lists(st.sampled_from(ACTIONS), min_size=0 if _role == "after" else 1, max_size=3))
        bodies.append("\n    ".join(picks))
    source = f"""#version 450
layout(local_size_x = {local}) in;
layout(std430, binding = 0) buffer Data {{ uint flag; uint count; uint lock; uint work[8]; }};
shared uint shared_cell[3];
void main() {{
    uint me = gl_GlobalInvocationID.x;
    if (gl_LocalInvocationID.x == 0u) {{
    {bodies[0]}
    }} else {{
    {bodies[1]}
    }}
    {bodies[2]}
}}
"""
    return source, groups


def _random(tmp_path_factory, case):
    source, groups = case
    module = compile_glsl(source, tmp_path_factory.mktemp("quiet") / "k")
    _agree(lambda: system(module, groups))


@settings(max_examples=12, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(kernels())
def test_random_barrier_kernels_agree(tmp_path_factory, case):
    _random(tmp_path_factory, case)


@pytest.mark.long
@settings(max_examples=150, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(kernels())
def test_many_random_barrier_kernels_agree(tmp_path_factory, case):
    _random(tmp_path_factory, case)


PIET = Path(__file__).resolve().parents[1] / "benchmarks" / "kernels" / "piet_fallback_scan.comp"


def _piet(workgroups: int, local: int):
    from progress.cli.kernel import given_settings, kernel_system

    return kernel_system(PIET, given_settings(str(workgroups), [], [], None, None, local_size=str(local)))


def test_the_piet_shaped_fallback_scan_terminates_under_every_model():
    """Its header reasons that no run is infinite and no barrier is missed:
    all 11 verdicts pass (2 workgroups of 2 invocations that both help)."""
    plain, reduced = _agree(lambda: _piet(2, 2))
    report = check_system(_piet(2, 2), QUERIES, max_states=BOUND, reduce=True)
    assert all(v.terminates for v in report.verdicts) and reduced < plain


def test_the_compiled_explorer_drops_a_broken_ownership_guess(tmp_path, monkeypatch):
    """A probe too small to see the late cross writes guesses each cell owned
    by its first writer; the compiled exploration meets the writes (BROKEN),
    the guess is remade and explored again: the verdicts stay the unreduced ones."""
    from progress.core import kernel_jit, kernel_reduce

    module = compile_glsl(LATE_SHARING, tmp_path / "late")
    monkeypatch.setattr(reduce, "PROBE", 3)
    outcomes = []
    original = kernel_reduce.explore_kernel

    def spy(*args, **kwargs):
        try:
            graph = original(*args, **kwargs)
        except kernel_jit.Broken:
            outcomes.append("broken")
            raise
        outcomes.append("clean")
        return graph

    monkeypatch.setattr(kernel_reduce, "explore_kernel", spy)
    plain = check_system(system(module, 2), QUERIES, max_states=BOUND)
    kernel = system(module, 2)
    reduced = check_system(kernel, QUERIES, max_states=BOUND, reduce=True, engine="compiled")
    assert [v.terminates for v in reduced.verdicts] == [v.terminates for v in plain.verdicts]
    for verdict in reduced.verdicts:
        if verdict.witness is not None:
            validate(kernel, verdict.witness, verdict.model, verdict.fairness)
    assert outcomes[0] == "broken" and outcomes[-1] == "clean"
