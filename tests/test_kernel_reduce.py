"""Partial-order reduction of kernels as normal forms (docs/semantics.md
section 11, `progress.core.reduce`): every reduced verdict is the unreduced
checker's, on litmus/kernels/ and on random GLSL kernels compiled by glslang,
and every reduced lasso is one of the unreduced system, replayed on its own
transitions with F and the loop's fairness condition recomputed here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import agreement_settings, long_twin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from in_process import progress
from kernel_helpers import LATE_SHARING, compile_glsl, replay, system

from progress.cli.kernel import given_settings, kernel_system
from progress.core import reduce
from progress.core.analyze import check_system, queries_for
from progress.core.registry import all_models, find_model
from progress.core.witness import Lasso

QUERIES = queries_for(all_models())
KERNELS = Path(__file__).parent.parent / "litmus" / "kernels"
BOUND = 200_000


def _check(kernel, reduced: bool):
    return check_system(kernel, QUERIES, max_states=BOUND, reduce=reduced)


def validate(kernel, lasso: Lasso, model_name: str, fairness: str) -> None:
    """`lasso` replays on `kernel` (kernel_helpers.replay), F at each step is
    the model's F of the workgroups enabled and started there, lifted to
    their enabled invocations, and the loop meets the weak or strong condition
    of section 4 with that F on the unreduced system's own steps."""
    replay(kernel, lasso)
    model = find_model(model_name)
    groups = kernel.groups
    n = max(groups) + 1
    state, started = kernel.initial, 0
    states, fair = [], []
    for step in lasso.steps:
        moves = dict(kernel.successors(state))
        enabled_groups = 0
        for unit in moves:
            enabled_groups |= 1 << groups[unit]
        memory = started if model.memory.name == "started" else None
        f = model.fair(enabled_groups, memory, n)
        units = frozenset(u for u in moves if f >> groups[u] & 1)
        assert set(step.fair) == units, "F differs from the model's"
        states.append(state)
        fair.append((units, moves))
        started |= 1 << groups[step.thread]
        state = moves[step.thread]
    if lasso.kind == "deadlock":
        return
    loop = range(lasso.loop_start, len(lasso.steps))
    inside = {states[i] for i in loop}
    stepping = {lasso.steps[i].thread for i in loop}
    if fairness == "weak":
        always = frozenset.intersection(*(fair[i][0] for i in loop))
        assert always <= stepping, f"{sorted(always - stepping)} fair all along the loop never step"
    elif fairness == "strong":
        for i in loop:
            units, moves = fair[i]
            assert all(moves[u] in inside for u in units), "a fair step leaves the loop"


def _agree(kernel_of) -> tuple[int, int]:
    plain, reduced = _check(kernel_of(), False), _check(kernel := kernel_of(), True)
    assert [v.terminates for v in reduced.verdicts] == [v.terminates for v in plain.verdicts]
    for verdict in reduced.verdicts:
        if verdict.witness is not None:
            validate(kernel, verdict.witness, verdict.model, verdict.fairness)
    return plain.verdicts[0].states, reduced.verdicts[0].states


SMALL = sorted(p for p in KERNELS.iterdir() if not p.name.startswith("lookback_"))


@pytest.mark.long
@pytest.mark.parametrize("path", SMALL, ids=lambda p: p.name)
def test_litmus_kernels_agree(path):
    _agree(lambda: kernel_system(path, given_settings(None, (), (), None, False)))


def test_lookback_fallback_agrees_in_fewer_states():
    path = KERNELS / "lookback_fallback.comp"
    plain, reduced = _agree(lambda: kernel_system(path, given_settings(None, (), (), None, False)))
    assert reduced < plain


PRIVATE_WORK = """#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Flag { uint flag; uint work[8]; };
void main() {
    uint me = gl_GlobalInvocationID.x;
    for (uint i = 0u; i < 3u; i++) {
        work[me] = work[me] + i;
    }
    if (me == 0u) {
        atomicExchange(flag, 1u);
    } else {
        while (atomicAdd(flag, 0u) == 0u) { }
    }
}
"""


def test_private_loops_fold(tmp_path):
    module = compile_glsl(PRIVATE_WORK, tmp_path / "private")
    plain, reduced = _agree(lambda: system(module, 2))
    assert reduced * 4 < plain


