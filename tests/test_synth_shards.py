"""synth/shards.Planner: every pending unit handed out once, in order; shards sized
from measured work (about `seconds` each), growing at most SHARD_GROWTH-fold, shrinking
at the tail so every worker stays busy."""

from __future__ import annotations

from progress.synth.shards import SHARD_GROWTH, SHARD_TESTS, Planner
from progress.synth.store import UnitResult


def drain(planner: Planner, workers: int, seconds_per_unit: float) -> list[list[int]]:
    shards = []
    while units := planner.shard(workers):
        shards.append(units)
        for unit in units:
            planner.learn(UnitResult(unit, 1, (), True, (), seconds_per_unit / 2, seconds_per_unit / 2))
    return shards


def test_every_pending_unit_once_in_order():
    pending = [u for u in range(1000) if u % 7]
    shards = drain(Planner(pending, [100] * 1000, seconds=2.0), workers=2, seconds_per_unit=0.01)
    assert [u for shard in shards for u in shard] == pending


def test_sizes_follow_measured_work_growth_and_tail():
    shards = drain(Planner(list(range(2000)), [100] * 2000, seconds=2.0), workers=2, seconds_per_unit=0.01)
    sizes = [len(s) for s in shards]
    assert sizes[0] == 1  # nothing measured yet
    assert all(b <= max(sizes[: i + 1]) * SHARD_GROWTH for i, b in enumerate(sizes[1:]))
    assert 200 <= max(sizes) <= 201  # 2 s of work at 0.01 s a unit (the unit reaching the budget included)
    assert sizes[-1] < 200  # the tail shrinks: the last shards split what is left between the workers


def test_incomplete_results_teach_nothing():
    planner = Planner([0, 1, 2, 3], [10] * 4, seconds=1.0)
    planner.shard(1)
    planner.learn(UnitResult(0, 1, (), False, (), 5.0, 5.0))
    assert planner.shard(1) == [1]  # still one unit: no measurement yet


def test_dense_units_make_short_shards():
    """At 1,000 tests per unit a shard holds about SHARD_TESTS tests, however cheap the units."""
    planner = Planner(list(range(5000)), [100] * 5000, seconds=100.0)
    shards = []
    while units := planner.shard(1):
        shards.append(units)
        for unit in units:
            found = tuple((b"k", 1) for _ in range(1000 if unit >= 10 else 0))
            planner.learn(UnitResult(unit, 1, (), True, (), 0.0001, 0.0001, found))
    sizes = [len(s) for s in shards]
    assert max(sizes[3:]) <= SHARD_TESTS // 1000 + 1
    assert max(sizes) >= SHARD_TESTS // 1000  # and not shorter than needed
