"""Work units as pure functions: what a local loop or a Dask worker runs.

`run_units(engine, bounds, unit_ids, deadline)` returns one `UnitResult`
per unit, each test classified under every registered model (11 verdicts
for the built-ins). Nothing here touches the store or prints.
"""

from __future__ import annotations

import time
from functools import lru_cache

from progress.analyze import check_program, queries_for
from progress.classify import Column, cell_text
from progress.registry import all_models

from . import canonical
from .enum_engine import search_unit
from .space import UNIT_SIZE, Bounds, Candidate, Space, partitions
from .store import FoundTest, UnitResult

ENGINES = ("enum", "z3")


@lru_cache(maxsize=4)
def space_for(bounds: Bounds, unit_size: int = UNIT_SIZE) -> Space:
    """The space of `bounds`, built once per process (a few tenths of a second)."""
    return Space(bounds, unit_size)


@lru_cache(maxsize=4)
def _judges(bounds: Bounds) -> dict:
    """Per-process cache of the enum engine's step tables."""
    return {}


def unit_sizes(engine: str, bounds: Bounds, unit_size: int = UNIT_SIZE) -> list[int]:
    """Candidates per unit: statically pruned ones for enum; canonical ones per partition for z3."""
    space = space_for(bounds, unit_size)
    if engine == "z3":
        return [space.canonical_by_partition[lengths] for lengths in partitions(bounds)]
    return [unit.size for unit in space.units]


@lru_cache(maxsize=1)
def _queries():
    return tuple(queries_for(all_models()))


def classify(candidate: Candidate) -> FoundTest:
    """The stored form of a test: its key, canonical hash and every verdict."""
    program = canonical.to_program(candidate)
    report = check_program(program, list(_queries()), witnesses=False)
    verdicts = tuple((Column(v.model, v.fairness).label, cell_text(v.terminates)) for v in report.verdicts)
    return FoundTest(canonical.key(candidate), report.hash, verdicts)


def run_units(
    engine: str,
    bounds: Bounds,
    unit_ids: list[int],
    deadline: float | None = None,
    throttle: float = 0.0,
    unit_size: int = UNIT_SIZE,
) -> list[UnitResult]:
    """Search the given units; a unit cut short by `deadline` comes back incomplete."""
    results = []
    for unit_id in unit_ids:
        if deadline is not None and time.time() >= deadline:
            break
        results.append(run_unit(engine, bounds, unit_id, deadline, unit_size))
        if throttle:
            time.sleep(throttle)
    return results


def run_unit(
    engine: str, bounds: Bounds, unit_id: int, deadline: float | None = None, unit_size: int = UNIT_SIZE
) -> UnitResult:
    if engine == "enum":
        space = space_for(bounds, unit_size)
        found, judged = search_unit(space, space.units[unit_id], _judges(bounds))
        return UnitResult(unit_id, judged, tuple(classify(c) for _, c in found))
    if engine == "z3":
        return _z3_unit(bounds, unit_id, deadline)
    raise ValueError(f"unknown engine {engine!r}")


def _z3_unit(bounds: Bounds, unit_id: int, deadline: float | None) -> UnitResult:
    from .z3_engine import solve_partition  # z3 is imported only when asked for

    lengths = partitions(bounds)[unit_id]
    found: list[FoundTest] = []
    try:
        for candidate in solve_partition(lengths, bounds, _monotonic(deadline)):
            found.append(classify(candidate))
    except TimeoutError:
        return UnitResult(unit_id, len(found), tuple(found), complete=False)
    return UnitResult(unit_id, len(found) + 1, tuple(found))


def _monotonic(deadline: float | None) -> float | None:
    """A wall-clock deadline (time.time) as a time.monotonic one."""
    return None if deadline is None else time.monotonic() + (deadline - time.time())
