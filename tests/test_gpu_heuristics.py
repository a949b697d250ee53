"""The heuristics' index arithmetic (docs/semantics.md section 7), checked against the
paper's formulas written out independently and against brute-force properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from progress.gpu.heuristics import HEURISTICS, MAX_WORKGROUPS, auto_instances, geometry, slot, workgroup_of

sizes = st.tuples(st.integers(1, 5), st.integers(1, 40))


def test_auto_instances_is_the_papers_m():
    assert auto_instances(2) == 32766
    assert auto_instances(3) == 21844
    assert auto_instances(4) == 16383
    assert auto_instances(2) * 2 <= MAX_WORKGROUPS < (auto_instances(2) + 1) * 2
    assert auto_instances(3, 16) == 5 and auto_instances(32, 16) == 1


def test_plain_runs_one_instance_on_n_workgroups():
    g = geometry("plain", 3, 21844)
    assert (g.instances, g.workgroups) == (1, 3)
    assert [slot(g, w) for w in range(3)] == [(0, 0), (0, 1), (0, 2)]


def test_paper_examples():
    rr = geometry("rr", 2, 4)
    chunked = geometry("chunked", 2, 4)
    # rr: instance t_m's thread i on workgroup N*m + i
    assert [slot(rr, w) for w in range(8)] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1)]
    # chunked: thread i of t_m on workgroup M*i + m
    assert [slot(chunked, w) for w in range(8)] == [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1), (3, 1)]


@given(sizes, st.sampled_from(HEURISTICS))
def test_every_thread_of_every_instance_runs_exactly_once(size, heuristic):
    n, m = size
    g = geometry(heuristic, n, m)
    slots = [slot(g, w) for w in range(g.workgroups)]
    assert sorted(slots) == [(i, t) for i in range(g.instances) for t in range(n)]
    assert all(workgroup_of(g, i, t) == w for w, (i, t) in enumerate(slots))


@given(sizes, st.sampled_from(HEURISTICS))
def test_heuristics_keep_thread_id_order_within_an_instance(size, heuristic):
    n, m = size
    g = geometry(heuristic, n, m)
    for instance in range(g.instances):
        workgroups = [workgroup_of(g, instance, t) for t in range(n)]
        assert workgroups == sorted(workgroups)


def test_bad_arguments_are_errors():
    with pytest.raises(ValueError):
        geometry("zigzag", 2, 2)
    with pytest.raises(ValueError):
        slot(geometry("rr", 2, 2), 4)
    with pytest.raises(ValueError):
        auto_instances(0)
