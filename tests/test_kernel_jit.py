"""The compiled kernel explorer (progress/core/kernel_jit.py) builds the same
graph as the Python one (`explore_system`): the same states in the same
breadth-first order, the same edges, the same deadlocks, on every kernel of
litmus/kernels/ and litmus/wgsl/ at its header's launch."""

from __future__ import annotations

from pathlib import Path

import pytest

from progress.cli.kernel import kernel_system
from progress.core.analyze import compiles
from progress.core.kernel_jit import explore_kernel
from progress.core.lts import Budget, explore_system
from progress.errors import Inconclusive
from progress.front.header import LaunchSettings

REPO = Path(__file__).resolve().parents[1]
CORPUS = sorted((REPO / "litmus" / "kernels").iterdir()) + sorted((REPO / "litmus" / "wgsl").glob("*.wgsl"))


def same_graph(python, compiled) -> None:
    assert compiled.count == len(python.states)
    assert [compiled.state(s) for s in range(compiled.count)] == [tuple(s) for s in python.states]
    for s in range(compiled.count):
        edges = range(compiled.estart[s], compiled.estart[s + 1])
        assert [(int(compiled.eunit[e]), int(compiled.edst[e])) for e in edges] == python.lts.succ[s]
        parent = None if s == 0 else (int(compiled.parent_src[s]), int(compiled.parent_unit[s]))
        assert parent == python.lts.parent[s]
    assert compiled.deadlocks == python.deadlocks


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_the_corpus_graphs_are_the_same(path):
    system = kernel_system(path, LaunchSettings())
    if system.collective:
        with pytest.raises(ValueError, match="no collective"):  # subgroup operations: explore_system only
            explore_kernel(system)
        return
    try:
        python = explore_system(system, Budget(20_000))
    except Inconclusive:
        pytest.skip("past 20,000 states: too large to compare here")
    kernel = kernel_system(path, LaunchSettings())
    if not compiles(kernel):
        pytest.skip("subgroup operations: the compiled explorer does not take them")
    same_graph(python, explore_kernel(kernel))


def test_a_bound_stops_the_compiled_explorer():
    path = REPO / "litmus" / "kernels" / "tas_spinlock.comp"
    with pytest.raises(Inconclusive, match="state bound of 5"):
        explore_kernel(kernel_system(path, LaunchSettings()), max_states=5)
