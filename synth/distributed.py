"""Run work units on Dask: a LocalCluster of N worker processes, or an
existing scheduler. The only module that imports dask.

Shards are fixed by the unit list alone (consecutive runs of SHARD_UNITS
pending units), never by the number of workers; every result is committed
by the driver in the order it arrives, and the store's canonical keys make
the final set independent of that order.
"""

from __future__ import annotations

from collections.abc import Iterator

from dask.distributed import Client, LocalCluster, as_completed

from .store import UnitResult
from .work import run_units

SHARD_UNITS = 2


def shards(pending: list[int], size: int = SHARD_UNITS) -> list[list[int]]:
    """Consecutive groups of `size` units, in order."""
    return [pending[i : i + size] for i in range(0, len(pending), size)]


def run_distributed(settings, pending: list[int], deadline: float | None) -> Iterator[UnitResult]:
    """Results of every pending unit, shard by shard as workers finish them."""
    cluster = None
    if settings.scheduler:
        client = Client(settings.scheduler)
    else:
        cluster = LocalCluster(n_workers=settings.workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        futures = [
            client.submit(
                run_units,
                settings.engine,
                settings.bounds,
                shard,
                deadline,
                settings.throttle,
                settings.unit_size,
                pure=False,
            )
            for shard in shards(pending)
        ]
        for future in as_completed(futures):
            yield from future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
