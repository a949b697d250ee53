"""The `cuda` engine's pipeline: the GPU judges, CPU processes classify.

`run_cuda(settings, pending, deadline, progress)` yields one `UnitResult`
per pending unit of the streamed space (the `compiled` engine's units:
same ids, same raw ranges, same judged counts, same tests), in unit order:

- this process judges runs of consecutive pending units of one partition
  in one kernel launch each (`cuda_judge.judge_units`, at most
  BATCH_RAW raw indices), getting back only the tests' raw indices and
  each unit's judged count;
- each unit's raw indices go to a classifying process (`--workers N`: a
  pool of N processes, started with `spawn` since this process holds a
  CUDA context; N = 1 classifies here), which classifies them under every
  verdict straight from the indices (`stream_classify.classify_indices`:
  what `verdicts.classify_batch` gives, vectorized) and sends back the
  canonical keys packed for the store (`UnitResult.packed`) with their
  verdict masks, and its own peak resident memory;
- results are taken back in unit order with at most IN_FLIGHT_PER_WORKER
  units per worker outstanding, so memory does not grow with the run.

The store is keyed canonically and the units are the compiled engine's,
so the stored tests, the units' judged counts, hence the export, are the
compiled engine's byte for byte, whatever the number of workers.
The judge is a parameter (`judge`), so the pipeline runs without a GPU in
tests with the CPU judge standing in. Nothing here prints.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import time
from collections import deque
from collections.abc import Callable, Iterator

import numpy as np

from .space import Bounds
from .store import KeyCodec, UnitResult
from .stream import PartitionTable, StreamSpace
from .stream_classify import classify_indices
from .work import RAW_PER_UNIT_SIZE

BATCH_RAW = 1 << 30
"""Raw indices per kernel launch at most (about 0.2-1 s of GPU work at 6i)."""
IN_FLIGHT_PER_WORKER = 4

Judge = Callable[[PartitionTable, int, int, int], tuple[np.ndarray, np.ndarray]]
"""(table, start, stop, per_counter) -> (sorted test raw indices, judged per unit): `cuda_judge.judge_units`."""


def batches(space: StreamSpace, pending: list[int]) -> Iterator[list[int]]:
    """`pending` cut into runs of consecutive unit ids of one partition, each
    of at most BATCH_RAW raw indices (at least one unit)."""
    run: list[int] = []
    for unit_id in pending:
        unit = space.unit(unit_id)
        if run:
            last = space.unit(run[-1])
            if (
                unit_id != run[-1] + 1
                or unit.partition != last.partition
                or unit.stop - space.unit(run[0]).start > BATCH_RAW
            ):
                yield run
                run = []
        run.append(unit_id)
    if run:
        yield run


def judged_units(
    space: StreamSpace, pending: list[int], judge: Judge, deadline: float | None
) -> Iterator[tuple[int, np.ndarray, int, float]]:
    """(unit id, its tests' raw indices, judged, seconds) for every pending
    unit, batch by batch, until `deadline` (checked before each launch)."""
    for run in batches(space, pending):
        if deadline is not None and time.time() >= deadline:
            return
        first, last = space.unit(run[0]), space.unit(run[-1])
        table = space.table(first.partition)
        started = time.perf_counter()
        found, judged = judge(table, first.start, last.stop, space.unit_raw)
        seconds = (time.perf_counter() - started) / len(run)
        cuts = np.searchsorted(found, [first.start + k * space.unit_raw for k in range(len(run) + 1)])
        for k, unit_id in enumerate(run):
            yield unit_id, found[cuts[k] : cuts[k + 1]], int(judged[k]), seconds


def classify_unit(
    bounds: Bounds, unit_raw: int, unit_id: int, indices: np.ndarray, judged: int, judging: float
) -> tuple[UnitResult, int, int]:
    """A unit's tests (raw indices) classified: (result with `packed` keys,
    this process's pid, its peak resident bytes so far)."""
    started = time.perf_counter()
    space = _space(bounds, unit_raw)
    table = space.table(space.unit(unit_id).partition)
    labels, masks, keys = classify_indices(table, _codec(bounds), indices)
    packed = tuple(zip(keys, masks))
    classifying = time.perf_counter() - started
    result = UnitResult(unit_id, judged, (), True, labels, judging, classifying, packed)
    return result, os.getpid(), peak_rss()


def peak_rss() -> int:
    """This process's peak resident set size in bytes (getrusage; Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


_spaces: dict = {}
_codecs: dict = {}


def _space(bounds: Bounds, unit_raw: int) -> StreamSpace:
    key = (bounds, unit_raw)
    if key not in _spaces:
        _spaces[key] = StreamSpace(bounds, unit_raw)
    return _spaces[key]


def _codec(bounds: Bounds) -> KeyCodec:
    if bounds not in _codecs:
        _codecs[bounds] = KeyCodec(bounds)
    return _codecs[bounds]


def run_cuda(
    settings, pending: list[int], deadline: float | None, progress, judge: Judge | None = None
) -> Iterator[UnitResult]:
    """Every pending unit's result, in unit order (see the module's docstring).
    `progress.peak_rss` gets each classifying process's peak resident bytes."""
    if judge is None:
        from .cuda_judge import judge_units

        judge = judge_units
    bounds = settings.bounds
    unit_raw = settings.unit_size * RAW_PER_UNIT_SIZE
    space = _space(bounds, unit_raw)
    stream = judged_units(space, pending, judge, deadline)
    if settings.workers <= 1 or not pending:  # nothing to hand out: no processes to start
        for unit_id, indices, judged, seconds in stream:
            result, pid, rss = classify_unit(bounds, unit_raw, unit_id, indices, judged, seconds)
            progress.peak_rss[pid] = rss
            yield result
        return
    context = multiprocessing.get_context("spawn")
    with context.Pool(settings.workers) as pool:
        window: deque = deque()
        limit = IN_FLIGHT_PER_WORKER * settings.workers
        for unit_id, indices, judged, seconds in stream:
            window.append(pool.apply_async(classify_unit, (bounds, unit_raw, unit_id, indices, judged, seconds)))
            while len(window) >= limit:
                yield _take(window.popleft(), progress)
        while window:
            yield _take(window.popleft(), progress)


def _take(pending_result, progress) -> UnitResult:
    result, pid, rss = pending_result.get()
    progress.peak_rss[pid] = max(rss, progress.peak_rss.get(pid, 0))
    return result
