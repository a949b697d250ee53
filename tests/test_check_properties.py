"""Property tests: the checker against the brute-force oracle in tests/brute.py.

Random programs have 2-4 threads of 1-3 instructions, up to 3 locations,
values 0..2, optional `init` lines and `end` targets; to reach interesting
LTSs more often they are mixed with mutated published tests and with programs
of flag stores and spin-waits. They are checked both as built and after a
round trip through `.axb` text.

Determinism: every test here uses `derandomize=True`, so hypothesis draws the
same examples on every run (no example database is needed for CI to be
reproducible); `deadline=None` because a first call may pay for imports.
"""

from __future__ import annotations

import random
from functools import lru_cache
from types import SimpleNamespace

import brute
import networkx as nx
from conftest import OOPSLA, long_twin
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from progress.core.analyze import check_program, queries_for
from progress.core.canonical import canonical_hash
from progress.core.graph import sccs
from progress.core.program import Instr, Program
from progress.core.registry import all_models
from progress.front.axb.parse import parse_program

LOCATIONS = ("x", "y", "z")
LIMIT = 400  # largest brute-force LTS (per model) we accept

SETTINGS = dict(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def instructions(locs, index: int, length: int):
    """Any instruction, or (to reach interesting LTSs more often) an idiom:
    a store, a spin-wait, or a test-and-set spin."""
    loc, value = st.sampled_from(locs), st.integers(0, 2)
    anything = st.builds(Instr, loc, value, st.integers(0, length), st.booleans(), value)
    store = st.builds(lambda at, v: Instr(at, 0, index + 1, True, v), loc, value)
    spin = st.builds(lambda at, c: Instr(at, c, index, False, 0), loc, value)
    swap_spin = st.builds(lambda at, c, v: Instr(at, c, index, True, v), loc, value, value)
    return st.one_of(anything, store, spin, swap_spin)


@st.composite
def programs(draw, max_threads: int = 4, max_length: int = 3) -> Program:
    n_locs = draw(st.integers(1, 3))
    locs = LOCATIONS[:n_locs]
    n_threads = draw(st.integers(2, max_threads))
    threads = []
    for _ in range(n_threads):
        length = draw(st.integers(1, max_length))
        threads.append(tuple(draw(instructions(locs, index, length)) for index in range(length)))
    init_locs = draw(st.sets(st.sampled_from(locs)))
    init = tuple(sorted((loc, draw(st.integers(0, 2))) for loc in init_locs))
    return Program("random", tuple(threads), init)


@st.composite
def handshakes(draw) -> Program:
    """Threads of flag stores and spin-waits: id-dependent starvation, often."""
    threads = []
    for _ in range(draw(st.integers(2, 4))):
        length = draw(st.integers(1, 3))
        threads.append(
            tuple(
                Instr(draw(st.sampled_from(LOCATIONS)), 0, i + 1, True, 1)
                if draw(st.booleans())
                else Instr(draw(st.sampled_from(LOCATIONS)), 0, i, False, 0)
                for i in range(length)
            )
        )
    return Program("handshake", tuple(threads))


@lru_cache(maxsize=1)
def suite() -> tuple[Program, ...]:
    """The published tests (small, and rich in interesting cycles)."""
    files = sorted(OOPSLA.rglob("*.axb"))
    return tuple(parse_program(f.read_text(), str(f)) for f in files)


@st.composite
def mutants(draw) -> Program:
    """A published test with one instruction replaced and maybe a thread appended."""
    base = draw(st.sampled_from(suite()))
    threads = [list(t) for t in base.threads]
    locs = tuple(base.locations) + ("z",)
    t = draw(st.integers(0, len(threads) - 1))
    i = draw(st.integers(0, len(threads[t]) - 1))
    threads[t][i] = draw(instructions(locs, i, len(threads[t])))
    if len(threads) < 4 and draw(st.booleans()):
        length = draw(st.integers(1, 2))
        threads.append([draw(instructions(locs, j, length)) for j in range(length)])
    return Program("mutant", tuple(tuple(t) for t in threads))


def brute_verdicts(program: Program) -> dict:
    try:
        return brute.verdicts(program, LIMIT)
    except brute.TooBig:
        assume(False)


def checker_verdicts(program: Program, report=None) -> dict:
    report = report or check_program(program, queries_for(all_models()))
    return {(v.model, v.fairness): v.terminates for v in report.verdicts}


def _same_verdicts_as_brute_force(program):
    expected = brute_verdicts(program)
    _describe(expected)
    assert checker_verdicts(program) == expected
    reparsed = parse_program(program.to_axb(), "<random>")
    assert reparsed == program
    assert checker_verdicts(reparsed) == expected


test_same_verdicts_as_brute_force, test_same_verdicts_as_brute_force_in_full = long_twin(
    _same_verdicts_as_brute_force, (st.one_of(programs(), mutants(), handshakes()),), 75, 300, **SETTINGS
)


def _describe(verdicts: dict) -> None:
    """Label the example for --hypothesis-show-statistics: which verdicts differ."""
    if verdicts[("fair", "strong")] and not verdicts[("fair", "weak")]:
        event("livelock: fair strong passes, fair weak fails")
    if verdicts[("fair", "weak")] and not verdicts[("HSA", "weak")]:
        event("fair weak passes, HSA weak fails")
    if verdicts[("LOBE", "weak")] and not verdicts[("HSA+OBE", "weak")]:
        event("LOBE weak passes, HSA+OBE weak fails")
    if verdicts[("OBE", "strong")] != verdicts[("HSA", "strong")]:
        event("OBE and HSA differ")
    if all(verdicts.values()):
        event("terminates under every model")


@settings(max_examples=80, **SETTINGS)
@given(st.one_of(programs(max_threads=3, max_length=2), st.sampled_from(suite())))
def test_whole_components_suffice(program):
    """docs/semantics.md section 4's claims behind the oracle, checked by trying every subset."""
    for model in ("unfair", "HSA", "OBE", "fair"):
        try:
            lts = brute.explore(program, model, limit=11)
        except brute.TooBig:
            continue
        assert brute.weak_by_subsets(lts) == (brute.weak_witness(lts) is not None)
        assert brute.strong_by_subsets(lts) == (brute.strong_witness(lts) is not None)


def test_whole_components_suffice_on_the_suite():
    """The same claims on every published test whose LTS has at most 10 states."""
    outcomes = set()
    for program in suite():
        for model in brute.MODELS:
            try:
                lts = brute.explore(program, model, limit=10)
            except brute.TooBig:
                continue
            weak, strong = brute.weak_witness(lts) is not None, brute.strong_witness(lts) is not None
            assert brute.weak_by_subsets(lts) == weak, (program.name, model)
            assert brute.strong_by_subsets(lts) == strong, (program.name, model)
            outcomes.add((weak, strong))
    assert outcomes == {(True, True), (True, False), (False, False)}


def _monotone(verdicts: dict, models) -> None:
    for fairness in ("weak", "strong"):
        for model in models:
            if not model.has_fairness:
                continue
            if verdicts[(model.name, "weak")]:
                assert verdicts[(model.name, "strong")], f"{model.name}: weak pass but strong fail"
            for lower in model.below:
                key = (lower, "none") if (lower, "none") in verdicts else (lower, fairness)
                if verdicts[key]:
                    assert verdicts[(model.name, fairness)], f"{lower} passes but {model.name} {fairness} fails"


def _monotone_in_fairness(program):
    models = all_models()
    report = check_program(program, queries_for(models), max_states=5000)
    assume(all(v.terminates is not None for v in report.verdicts))
    _monotone(checker_verdicts(program, report), models)


test_monotone_in_fairness, test_monotone_in_fairness_in_full = long_twin(
    _monotone_in_fairness, (st.one_of(programs(), mutants()),), 50, 200, **SETTINGS
)


def _renaming_locations_changes_nothing(program, rng):
    names = ["a", "b", "c", "loc_1", "q9"]
    rng.shuffle(names)
    rename = dict(zip(program.locations, names))
    renamed = Program(
        "renamed",
        tuple(tuple(Instr(rename[i.loc], i.cmp, i.target, i.xchg, i.val) for i in t) for t in program.threads),
        tuple(sorted((rename[loc], v) for loc, v in program.init)),
    )
    queries = queries_for(all_models())
    before = check_program(program, queries, max_states=5000)
    after = check_program(renamed, queries, max_states=5000)
    assert canonical_hash(program) == canonical_hash(renamed)
    assert [(v.terminates, v.states, v.transitions) for v in before.verdicts] == [
        (v.terminates, v.states, v.transitions) for v in after.verdicts
    ]


test_renaming_locations_changes_nothing, test_renaming_locations_changes_nothing_in_full = long_twin(
    _renaming_locations_changes_nothing,
    (programs(), st.randoms(use_true_random=False)),
    50,
    200,
    **SETTINGS,
)


def _every_witness_is_a_valid_lasso(program):
    report = check_program(program, queries_for(all_models()), max_states=5000)
    failing = [v for v in report.verdicts if v.terminates is False]
    assume(failing)
    for verdict in failing:
        assert verdict.witness is not None
        fairness = "weak" if verdict.fairness == "none" else verdict.fairness
        problems = brute.lasso_problems(program, verdict.model, fairness, verdict.witness)
        assert not problems, f"{verdict.model} {verdict.fairness}: {problems}\n{program.to_axb()}"


test_every_witness_is_a_valid_lasso, test_every_witness_is_a_valid_lasso_in_full = long_twin(
    _every_witness_is_a_valid_lasso, (st.one_of(programs(), mutants(), handshakes()),), 50, 200, **SETTINGS
)


def test_lasso_validator_rejects_bad_lassos():
    """The validator can fail: a mutex starvation lasso altered four ways."""
    program = parse_program(
        "thread 0\n AXB(m, 1, 0, true, 1)\n AXB(m, 0, end, true, 0)\n"
        "thread 1\n AXB(m, 1, 0, true, 1)\n AXB(m, 0, end, true, 0)\n"
    )
    report = check_program(program, queries_for([m for m in all_models() if m.name == "HSA"], ("weak",)))
    lasso = report.verdicts[0].witness
    assert brute.lasso_problems(program, "HSA", "weak", lasso) == []
    assert brute.lasso_problems(program, "fair", "weak", lasso)  # F is wrong and thread 1 is fair
    steps = [
        SimpleNamespace(memory=s.memory, pcs=s.pcs, fair=s.fair, thread=s.thread, instruction=s.instruction)
        for s in lasso.steps
    ]
    shifted = SimpleNamespace(steps=steps, loop_start=0)
    assert brute.lasso_problems(program, "HSA", "weak", shifted)
    steps[-1].thread = 1
    wrong = SimpleNamespace(steps=steps, loop_start=lasso.loop_start)
    assert brute.lasso_problems(program, "HSA", "weak", wrong)
    steps[-1].thread, steps[-1].fair = 0, (0, 1)
    assert brute.lasso_problems(program, "HSA", "weak", wrong)
    steps[-1].fair = (0,)
    assert brute.lasso_problems(program, "HSA", "weak", wrong) == []


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 12))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    return n, sorted(set(edges))


@settings(max_examples=300, **SETTINGS)
@given(graphs(), st.randoms(use_true_random=False))
def test_sccs_match_networkx(graph, rng: random.Random):
    n, edges = graph
    succ = [[(0, d) for s, d in edges if s == node] for node in range(n)]
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    expected = {frozenset(c) for c in nx.strongly_connected_components(g)}
    assert {frozenset(c) for c in sccs(succ)} == expected
    subset = {v for v in range(n) if rng.random() < 0.6}
    sub = g.subgraph(subset)
    assert {frozenset(c) for c in sccs(succ, subset)} == {frozenset(c) for c in nx.strongly_connected_components(sub)}
