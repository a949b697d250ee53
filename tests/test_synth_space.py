"""The candidate space: sizes, constraint 4 by construction, canonical
symmetry breaking, units that tile it, determinism."""

from __future__ import annotations

import itertools

from progress.synth import canonical
from progress.synth.constraints import Constraint, violations
from progress.synth.space import Bounds, Space, instruction_options, partitions


def test_partitions_are_ordered_and_complete():
    assert partitions(Bounds(3, 4)) == [(1, 1, 2), (1, 2, 1), (2, 1, 1)]
    assert partitions(Bounds(2, 4)) == [(1, 3), (2, 2), (3, 1)]
    assert partitions(Bounds(1, 3)) == [(3,)]


def test_instruction_options_are_exactly_the_meaningful_ones():
    bounds = Bounds(2, 4)
    for n in (1, 2, 3):
        for i in range(n):
            options = instruction_options(n, i, bounds)
            assert len(options) == len(set(options)) == 12 * n + 4  # n non-store targets x 12 + 4 stores
            every = {
                (loc, cmp, target, xchg, val)
                for loc, cmp, val in itertools.product(range(2), repeat=3)
                for target in range(n + 1)
                for xchg in (False, True)
            }
            meaningful = {
                ins
                for ins in every
                if not (ins[2] == i + 1 and (ins[1] != 0 or not ins[3])) and (ins[3] or ins[4] == 0)
            }
            assert set(options) == meaningful


def test_sizes_follow_the_formula():
    for bounds in (Bounds(2, 3), Bounds(2, 4), Bounds(3, 4)):
        space = Space(bounds)
        raw = sum(_prod((12 * n + 4) ** n for n in lengths) for lengths in partitions(bounds))
        assert space.raw_size == raw
        assert space.canonical_size == sum(space.canonical_by_partition.values())
        assert space.pruned_size < space.canonical_size < space.raw_size


def test_canonical_size_counts_one_program_per_renaming_class():
    bounds = Bounds(2, 3)
    classes = set()
    total = 0
    for lengths in partitions(bounds):
        columns = [instruction_options(n, i, bounds) for n in lengths for i in range(n)]
        for flat in itertools.product(*columns):
            total += 1
            start, codes = 0, []
            for n in lengths:
                codes.append(tuple(flat[start : start + n]))
                start += n
            classes.add(canonical.from_program(canonical.to_program(tuple(codes))))
    space = Space(bounds)
    assert total == space.raw_size
    assert len(classes) == space.canonical_size


def test_units_tile_the_pruned_space_and_every_candidate_is_canonical():
    space = Space(Bounds(2, 3), unit_size=100)
    assert [u.start for u in space.units] == list(range(0, space.pruned_size, 100))
    listed = [c for unit in space.units for _, c in space.candidates(unit)]
    assert len(listed) == len(set(listed)) == space.pruned_size
    assert all(canonical.is_canonical(c) for c in listed)
    whole = Space(Bounds(2, 3))
    assert [c for unit in whole.units for _, c in whole.candidates(unit)] == listed  # order ignores unit size


def test_pruned_candidates_break_a_constraint():
    """Everything dropped statically (canonical but not in a segment) breaks docs/semantics.md section 6."""
    bounds = Bounds(2, 2)
    space = Space(bounds)
    kept = {c for unit in space.units for _, c in space.candidates(unit)}
    dropped = 0
    for lengths in partitions(bounds):
        for flat in itertools.product(*[instruction_options(n, i, bounds) for n in lengths for i in range(n)]):
            candidate = ((flat[0],), (flat[1],))
            if canonical.is_canonical(candidate) and candidate not in kept:
                dropped += 1
                broken = {v.constraint for v in violations(canonical.to_program(candidate))}
                assert broken & {Constraint.CYCLE, Constraint.ALL_BRANCHES, Constraint.INFLUENCE}
    assert dropped == space.canonical_size - space.pruned_size


def test_keys_round_trip():
    space = Space(Bounds(3, 3))
    for _, candidate in space.candidates(space.units[0]):
        assert canonical.from_key(canonical.key(candidate)) == candidate


def _prod(numbers):
    result = 1
    for number in numbers:
        result *= number
    return result
