"""Run a synthesis: pending units -> engine (here, on forked workers or on Dask) -> store,
with progress reports, a time limit, resumption, and a reason for stopping.

Contracts:
- The time limit counts from the call to `synthesize`, building the space
  included; the progress callback is called while the space is built
  (`Progress.phase`), then after every unit committed.
- KeyboardInterrupt anywhere in `synthesize` (building the space, starting
  Dask, searching, committing) stops the run cleanly: what was committed
  stays, the stop reason `interrupted` is recorded.
- While a run is going its store names its owner (pid, host) in `params`,
  so `--status` can tell a running run from a stopped one and a second
  `--resume` of a running run is refused.
"""

from __future__ import annotations

import _thread
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum

from progress.errors import UsageError

from .space import UNIT_SIZE, Bounds
from .store import Store, UnitResult
from .work import ENGINES, run_units, space_sizes, unit_sizes

FORMAT = 1
"""Version of the stored run's parameters; a resume refuses another."""

DEFAULT_ENGINE = "compiled"
"""The faster engine, chosen by benchmarks/bench_synth.py (docs/results/synth.md)."""

STALE_OWNER = 600.0
"""Seconds without a commit after which a run owned by another host counts as dead."""


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
    shard_seconds: float = 2.0  # work per shard (local or Dask), so that scheduling costs < 5% of it

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

    units_total: int = 0
    candidates_total: int = 0
    units_done: int = 0
    candidates_done: int = 0
    judged: int = 0
    found: int = 0
    phase: str = "building the space"
    classified: int = 0  # tests classified in this session (duplicates included)
    judged_now: int = 0  # candidates judged in this session
    judging: float = 0.0  # worker seconds spent judging, this session
    classifying: float = 0.0  # worker seconds spent classifying, this session
    workers: int = 0  # worker processes (Dask: threads connected); 0: a run in one process
    shards: int = 0  # shards finished by workers
    deadline_hit: bool = False  # the time limit passed while the space was being built
    started: float = field(default_factory=time.monotonic)
    searching_since: float | None = None
    resumed_from: int = 0  # candidates already covered when this session started
    peak_rss: dict[int, int] = field(default_factory=dict)  # cuda engine: classifying process pid -> peak bytes

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def searching(self) -> float:
        return 0.0 if self.searching_since is None else time.monotonic() - self.searching_since

    @property
    def rate(self) -> float:
        """Candidates covered per second of search in this session."""
        done = self.candidates_done - self.resumed_from
        return done / self.searching if self.searching > 0 else 0.0

    @property
    def judge_rate(self) -> float:
        """Candidates judged per second of search (wall clock)."""
        return self.judged_now / self.searching if self.searching > 0 else 0.0

    @property
    def classify_rate(self) -> float:
        """Tests classified per second of search (wall clock)."""
        return self.classified / self.searching if self.searching > 0 else 0.0

    @property
    def classify_share(self) -> float:
        """The share of the workers' time spent classifying (what bounds the run)."""
        total = self.judging + self.classifying
        return self.classifying / total if total > 0 else 0.0

    @property
    def eta(self) -> float | None:
        left = self.candidates_total - self.candidates_done
        return left / self.rate if self.rate > 0 else None


@dataclass(frozen=True)
class Outcome:
    stop: StopReason
    progress: Progress
    params: dict


def owner() -> dict:
    return {"pid": os.getpid(), "host": socket.gethostname()}


def owner_alive(params: dict, updated: float) -> bool:
    """Whether the process recorded as the run's owner still runs (same host: its
    pid exists; another host: a commit in the last STALE_OWNER seconds)."""
    who = params.get("owner")
    if not isinstance(who, dict):
        return False
    if who.get("host") != socket.gethostname():
        return time.time() - max(updated, who.get("since", 0.0)) < STALE_OWNER
    pid = who.get("pid")
    if not isinstance(pid, int) or pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def open_run(store: Store, settings: Settings, resume: bool) -> None:
    """Record a new run's parameters, or check that a resumed run has the same
    ones and is not running elsewhere; then mark this process as its owner."""
    stored = store.params()
    wanted = settings.params()
    run_keys = [k for k in stored if k in wanted]
    if not run_keys:
        if resume:
            raise UsageError(f"--resume: {store.path} holds no run to resume")
        store.set_params(wanted)
    else:
        if not resume:
            raise UsageError(f"{store.path} already holds a run; pass --resume to continue it or choose another --out")
        run = {k: stored.get(k) for k in wanted}
        if run != wanted:
            differ = ", ".join(f"{k}={stored.get(k)} (not {v})" for k, v in wanted.items() if stored.get(k) != v)
            raise UsageError(f"--resume: {store.path} holds another run: {differ}")
        if owner_alive(stored, store.running_totals().updated):
            who = stored["owner"]
            raise UsageError(
                f"--resume: {store.path} is being searched by process {who.get('pid')} on {who.get('host')}; "
                f"watch it with `progress synth --status {store.path}`"
            )
    store.set_params({"owner": {**owner(), "since": time.time(), "judged_at_start": store.running_totals().judged}})


