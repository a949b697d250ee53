"""Cutting pending units into shards for worker processes (local pool or Dask).

Contract: a `Planner` hands out runs of consecutive pending units, each about
`seconds` of work as measured from the units already done (the first shards
are single units, and a shard grows at most SHARD_GROWTH-fold over the
largest before it), so scheduling a shard (milliseconds) stays well under 5%
of its work; near the end shards shrink so that every worker stays busy.
A shard is also cut to about SHARD_TESTS tests at the densest rate of tests
per candidate seen so far: a worker holds and sends its shard's tests at
once, and on 2t6i a shard cut by time alone held enough of them to take a
worker past 1 GB.
Which units go in which shard never changes what is stored: tests are keyed
canonically.
"""

from __future__ import annotations

from .store import UnitResult

IN_FLIGHT_PER_WORKER = 2
"""Shards queued per worker, so a worker never waits while the driver commits."""
SHARD_GROWTH = 8
"""A shard holds at most this factor more units than the largest before it."""
SHARD_TESTS = 200_000
"""Tests a shard should hold at most (at the densest rate seen): tens of MB in a worker."""


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
        self.densest = 0.0  # most tests per candidate in a unit done

    def learn(self, result: UnitResult) -> None:
        if result.complete:
            self.spent += result.judging + result.classifying
            self.measured += self.sizes[result.unit]
            self.densest = max(self.densest, result.found / max(1, self.sizes[result.unit]))

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
            if self.densest > 0:
                budget = min(budget, SHARD_TESTS / self.densest)
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
