"""Run a synthesis: pending units -> engine (here or on Dask) -> store,
with progress reports, a time limit, resumption, and a reason for stopping.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum

from progress.errors import UsageError

from .space import UNIT_SIZE, Bounds
from .store import Store, UnitResult
from .work import ENGINES, run_units, space_for, unit_sizes

FORMAT = 1
"""Version of the stored run; a resume refuses another."""

DEFAULT_ENGINE = "enum"
"""The faster engine, chosen by benchmarks/bench_synth.py (docs/results/synth.md)."""


class StopReason(Enum):
    """Why a search stopped (only EXHAUSTED means the result is complete)."""

    EXHAUSTED = "exhausted"
    TIME_LIMIT = "time limit"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class Settings:
    bounds: Bounds
    engine: str = DEFAULT_ENGINE
    time_limit: float | None = None
    workers: int = 1
    scheduler: str | None = None
    throttle: float = 0.0  # seconds to sleep after each unit (for tests that interrupt a run)
    unit_size: int = UNIT_SIZE  # candidates per enum work unit (part of the run: fixes unit ids)

    def params(self) -> dict:
        b = self.bounds
        return {
            "format": FORMAT,
            "threads": b.threads,
            "instructions": b.instructions,
            "locations": b.locations,
            "values": b.values,
            "engine": self.engine,
            "unit_size": self.unit_size,
        }


@dataclass
class Progress:
    """Counters shown while running and summarised at the end."""

    units_total: int
    candidates_total: int
    units_done: int = 0
    candidates_done: int = 0
    judged: int = 0
    found: int = 0
    started: float = field(default_factory=time.monotonic)
    resumed_from: int = 0  # candidates already covered when this session started

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def rate(self) -> float:
        """Candidates covered per second in this session."""
        done = self.candidates_done - self.resumed_from
        return done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        left = self.candidates_total - self.candidates_done
        return left / self.rate if self.rate > 0 else None


@dataclass(frozen=True)
class Outcome:
    stop: StopReason
    progress: Progress
    params: dict


def open_run(store: Store, settings: Settings, resume: bool) -> None:
    """Record a new run's parameters, or check that a resumed run has the same ones."""
    stored = store.params()
    wanted = settings.params()
    if not stored:
        if resume:
            raise UsageError(f"--resume: {store.path} holds no run to resume")
        store.set_params(wanted)
        return
    if not resume:
        raise UsageError(f"{store.path} already holds a run; pass --resume to continue it or choose another --out")
    run = {k: stored.get(k) for k in wanted}
    if run != wanted:
        differ = ", ".join(f"{k}={stored.get(k)} (not {v})" for k, v in wanted.items() if stored.get(k) != v)
        raise UsageError(f"--resume: {store.path} holds another run: {differ}")


def synthesize(store: Store, settings: Settings, on_progress: Callable[[Progress], None] | None = None) -> Outcome:
    """Run every pending unit, committing each as it finishes; KeyboardInterrupt stops cleanly."""
    if settings.engine not in ENGINES:
        raise UsageError(f"unknown engine {settings.engine!r} (known: {', '.join(ENGINES)})")
    bounds = settings.bounds
    sizes = unit_sizes(settings.engine, bounds, settings.unit_size)
    done = store.done_units()
    progress = Progress(len(sizes), sum(sizes))
    progress.units_done = len(done)
    progress.candidates_done = progress.resumed_from = sum(sizes[u] for u in done)
    progress.judged, progress.found = store.totals()
    pending = [u for u in range(len(sizes)) if u not in done]
    deadline = None if settings.time_limit is None else time.time() + settings.time_limit
    stop = StopReason.EXHAUSTED
    try:
        for result in _results(settings, pending, deadline):
            progress.found += store.commit(result)
            if result.complete:
                progress.units_done += 1
                progress.candidates_done += sizes[result.unit]
                progress.judged += result.judged
            if on_progress:
                on_progress(progress)
        if progress.units_done < progress.units_total:
            stop = StopReason.TIME_LIMIT
    except KeyboardInterrupt:
        stop = StopReason.INTERRUPTED
    store.set_params({"stop": stop.value})
    return Outcome(stop, progress, store.params())


def _results(settings: Settings, pending: list[int], deadline: float | None) -> Iterable[UnitResult]:
    if settings.workers > 1 or settings.scheduler:
        from .distributed import run_distributed  # dask is imported only when asked for

        return run_distributed(settings, pending, deadline)
    return _local(settings, pending, deadline)


def _local(settings: Settings, pending: list[int], deadline: float | None) -> Iterator[UnitResult]:
    for unit in pending:
        results = run_units(settings.engine, settings.bounds, [unit], deadline, settings.throttle, settings.unit_size)
        yield from results
        if not results or not results[-1].complete:
            return


def space_summary(bounds: Bounds, unit_size: int = UNIT_SIZE) -> dict:
    """Sizes of the space: constraint-4 programs, canonical ones, left after static pruning."""
    space = space_for(bounds, unit_size)
    return {"programs": space.raw_size, "canonical": space.canonical_size, "after_static_pruning": space.pruned_size}