def synthesize(store: Store, settings: Settings, on_progress: Callable[[Progress], None] | None = None) -> Outcome:
    """Build the space, run every pending unit, committing each as it finishes;
    KeyboardInterrupt stops cleanly. The owner mark is removed at the end."""
    if settings.engine not in ENGINES:
        raise UsageError(f"unknown engine {settings.engine!r} (known: {', '.join(ENGINES)})")
    if settings.engine == "cuda" and settings.scheduler:
        raise UsageError(
            "--engine cuda judges on this machine's GPU and classifies in --workers processes: no --scheduler"
        )
    deadline = None if settings.time_limit is None else time.time() + settings.time_limit
    progress = Progress()
    try:
        stop = _search(store, settings, progress, deadline, on_progress)
    except KeyboardInterrupt:
        stop = StopReason.TIME_LIMIT if progress.deadline_hit else StopReason.INTERRUPTED
    try:
        store.set_params({"stop": stop.value})
        store.delete_params("owner")
    except KeyboardInterrupt:  # a second Ctrl-C: the next --resume sees a dead owner
        stop = StopReason.INTERRUPTED
    return Outcome(stop, progress, store.params())


def _search(
    store: Store,
    settings: Settings,
    progress: Progress,
    deadline: float | None,
    on_progress: Callable[[Progress], None] | None,
) -> StopReason:
    if on_progress:
        on_progress(progress)
    sizes = _build(settings, progress, deadline, on_progress)
    if sizes is None:
        return StopReason.TIME_LIMIT
    store.set_params({"units_total": len(sizes), "candidates_total": sum(sizes)})
    done = store.done_units()
    progress.units_total, progress.candidates_total = len(sizes), sum(sizes)
    progress.units_done = len(done)
    progress.candidates_done = progress.resumed_from = sum(sizes[u] for u in done if u < len(sizes))
    progress.judged, progress.found = store.totals()
    progress.phase = "searching"
    progress.searching_since = time.monotonic()
    if on_progress:
        on_progress(progress)
    pending = [u for u in range(len(sizes)) if u not in done]
    if deadline is not None and time.time() >= deadline and pending:
        return StopReason.TIME_LIMIT
    for result in _results(settings, pending, sizes, deadline, progress):
        progress.found += store.commit(result)
        progress.classified += result.found
        progress.judging += result.judging
        progress.classifying += result.classifying
        progress.judged_now += result.judged
        if result.complete:
            progress.units_done += 1
            progress.candidates_done += sizes[result.unit]
            progress.judged += result.judged
        if on_progress:
            on_progress(progress)
    return StopReason.EXHAUSTED if progress.units_done >= progress.units_total else StopReason.TIME_LIMIT


def _build(
    settings: Settings, progress: Progress, deadline: float | None, on_progress: Callable[[Progress], None] | None
) -> list[int] | None:
    """The units' sizes (building the space), or None if the deadline passed
    first: a watcher thread reports progress every second while the space is
    built and, at the deadline, interrupts the build (`interrupt_main`, which
    raises only through Python's default SIGINT handler: installed for the
    build, since a caller may hold another, e.g. `progress.cli`'s deferring one
    left by its import)."""
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler) if in_main else None
    finished = threading.Event()
    lock = threading.Lock()

    def watch() -> None:
        while not finished.wait(1.0):
            with lock:
                if finished.is_set():
                    return
                if deadline is not None and time.time() >= deadline:
                    progress.deadline_hit = True
                    _thread.interrupt_main()
                    return
            if on_progress:
                on_progress(progress)

    watcher = threading.Thread(target=watch, name="space-watch", daemon=True)
    watcher.start()
    try:
        sizes = unit_sizes(settings.engine, settings.bounds, settings.unit_size)
    except KeyboardInterrupt:
        if progress.deadline_hit:
            return None
        raise
    finally:
        with lock:
            finished.set()
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return sizes


def _results(
    settings: Settings, pending: list[int], sizes: list[int], deadline: float | None, progress: Progress
) -> Iterable[UnitResult]:
    if settings.engine == "cuda":
        from .cuda_run import run_cuda  # CuPy is imported only when asked for

        return run_cuda(settings, pending, deadline, progress)
    if settings.scheduler:
        from .distributed import run_distributed  # dask is imported only when asked for

        return run_distributed(settings, pending, sizes, deadline, progress)
    if settings.workers > 1:
        from .pool import run_pool

        return run_pool(settings, pending, sizes, deadline, progress)
    return _local(settings, pending, deadline)


def _local(settings: Settings, pending: list[int], deadline: float | None) -> Iterator[UnitResult]:
    for unit in pending:
        results = run_units(settings.engine, settings.bounds, [unit], deadline, settings.throttle, settings.unit_size)
        yield from results
        if not results or not results[-1].complete:
            return


def space_summary(bounds: Bounds, unit_size: int = UNIT_SIZE, engine: str = DEFAULT_ENGINE) -> dict:
    """Sizes of the space: constraint-4 programs, canonical ones, left after static
    pruning (None where the engine counts them only as it judges: `compiled`)."""
    return space_sizes(engine, bounds, unit_size)