PRIVATE_SPIN = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Flag { uint flag; uint mine[2]; };
void main() {
    uint me = gl_WorkGroupID.x;
    atomicAdd(flag, 0u);
    if (me == 0u) {
        while (true) { mine[0] = mine[0] ^ 1u; }
    }
    atomicExchange(flag, 1u);
}
"""


def test_a_private_round_is_a_self_loop_of_the_original(tmp_path):
    """Workgroup 0 flips its own cell forever: a round of private steps,
    folded into one state with a self-loop; its lassos expand the round."""
    module = compile_glsl(PRIVATE_SPIN, tmp_path / "spin")
    _agree(lambda: system(module, 2))


def test_a_broken_ownership_guess_is_dropped(tmp_path, monkeypatch):
    """A probe too small to see the late cross writes guesses each cell owned
    by its first writer; the exploration finds the writes and starts again."""
    module = compile_glsl(LATE_SHARING, tmp_path / "late")
    monkeypatch.setattr(reduce, "PROBE", 3)
    guesses = []
    original = reduce.Reduced.__init__

    def spy(self, kernel, ownership, accesses, quiet=False):
        guesses.append(ownership)
        original(self, kernel, ownership, accesses, quiet)

    monkeypatch.setattr(reduce.Reduced, "__init__", spy)
    kernel = system(module, 2)
    _agree(lambda: system(module, 2))
    cells = {at for name, at in kernel.layout.names if name.startswith("cell")}
    assert len(cells) == 2 and len(guesses) > 2
    assert cells <= guesses[0].owner.keys() | guesses[0].readonly
    assert not cells & (guesses[-1].owner.keys() | guesses[-1].readonly)


# --- random kernels -----------------------------------------------------------

ACTIONS = (
    "work[me] = work[me] + 1u;",
    "for (uint i = 0u; i < 2u; i++) { work[me] = work[me] ^ i; }",
    "atomicExchange(flag, 1u);",
    "while (atomicAdd(flag, 0u) == 0u) { }",
    "atomicAdd(count, 1u);",
    "while (atomicAdd(count, 0u) < 2u) { }",
    "if (atomicExchange(lock, 1u) == 0u) { work[me] = 7u; atomicExchange(lock, 0u); }",
    "shared_cell[gl_LocalInvocationID.x] = work[me];",
    "barrier();",
    "work[0] = work[1];",
    "while (work[me] < 3u) { work[me] = work[me] + 1u; }",
)


@st.composite
def kernels(draw) -> tuple[str, int]:
    local = draw(st.integers(1, 2))
    groups = draw(st.integers(1, 3 - local + 1))
    bodies = []
    for _role in ("leader", "others"):
        picks = draw(st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=3))
        bodies.append("\n        ".join(picks))
    source = f"""#version 450
layout(local_size_x = {local}) in;
layout(std430, binding = 0) buffer Data {{ uint flag; uint count; uint lock; uint work[8]; }};
shared uint shared_cell[2];
void main() {{
    uint me = gl_GlobalInvocationID.x;
    if (me == 0u) {{
        {bodies[0]}
    }} else {{
        {bodies[1]}
    }}
}}
"""
    return source, groups


def _random_kernels_agree(tmp_path_factory, case):
    source, groups = case
    module = compile_glsl(source, tmp_path_factory.mktemp("random") / "k")
    _agree(lambda: system(module, groups))


test_random_kernels_agree, test_random_kernels_agree_in_full = long_twin(
    _random_kernels_agree,
    (kernels(),),
    suite=10,
    full=25,
    **agreement_settings(),
)

TWO_LOOPS = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint a; uint b; uint mine[2]; };
void main() {
    uint me = gl_WorkGroupID.x;
    if (me == 0u) {
        while (true) {
            for (uint i = 0u; i < 2u; i++) { mine[0] = mine[0] ^ 1u; }
            atomicAdd(a, 0u);
        }
    } else {
        while (true) { atomicAdd(a, 0u); atomicAdd(b, 0u); }
    }
}
"""


def test_strong_lassos_are_closed_at_folded_states(tmp_path):
    """Workgroup 1 is fair and moves while workgroup 0 is between folded
    private steps: the strong loop must take its steps from those states too."""
    module = compile_glsl(TWO_LOOPS, tmp_path / "loops")
    _agree(lambda: system(module, 2))


def test_check_reduce_on_the_command_line():
    """`progress check --reduce`: the verdicts and exit status of the unreduced check, in fewer states."""
    path = str(KERNELS / "lookback_fallback.comp")
    runs = [
        progress("check", path, "--format", "json", *extra)  # in this process (tests/in_process.py)
        for extra in ((), ("--reduce",))
    ]
    assert [r.returncode for r in runs] == [0, 0]
    plain, reduced = (json.loads(r.stdout.splitlines()[0])["results"] for r in runs)
    assert [(v["model"], v["terminates"]) for v in plain] == [(v["model"], v["terminates"]) for v in reduced]
    assert all(b["states"] < a["states"] for a, b in zip(plain, reduced))


# --- symmetry of interchangeable invocations (section 12) ---------------------

SPIN_LOCK = """#version 450
layout(local_size_x = LOCAL) in;
layout(std430, binding = 0) buffer Lock { uint lock; uint count; };
void main() {
    while (atomicExchange(lock, 1u) == 1u) { }
    count = count + 1u;
    atomicExchange(lock, 0u);
}
"""


