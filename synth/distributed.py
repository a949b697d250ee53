"""Run work units on an existing Dask cluster (`synth --scheduler ADDRESS`:
`dask scheduler` + `dask worker` processes, on one machine or many). The
only module that imports dask; local workers (`--workers N`) are forked by
synth/pool.py instead, without Dask's start-up.

Contracts:
- What travels to a worker is the space's description (engine, bounds,
  unit size) and a shard's unit ids, never candidates; each worker builds
  the space once (work.space_for is cached per process). What comes back is
  each unit's tests in the store's form (`UnitResult.packed`).
- Shards are cut by `shards.Planner` (about `Settings.shard_seconds` of
  work each, measured from the units already done), so scheduling costs a
  few milliseconds against seconds of work; two shards per worker are kept
  in flight, so a worker never waits while the driver commits.
- The driver commits results as they arrive; tests are keyed canonically,
  so the stored set, hence the export, does not depend on the shards, their
  order, or the number of workers.
- A worker lost mid-shard (killed, machine gone): the scheduler gives its
  shards to another worker; units are only marked done when their results
  arrive, so nothing is lost and nothing counted twice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from dask.distributed import Client, as_completed

from .shards import IN_FLIGHT_PER_WORKER, Planner
from .store import UnitResult
from .work import run_packed


def run_distributed(
    settings, pending: list[int], sizes: list[int], deadline: float | None, progress
) -> Iterator[UnitResult]:
    """Results of every pending unit, shard by shard as workers finish them."""
    logging.getLogger("distributed").setLevel(logging.ERROR)
    client = None
    try:
        client = Client(settings.scheduler, timeout=10)
        planner = Planner(pending, sizes, settings.shard_seconds)
        running = as_completed()

        def workers() -> int:
            count = sum(client.nthreads().values())
            progress.workers = count
            return max(1, count)

        def submit() -> bool:
            units = planner.shard(workers())
            if not units:
                return False
            running.add(
                client.submit(
                    run_packed,
                    settings.engine,
                    settings.bounds,
                    units,
                    deadline,
                    settings.throttle,
                    settings.unit_size,
                    pure=False,
                )
            )
            return True

        for _ in range(IN_FLIGHT_PER_WORKER * workers()):
            if not submit():
                break
        for future in running:
            results = future.result()
            progress.shards += 1
            for result in results:
                planner.learn(result)
            yield from results
            if deadline is None or time.time() < deadline:
                while running.count() < IN_FLIGHT_PER_WORKER * workers() and submit():
                    pass
    finally:
        if client is not None:
            client.close()
