"""Run work units on Dask: a LocalCluster of N worker processes, or an
existing scheduler (`dask scheduler` + `dask worker` processes, on one
machine or many). The only module that imports dask.

Contracts:
- What travels to a worker is the space's description (engine, bounds,
  unit size) and a shard's unit ids, never candidates; each worker builds
  the space once (work.space_for is cached per process).
- Shards are runs of consecutive pending units sized so that one holds about
  `Settings.shard_seconds` of work, measured from the units already done
  (the first shards are single units), so scheduling costs a few
  milliseconds against seconds of work; near the end shards shrink so every
  worker stays busy. Two shards per worker are kept in flight, so a worker
  never waits while the driver commits.
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

from dask.distributed import Client, LocalCluster, as_completed

from .store import UnitResult
from .work import run_units

IN_FLIGHT_PER_WORKER = 2
SHARD_GROWTH = 8  # at most this factor larger than the previous shard


class Planner:
    """Cuts pending units into shards of about `seconds` of work each."""

    def __init__(self, pending: list[int], sizes: list[int], seconds: float):
        self.pending = pending
        self.sizes = sizes
        self.seconds = seconds
        self.next = 0
        self.left = sum(sizes[u] for u in pending)  # candidates not yet handed out
        self.spent = 0.0  # worker seconds over the units done
        self.measured = 0  # candidates in those units
        self.largest = 1  # units in the largest shard so far

    def learn(self, result: UnitResult) -> None:
        if result.complete:
            self.spent += result.judging + result.classifying
            self.measured += self.sizes[result.unit]

    def shard(self, workers: int) -> list[int]:
        """The next shard (empty when everything was handed out)."""
        if self.next >= len(self.pending):
            return []
        if self.measured == 0 or self.spent <= 0:
            want = 1  # nothing measured yet: one unit
        else:
            per_candidate = self.spent / self.measured
            budget = self.seconds / per_candidate
            budget = min(budget, self.left / max(1, 2 * workers))  # the tail: keep every worker busy
            want = 0
            candidates = 0
            while self.next + want < len(self.pending) and (want == 0 or candidates < budget):
                candidates += self.sizes[self.pending[self.next + want]]
                want += 1
            want = min(max(1, want), self.largest * SHARD_GROWTH)
        units = self.pending[self.next : self.next + want]
        self.next += len(units)
        self.largest = max(self.largest, len(units))
        self.left -= sum(self.sizes[u] for u in units)
        return units


def run_distributed(
    settings, pending: list[int], sizes: list[int], deadline: float | None, progress
) -> Iterator[UnitResult]:
    """Results of every pending unit, shard by shard as workers finish them."""
    logging.getLogger("distributed").setLevel(logging.ERROR)
    cluster = None
    client = None
    try:
        if settings.scheduler:
            client = Client(settings.scheduler, timeout=10)
        else:
            cluster = LocalCluster(
                n_workers=settings.workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
            client = Client(cluster)
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
                    run_units,
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
        if cluster is not None:
            cluster.close()
