"""Run work units on N local worker processes forked from the driver
(`synth --workers N` without `--scheduler`; Dask is for other machines).

Contracts:
- The driver loads what a unit needs first (`work.warm_up`: the compiled
  kernels, the batch classifier's tables, enum's built space), then forks
  the workers, so they start in milliseconds with all of it shared
  copy-on-write, instead of a fresh interpreter each importing numba and
  loading kernels (a Dask LocalCluster's start-up, seconds per worker).
- What travels to a worker is the space's description (engine, bounds, unit
  size) and a shard's unit ids, never candidates; what comes back is each
  unit's tests in the store's form (`UnitResult.packed`: packed keys and
  verdict masks), so the driver only writes them.
- Shards are cut by `shards.Planner` (about `Settings.shard_seconds` of work
  each), IN_FLIGHT_PER_WORKER per worker queued, so workers never wait while
  the driver commits: the SQLite writes run in the driver beside the
  workers' searches, off their critical path.
- Results are yielded in completion order; the store keys tests canonically,
  so what is stored and exported does not depend on the shards, their order
  or the number of workers.
- Ctrl-C reaches the driver alone (workers ignore SIGINT): it stops handing
  out shards, waits for the few in flight (their results are dropped: their
  units are not marked done) and re-raises. A worker that dies (killed, out
  of memory) makes the run stop with `WorkerLost`; what was committed stays
  and `--resume` continues.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from progress.errors import EXIT_INTERNAL, ProgressError

from .shards import IN_FLIGHT_PER_WORKER, Planner
from .store import UnitResult
from .work import run_packed, warm_up


class WorkerLost(ProgressError):
    """A local worker process died mid-shard (exit 70, like any failure that is no verdict)."""

    exit_code = EXIT_INTERNAL


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _context():
    """fork where the platform has it (the point: inherit the loaded kernels); spawn elsewhere."""
    return multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")


def run_pool(settings, pending: list[int], sizes: list[int], deadline: float | None, progress) -> Iterator[UnitResult]:
    """Results of every pending unit, shard by shard as the workers finish them."""
    warm_up(settings.engine, settings.bounds, settings.unit_size)
    workers = settings.workers
    progress.workers = workers
    planner = Planner(pending, sizes, settings.shard_seconds)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=_ignore_sigint)
    running: set[Future] = set()

    def submit() -> bool:
        units = planner.shard(workers)
        if not units:
            return False
        args = (settings.engine, settings.bounds, units, deadline, settings.throttle, settings.unit_size)
        running.add(pool.submit(run_packed, *args))
        return True

    try:
        while len(running) < IN_FLIGHT_PER_WORKER * workers and submit():
            pass
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                running.discard(future)
                try:
                    results = future.result()
                except BrokenProcessPool:
                    raise WorkerLost(
                        "a worker process died; what was committed is kept (continue with --resume)"
                    ) from None
                progress.shards += 1
                for result in results:
                    planner.learn(result)
                yield from results
            while (
                (deadline is None or time.time() < deadline)
                and len(running) < IN_FLIGHT_PER_WORKER * workers
                and submit()
            ):
                pass
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