@pytest.mark.parametrize("groups, local", [(1, 3), (2, 2), (1, 4)])
def test_interchangeable_invocations_agree_in_fewer_states(tmp_path, groups, local):
    module = compile_glsl(SPIN_LOCK.replace("LOCAL", str(local)), tmp_path / "lock")
    kernel = system(module, groups)
    assert kernel.interchangeable() == tuple(tuple(range(g * local, (g + 1) * local)) for g in range(groups))
    plain, reduced = _agree(lambda: system(module, groups))
    assert reduced < plain


LEADER_LOCK = """#version 450
layout(local_size_x = LOCAL) in;
layout(std430, binding = 0) buffer Lock { uint lock; uint count; };
shared uint result;
void main() {
    if (gl_LocalInvocationID.x == 0u) {
        while (atomicExchange(lock, 1u) == 1u) { }
        count = count + 1u;
        result = count;
        atomicExchange(lock, 0u);
    }
    barrier();
    uint seen = result;
    if (seen == 0u) { atomicAdd(count, 100u); }
}
"""


def test_a_leader_keeps_its_place_and_the_others_are_interchangeable(tmp_path):
    """Invocation 0 reads its id to lead: its local states that can still
    read the id stay in place; once past the read, and for the others from
    the start, local states are interchangeable (section 12)."""
    module = compile_glsl(LEADER_LOCK.replace("LOCAL", "4"), tmp_path / "leader")
    kernel = system(module, 2)
    n = len(kernel.layout.initial)
    assert all(kernel.id_free(local) for local in kernel.initial[n:])  # the id is read before the first access
    plain, reduced = _agree(lambda: system(module, 2))
    assert reduced * 3 < plain


ID_LATE = SPIN_LOCK.replace("LOCAL", "2").replace("count = count + 1u;", "count = gl_LocalInvocationID.x;")


def test_an_invocation_that_will_read_its_id_stays_in_place(tmp_path):
    kernel = system(compile_glsl(ID_LATE, tmp_path / "late"), 1)
    n = len(kernel.layout.initial)
    assert not any(kernel.id_free(local) for local in kernel.initial[n:])
    state = kernel.initial
    assert kernel.canonical(state, kernel.interchangeable()) == state
    _agree(lambda: system(compile_glsl(ID_LATE, tmp_path / "late2"), 2))


SYMMETRIC_ACTIONS = (
    "atomicExchange(flag, 1u);",
    "while (atomicAdd(flag, 0u) == 0u) { }",
    "atomicAdd(count, 1u);",
    "while (atomicAdd(count, 0u) < 2u) { }",
    "while (atomicExchange(lock, 1u) == 1u) { } count = count + 1u; atomicExchange(lock, 0u);",
    "if (atomicExchange(lock, 1u) == 0u) { shared_cell[0] = 1u; atomicExchange(lock, 0u); }",
    "barrier();",
    "shared_cell[1] = shared_cell[0] + 1u;",
    "while (shared_cell[0] == 0u) { }",
    "if (gl_LocalInvocationID.x == 0u) { while (atomicAdd(flag, 0u) == 0u) { } } else { atomicExchange(flag, 1u); }",
    "if (gl_LocalInvocationID.x == 1u) { atomicExchange(flag, 0u); }",
    "shared_cell[gl_LocalInvocationID.x & 1u] = 1u;",
)


@st.composite
def symmetric_kernels(draw) -> tuple[str, int]:
    local = draw(st.integers(2, 3))
    groups = draw(st.integers(1, 2 if local == 2 else 1))
    body = "\n    ".join(draw(st.lists(st.sampled_from(SYMMETRIC_ACTIONS), min_size=1, max_size=3)))
    source = f"""#version 450
layout(local_size_x = {local}) in;
layout(std430, binding = 0) buffer Data {{ uint flag; uint count; uint lock; }};
shared uint shared_cell[2];
void main() {{
    {body}
}}
"""
    return source, groups


def _random_symmetric_kernels_agree(tmp_path_factory, case):
    source, groups = case
    module = compile_glsl(source, tmp_path_factory.mktemp("symmetric") / "k")
    _agree(lambda: system(module, groups))


test_random_symmetric_kernels_agree, test_random_symmetric_kernels_agree_in_full = long_twin(
    _random_symmetric_kernels_agree,
    (symmetric_kernels(),),
    suite=12,
    full=30,
    **agreement_settings(),
)

TOGGLE = """#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Data { uint x; };
void main() {
    while (true) {
        atomicExchange(x, 1u);
        atomicExchange(x, 0u);
    }
}
"""


