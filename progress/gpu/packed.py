"""The test x heuristic loop for the interpreter: tests encoded, packed, many per launch.

`run_packed` cuts the tests into batches (`pack.batches`: consecutive tests
of one thread count, as many as fit `max_workgroups` under the largest
launch), and runs each batch under each heuristic as one pack: `iterations`
launches of K tests at once. It yields the batch's outcomes test by test
(every heuristic of a test together) once the batch is done, so the CLI can
write rows as they come.

`stop_early` (`--stop-early`) stops a test under a heuristic once it has
both passed and failed an iteration: its class, nondeterministic F (k/n)
with 0 < k < n, cannot change with more iterations (P needs every
iteration to pass and deterministic F every one to fail; docs/gpu.md,
"Stopping early"). Decided tests leave the pack's later launches (their
workgroups return at once); the outcome has the iterations that ran.
Without it every launch of a pack is queued at once (one host wait).

An outcome's `seconds` is its pack's time divided by the tests in it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Protocol

from progress.gpu.encode import Encoded
from progress.gpu.heuristics import geometry
from progress.gpu.pack import LAYOUTS, Buffers, Pack, batches, buffers
from progress.gpu.runner import Outcome, Settings

STOP_EARLY_RULE = (
    "a test stops under a heuristic after the first iteration that leaves it with both a passed and a failed "
    "iteration (nondeterministic F (k/n), 0 < k < n: more iterations cannot make it P or F (N/N)); "
    "P and deterministic F run every iteration"
)


class PackedBackend(Protocol):
    """What `run_packed` needs: `load` a pack's buffers, `launch` iterations of
    it ([iteration][test] failed instances; tests with a false `active` flag
    do not run). A backend may also have `layouts` (heuristic -> pack layout;
    default `pack.LAYOUTS`)."""

    name: str
    pack_workgroups: int

    def auto_instances(self, threads: int) -> int: ...

    def load(self, pack: Pack, buffers: Buffers) -> object: ...

    def launch(self, loaded, iterations: int, deadline_s: float, active: list[int]) -> list[list[int]]: ...


def layouts(backend: PackedBackend) -> dict[str, str]:
    """Each heuristic's pack layout on `backend`: its `layouts` if it has one, else `pack.LAYOUTS`."""
    return getattr(backend, "layouts", LAYOUTS)


def instances(backend: PackedBackend, settings: Settings, threads: int) -> int:
    return settings.instances if settings.instances is not None else backend.auto_instances(threads)


def largest_launch(backend: PackedBackend, settings: Settings, threads: int) -> int:
    """The most workgroups one test of `threads` threads needs under the run's heuristics."""
    m = instances(backend, settings, threads)
    return max(geometry(h, threads, m).workgroups for h in settings.heuristics)


ONE_TEST = 1
"""`--pack 1`: one test per launch, whatever its size (the per-test launches rr's livelocks need)."""


def plan(backend: PackedBackend, tests: Sequence[Encoded], settings: Settings, max_workgroups: int) -> list[range]:
    """The batches `run_packed` will run (ValueError if a test alone does not fit);
    `max_workgroups` ONE_TEST: every test alone."""
    if max_workgroups == ONE_TEST:
        return [range(i, i + 1) for i in range(len(tests))]
    sizes: dict[int, int] = {}

    def per_test(n: int) -> int:
        if n not in sizes:
            sizes[n] = largest_launch(backend, settings, n)
        return sizes[n]

    return batches([t.threads for t in tests], per_test, max_workgroups)


def run_packed(
    backend: PackedBackend,
    tests: Sequence[Encoded],
    settings: Settings,
    max_workgroups: int,
    stop_early: bool = False,
) -> Iterator[tuple[int, str, Outcome]]:
    """(test index, heuristic, outcome) for every test and heuristic, batch by batch."""
    for batch in plan(backend, tests, settings, max_workgroups):
        chosen = [tests[i] for i in batch]
        found: dict[str, list[Outcome]] = {}
        for heuristic in settings.heuristics:
            n = chosen[0].threads
            m = instances(backend, settings, n) if heuristic != "plain" else 1
            pack = Pack(heuristic, n, m, len(chosen), layouts(backend)[heuristic])
            start = time.perf_counter()
            failed = _iterate(backend, backend.load(pack, buffers(chosen, m)), pack, settings, stop_early)
            share = (time.perf_counter() - start) / len(chosen)
            found[heuristic] = [Outcome(pack.launch, tuple(f), share) for f in failed]
        for k, index in enumerate(batch):
            for heuristic in settings.heuristics:
                yield index, heuristic, found[heuristic][k]


def _iterate(backend: PackedBackend, loaded, pack: Pack, settings: Settings, stop_early: bool) -> list[list[int]]:
    """Failed instances per test, one entry per iteration it ran."""
    if not stop_early:
        counts = backend.launch(loaded, settings.iterations, settings.deadline_s, [1] * pack.tests)
        return [[row[k] for row in counts] for k in range(pack.tests)]
    runs: list[list[int]] = [[] for _ in range(pack.tests)]
    active = [1] * pack.tests
    for _ in range(settings.iterations):
        (row,) = backend.launch(loaded, 1, settings.deadline_s, active)
        for k in range(pack.tests):
            if active[k]:
                runs[k].append(row[k])
                if any(runs[k]) and not all(runs[k]):
                    active[k] = 0
        if not any(active):
            break
    return runs
