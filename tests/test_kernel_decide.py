"""The compiled kernel checker (progress/core/kernel_jit.py + kernel_decide.py)
against the Python one: every kernel of litmus/kernels/ and litmus/wgsl/ at
its header's launch, and random generated GLSL kernels (hypothesis), get the
same 11 verdicts, states and transitions from both; every lasso of the
compiled checker is validated by replaying it on the unreduced system with
F and the loop's fairness condition recomputed (test_kernel_reduce.validate)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import agreement_settings, long_twin
from kernel_helpers import compile_glsl, system
from test_kernel_reduce import kernels, validate

from progress.cli.kernel import kernel_system
from progress.core.analyze import check_system, compiles, queries_for
from progress.core.registry import all_models
from progress.front.header import LaunchSettings

REPO = Path(__file__).resolve().parents[1]
CORPUS = sorted((REPO / "litmus" / "kernels").iterdir()) + sorted((REPO / "litmus" / "wgsl").glob("*.wgsl"))


def outcome(report):
    return [(v.model, v.fairness, v.terminates, v.states, v.transitions) for v in report.verdicts]


def agree(kernel_of) -> None:
    queries = queries_for(all_models())
    python = check_system(kernel_of(), queries, max_states=20_000, engine="python")
    if any(v.terminates is None for v in python.verdicts):
        pytest.skip("past 20,000 states: too large to compare here")
    kernel = kernel_of()
    if not compiles(kernel):
        pytest.skip("subgroup operations: the compiled explorer does not take them")
    compiled = check_system(kernel, queries, engine="compiled")
    assert outcome(compiled) == outcome(python)
    for verdict in compiled.verdicts:
        assert (verdict.witness is None) == verdict.terminates
        if verdict.witness is not None:
            validate(kernel, verdict.witness, verdict.model, verdict.fairness)


@pytest.mark.long
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_the_corpus_verdicts_are_the_same(path):
    agree(lambda: kernel_system(path, LaunchSettings()))


def _random_kernels_agree(tmp_path_factory, case):
    source, groups = case
    module = compile_glsl(source, tmp_path_factory.mktemp("random") / "k")
    agree(lambda: system(module, groups))


test_random_kernels_agree, test_random_kernels_agree_in_full = long_twin(
    _random_kernels_agree,
    (kernels(),),
    suite=12,
    full=30,
    **agreement_settings(),
)


def test_past_kernel_large_the_check_goes_compiled(monkeypatch):
    """check_system hands a kernel to the compiled checker once its program LTS
    passes KERNEL_LARGE states (here lowered to 50), with the same verdicts."""
    from progress.core import analyze, kernel_decide

    path = REPO / "litmus" / "kernels" / "ticket_lock.comp"
    queries = queries_for(all_models())
    python = check_system(kernel_system(path, LaunchSettings()), queries, engine="python")
    calls = []
    original = kernel_decide.decide_queries
    monkeypatch.setattr(kernel_decide, "decide_queries", lambda *a: calls.append(1) or original(*a))
    monkeypatch.setattr(analyze, "KERNEL_LARGE", 50)
    auto = check_system(kernel_system(path, LaunchSettings()), queries)
    assert calls and outcome(auto) == outcome(python) and python.verdicts[0].states > 50
    monkeypatch.setattr(analyze, "KERNEL_LARGE", 10**6)
    calls.clear()
    check_system(kernel_system(path, LaunchSettings()), queries)
    assert not calls


@pytest.mark.parametrize("phase", ["building the product", "looking for witnesses", "building lassos"])
def test_deciding_stops_at_the_time_limit(monkeypatch, phase):
    """The compiled decision looks at the clock between its phases: a check
    whose time runs out there is inconclusive, naming the phase and what to
    try, never a verdict (the clock is moved past the deadline once that
    phase is reached; the exploration before it is not timed)."""
    from progress.core import kernel_decide

    path = REPO / "litmus" / "kernels" / "ticket_lock.comp"
    original = kernel_decide._in_time

    def late(deadline, states, where):
        original(0.0 if where == phase else None, states, where)

    monkeypatch.setattr(kernel_decide, "_in_time", late)
    report = check_system(kernel_system(path, LaunchSettings()), queries_for(all_models()), engine="compiled")
    assert all(v.terminates is None for v in report.verdicts)
    reason = report.verdicts[0].reason
    assert f"stopped at the time limit while {phase}" in reason and "--reduce" in reason


@pytest.mark.parametrize(
    "name",
    ["tas_spinlock.comp", "lookback_dynamic.comp", "ticket_lock.comp", "grid_barrier.comp"],
)
def test_the_started_product_is_skipped_only_when_it_is_the_graph(name):
    """`kernel_decide.product` uses the graph itself for STARTED when the
    memory is a function of the program state (`_started_memory`): then the
    product built pair by pair has exactly the pairs (s, memory[s]) and the
    graph's edges; otherwise (a spin that leaves its first local state as
    it was, yet starts its workgroup) the product is built and is larger."""
    import numpy as np

    from progress.core import kernel_decide as kd
    from progress.core.kernel_jit import explore_kernel
    from progress.core.lts import Budget

    kernel = kernel_system(REPO / "litmus" / "kernels" / name, LaunchSettings())
    graph = explore_kernel(kernel)
    group = np.array(kernel.groups, np.int64)
    n = graph.count
    origin, memory, pstart, pdst, _, size = kd._started_product(
        graph.estart, graph.eunit, graph.edst, group, n, np.int64(10**9)
    )
    skipped = kd._started_memory(graph.estart, graph.eunit, graph.edst, group, n)
    pairs = set(zip(origin.tolist(), memory.tolist()))
    used = kd.product(graph, True, Budget(), group)
    if skipped.shape[0]:
        assert pairs == set(enumerate(skipped.tolist())) and not used.own and used.size == n
        back = {int(o): p for p, o in enumerate(origin)}
        assert [back[int(d)] for d in graph.edst[: graph.edges]] == pdst.tolist()
    else:
        assert len({o for o, _ in pairs}) < size and used.own and used.size == size
    assert name != "tas_spinlock.comp" or not skipped.shape[0]
    assert name != "lookback_dynamic.comp" or skipped.shape[0]