def test_a_cycle_with_an_inexact_edge_is_checked_on_the_original(tmp_path):
    """Two invocations that keep swapping places in the sorted representative:
    edges inside the quotient's cycle carry a permutation, so the quotient
    cannot say which invocation steps (section 9.3): it is not used."""
    from progress.core.analyze import _check_quotient
    from progress.core.lts import Budget, explore_system
    from progress.core.system import Grouping
    from progress.core.unit_symmetry import Quotient

    module = compile_glsl(TOGGLE, tmp_path / "toggle")
    kernel = system(module, 1)
    quotient = Quotient(kernel, kernel.interchangeable())
    assert not quotient.exact_cycles(explore_system(quotient))
    assert _check_quotient(kernel, QUERIES, Budget(), True, Grouping(kernel.groups), None) is None
    _agree(lambda: system(module, 1))


@pytest.mark.parametrize("source, groups", [(TWO_LOOPS, 2), (SPIN_LOCK.replace("LOCAL", "3"), 1), (PRIVATE_WORK, 2)])
def test_reduced_reports_are_the_same_bytes_twice(tmp_path, source, groups):
    from progress.report.render import report_json

    module = compile_glsl(source, tmp_path / "k")
    texts = [report_json(check_system(system(module, groups), QUERIES, reduce=True), "k.comp") for _ in range(2)]
    assert texts[0] == texts[1]


FIRST_COMER = """#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Data { uint count; uint other; };
void main() {
    uint t = atomicAdd(count, 1u);
    atomicAdd(other, 0u);
    if (gl_LocalInvocationID.x == 1u && t == 0u) {
        while (true) { }
    }
}
"""


def test_an_id_read_after_a_step_keeps_the_invocation_in_place(tmp_path):
    """Only invocation 1 coming first loops forever: moving its local state
    (which will read the id) to invocation 0 would lose the loop."""
    module = compile_glsl(FIRST_COMER, tmp_path / "first")
    report = check_system(system(module, 1), QUERIES, reduce=True)
    assert not any(v.terminates for v in report.verdicts)
    _agree(lambda: system(module, 1))


def test_the_probe_keeps_to_the_budget(tmp_path):
    """The probe explores the unreduced system: the check's state bound and
    time limit hold there too (a 512-invocation launch must not run past them)."""
    from progress.core.lts import Budget
    from progress.errors import Inconclusive

    module = compile_glsl(SPIN_LOCK.replace("LOCAL", "2"), tmp_path / "lock")
    with pytest.raises(Inconclusive, match="state bound of 10"):
        reduce.probe(system(module, 4), budget=Budget(10))
    report = check_system(system(module, 4), QUERIES, max_states=10, reduce=True)
    assert all(v.terminates is None for v in report.verdicts)


@settings(max_examples=15, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(symmetric_kernels())
def test_the_compiled_quotient_is_the_python_one(tmp_path_factory, monkeypatch, case):
    """Section 12's quotient explored compiled (progress.core.kernel_reduce):
    the same verdicts and states as the Python quotient, lassos valid on
    the unreduced system. (Section 14's workgroup permutations, which the
    compiled path adds, are off here: tests/test_kernel_groups.py.)"""
    from progress.core import kernel_reduce

    monkeypatch.setattr(kernel_reduce, "decide_groups", lambda *args: None)
    source, groups = case
    module = compile_glsl(source, tmp_path_factory.mktemp("compiled_symmetric") / "k")
    python = check_system(system(module, groups), QUERIES, max_states=BOUND, reduce=True, engine="python")
    kernel = system(module, groups)
    compiled = check_system(kernel, QUERIES, max_states=BOUND, reduce=True, engine="compiled")
    outcome = [(v.terminates, v.states, v.transitions) for v in compiled.verdicts]
    assert outcome == [(v.terminates, v.states, v.transitions) for v in python.verdicts]
    for verdict in compiled.verdicts:
        if verdict.witness is not None:
            validate(kernel, verdict.witness, verdict.model, verdict.fairness)


def test_the_compiled_quotient_gives_back_a_cycle_with_an_inexact_edge(tmp_path):
    """The compiled quotient marks the toggling invocations' edges inexact,
    finds one inside an SCC, and gives the check back (None), as the Python
    quotient does; one that merges nothing gives it back too."""
    from progress.core.kernel_decide import model_of
    from progress.core.kernel_reduce import decide_quotient
    from progress.core.lts import Budget

    asks = [(model_of(q.model), "weak" if q.fairness == "none" else q.fairness) for q in QUERIES]
    toggle = system(compile_glsl(TOGGLE, tmp_path / "toggle"), 1)
    assert decide_quotient(toggle, Budget(), asks, True) is None
    spin = system(compile_glsl(SPIN_LOCK.replace("LOCAL", "2"), tmp_path / "spin"), 1)
    found = decide_quotient(spin, Budget(), asks, True)
    assert found is not None and len(found[1]) == len(QUERIES)
