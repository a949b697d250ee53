"""The engines against independent oracles: the reference judge
(`constraints.violations`, networkx over `progress.core.lts.explore`), the
straightforward baseline, and each other."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from progress.synth import canonical
from progress.synth.baseline import baseline_search
from progress.synth.constraints import violations
from progress.synth.enum_engine import accepts, search_unit
from progress.synth.space import Bounds, Space, instruction_options, partitions

SMALL = [Bounds(2, 2), Bounds(2, 3), Bounds(3, 3), Bounds(1, 3), Bounds(2, 2, locations=2, values=3)]


def enum_set(bounds: Bounds) -> frozenset:
    space = Space(bounds)
    judges: dict = {}
    return frozenset(c for unit in space.units for _, c in search_unit(space, unit, judges)[0])


def z3_set(bounds: Bounds) -> frozenset:
    from progress.synth.z3_engine import solve_partition

    found = [c for lengths in partitions(bounds) for c in solve_partition(lengths, bounds)]
    assert len(found) == len(set(found)), "z3 returned a class twice"
    return frozenset(found)


@st.composite
def candidates(draw):
    bounds = draw(st.sampled_from([Bounds(2, 3), Bounds(2, 4), Bounds(3, 4), Bounds(3, 3)]))
    lengths = draw(st.sampled_from(partitions(bounds)))
    code = tuple(tuple(draw(st.sampled_from(instruction_options(n, i, bounds))) for i in range(n)) for n in lengths)
    return bounds, code


@settings(max_examples=300, deadline=None)
@given(candidates())
def test_enum_engine_agrees_with_the_reference_judge(case):
    bounds, candidate = case
    assert accepts(candidate, bounds) == (violations(canonical.to_program(candidate)) == [])


@pytest.mark.parametrize("bounds", SMALL, ids=lambda b: b.label)
def test_static_pruning_loses_nothing(bounds):
    """The baseline judges every canonical candidate with the reference judge."""
    result = baseline_search(bounds)
    assert result.complete
    assert enum_set(bounds) == result.found


@pytest.mark.parametrize("bounds", SMALL, ids=lambda b: b.label)
def test_z3_and_enum_engines_agree(bounds):
    assert z3_set(bounds) == enum_set(bounds)


# The engines' agreement on the paper's larger configurations (3t4i: 4146
# tests, about a minute of z3) is checked by benchmarks/bench_agreement.py and
# benchmarks/bench_synth.py, results in docs/results/agreement.md and synth.md.


def test_z3_and_enum_agree_with_three_values_and_one_location():
    for bounds in (Bounds(2, 2, locations=1, values=3), Bounds(2, 3, locations=1, values=2)):
        assert z3_set(bounds) == enum_set(bounds)


def test_every_found_test_meets_spec_and_is_canonical():
    for candidate in enum_set(Bounds(2, 3)) | enum_set(Bounds(3, 3)):
        assert canonical.is_canonical(candidate)
        assert violations(canonical.to_program(candidate)) == []
