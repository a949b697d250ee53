"""Work units as pure functions: what a local loop or a Dask worker runs.

`run_units(engine, bounds, unit_ids, deadline)` returns one `UnitResult`
per unit, each test classified under every registered model (11 verdicts
for the built-ins) by `classify_batch`, with the seconds spent judging and
classifying. Nothing here touches the store or prints.
"""

from __future__ import annotations

import time
from functools import lru_cache

from .enum_engine import search_unit
from .space import UNIT_SIZE, Bounds, Candidate, Space, partitions
from .store import FoundTest, KeyCodec, UnitResult, packed
from .verdicts import classify_batch

ENGINES = ("enum", "z3", "compiled", "cuda")
"""cuda: the compiled engine's units judged on the GPU (synth/cuda_run.py), classified on the CPU."""
STREAMED = ("compiled", "cuda")

RAW_PER_UNIT_SIZE = 512
"""The compiled engine's units are ranges of `unit_size * RAW_PER_UNIT_SIZE`
raw indices of the streamed space (2**21 for the default 4096: roughly as
many judged candidates as an enum unit holds, times 10 to 50)."""


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
    if engine in STREAMED:
        from .fast_judge import stream_space  # numba is imported only when asked for

        return stream_space(bounds, unit_size * RAW_PER_UNIT_SIZE).unit_sizes
    space = space_for(bounds, unit_size)
    if engine == "z3":
        return [space.canonical_by_partition[lengths] for lengths in partitions(bounds)]
    return [unit.size for unit in space.units]


def _found(candidates: list[Candidate]) -> tuple[tuple[str, ...], tuple[FoundTest, ...], float]:
    start = time.perf_counter()
    names, masks = classify_batch(candidates)
    return names, tuple(FoundTest(c, m) for c, m in zip(candidates, masks)), time.perf_counter() - start


def space_sizes(engine: str, bounds: Bounds, unit_size: int = UNIT_SIZE) -> dict:
    """The space's sizes without building more than the engine needs: programs
    meeting constraint 4, canonical ones, and (None for the streamed
    `compiled` engine, which counts them as it goes: its `judged`) those left
    after static pruning."""
    if engine in STREAMED:
        from .fast_judge import stream_space

        space = stream_space(bounds, unit_size * RAW_PER_UNIT_SIZE)
        return {"programs": space.raw_size, "canonical": space.canonical_size, "after_static_pruning": None}
    old = space_for(bounds, unit_size)
    return {"programs": old.raw_size, "canonical": old.canonical_size, "after_static_pruning": old.pruned_size}


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


def run_packed(
    engine: str,
    bounds: Bounds,
    unit_ids: list[int],
    deadline: float | None = None,
    throttle: float = 0.0,
    unit_size: int = UNIT_SIZE,
) -> list[UnitResult]:
    """`run_units` with each result in the store's form (`store.packed`): what a
    worker process sends back to the driver (a few bytes per test to pickle)."""
    codec = _codec(bounds)
    return [packed(result, codec) for result in run_units(engine, bounds, unit_ids, deadline, throttle, unit_size)]


@lru_cache(maxsize=4)
def _codec(bounds: Bounds) -> KeyCodec:
    return KeyCodec(bounds)


def warm_up(engine: str, bounds: Bounds, unit_size: int = UNIT_SIZE) -> None:
    """Load what a unit of `engine` needs (compiled kernels, the batch
    classifier's tables for this many threads) by searching the first unit
    of a tiny space, so that processes forked afterwards start ready."""
    if engine not in ("compiled", "enum"):
        return  # z3 or an accelerator: nothing worth sharing, or unsafe to share over fork
    run_unit(engine, Bounds(bounds.threads, bounds.threads, bounds.locations, bounds.values), 0, None, unit_size)
    classify_batch([tuple(((0, 0, 1, False, 1),) for _ in range(bounds.threads))])  # one AXB per thread
    _codec(bounds)


def run_unit(
    engine: str, bounds: Bounds, unit_id: int, deadline: float | None = None, unit_size: int = UNIT_SIZE
) -> UnitResult:
    if engine == "compiled":
        return _compiled_unit(bounds, unit_id, unit_size)
    if engine == "cuda":  # one unit per launch: synth/cuda_run.py batches them
        from .cuda_judge import judge_unit

        start = time.perf_counter()
        search = judge_unit(bounds, unit_id, unit_size * RAW_PER_UNIT_SIZE)
        judging = time.perf_counter() - start
        names, tests, classifying = _found(list(search.found))
        return UnitResult(unit_id, search.judged, tests, True, names, judging, classifying)

    if engine == "enum":
        start = time.perf_counter()
        space = space_for(bounds, unit_size)
        found, judged = search_unit(space, space.units[unit_id], _judges(bounds))
        judging = time.perf_counter() - start
        names, tests, classifying = _found([c for _, c in found])
        return UnitResult(unit_id, judged, tests, True, names, judging, classifying)
    if engine == "z3":
        return _z3_unit(bounds, unit_id, deadline)
    raise ValueError(f"unknown engine {engine!r}")


def _compiled_unit(bounds: Bounds, unit_id: int, unit_size: int) -> UnitResult:
    """The compiled kernel's unit, its tests classified straight from their raw indices
    (`stream_classify`: no candidate or Program built per test, about 6x cheaper than
    `classify_batch`; tested equal to it) and returned in the store's form (`packed`)."""
    from .fast_judge import judge_range, stream_space
    from .stream_classify import classify_indices

    start = time.perf_counter()
    space = stream_space(bounds, unit_size * RAW_PER_UNIT_SIZE)
    unit = space.unit(unit_id)
    table = space.table(unit.partition)
    indices, judged = judge_range(table, unit.start, unit.stop)
    judging = time.perf_counter() - start
    names, masks, keys = classify_indices(table, _codec(bounds), indices)
    classifying = time.perf_counter() - start - judging
    return UnitResult(unit_id, judged, (), True, names, judging, classifying, tuple(zip(keys, masks)))


def _z3_unit(bounds: Bounds, unit_id: int, deadline: float | None) -> UnitResult:
    from .z3_engine import solve_partition  # z3 is imported only when asked for

    lengths = partitions(bounds)[unit_id]
    found: list[Candidate] = []
    complete = True
    start = time.perf_counter()
    try:
        for candidate in solve_partition(lengths, bounds, _monotonic(deadline)):
            found.append(candidate)
    except TimeoutError:
        complete = False
    judging = time.perf_counter() - start
    names, tests, classifying = _found(found)
    return UnitResult(unit_id, len(found) + complete, tests, complete, names, judging, classifying)


def _monotonic(deadline: float | None) -> float | None:
    """A wall-clock deadline (time.time) as a time.monotonic one."""
    return None if deadline is None else time.monotonic() + (deadline - time.time())
