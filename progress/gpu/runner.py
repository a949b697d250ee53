"""Run tests on a backend under the launch heuristics: the loop both backends share.

A backend compiles a list of programs (`prepare`) and runs the k-th one under
one launch geometry for some iterations (`run`), returning how many
instances failed (had a thread time out) in each iteration. This module
turns that into `Outcome`s, test by test, as they arrive; it does no I/O.
An iteration fails if any instance failed in it; a test passes under a
heuristic (`P`) iff no iteration failed, else it is `F (k/N)`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from ..errors import EXIT_INCONCLUSIVE, EXIT_USAGE, ProgressError
from ..program import Program
from .heuristics import HEURISTICS, Geometry, geometry


class DeviceHang(ProgressError):
    """A launch outlived the host's wall-clock guard (exit 3): the device-side
    deadline did not stop it. Results written so far are kept."""

    exit_code = EXIT_INCONCLUSIVE


class BackendUnavailable(ProgressError):
    """The backend cannot run here (no CuPy/GPU, no C compiler) (exit 2)."""

    exit_code = EXIT_USAGE


class Backend(Protocol):
    name: str

    def auto_instances(self, threads: int) -> int: ...

    def prepare(self, programs: list[Program]) -> None: ...

    def run(self, index: int, launch: Geometry, iterations: int, deadline_s: float) -> tuple[int, ...]: ...

    def metadata(self) -> dict: ...


@dataclass(frozen=True)
class Settings:
    """What a run does: heuristics (in `HEURISTICS` order), iterations, the
    deadline in seconds, and the instance count (None: the backend's auto)."""

    heuristics: tuple[str, ...] = HEURISTICS
    iterations: int = 20
    deadline_s: float = 0.05
    instances: int | None = None


@dataclass(frozen=True)
class Outcome:
    """One test under one heuristic: failed instances per iteration."""

    launch: Geometry
    failed_instances: tuple[int, ...]
    seconds: float

    @property
    def iterations(self) -> int:
        return len(self.failed_instances)

    @property
    def failed_iterations(self) -> int:
        return sum(1 for count in self.failed_instances if count)


def instances_for(backend: Backend, settings: Settings, threads: int) -> int:
    """M for an N-thread test: the setting, or the backend's automatic choice."""
    return settings.instances if settings.instances is not None else backend.auto_instances(threads)


def run_tests(backend: Backend, programs: list[Program], settings: Settings) -> Iterator[tuple[int, str, Outcome]]:
    """(test index, heuristic, outcome) for every test and heuristic, in order.

    `backend.prepare(programs)` must have been called.
    """
    for index, program in enumerate(programs):
        threads = len(program.threads)
        for heuristic in settings.heuristics:
            launch = geometry(heuristic, threads, instances_for(backend, settings, threads))
            start = time.perf_counter()
            failed = backend.run(index, launch, settings.iterations, settings.deadline_s)
            yield index, heuristic, Outcome(launch, tuple(failed), time.perf_counter() - start)


def parse_heuristics(text: str) -> tuple[str, ...]:
    """`plain,rr,chunked` -> the named heuristics in canonical order."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in HEURISTICS]
    if unknown or not names:
        raise ValueError(f"unknown heuristic(s) {', '.join(unknown) or '(none)'}; choose from {','.join(HEURISTICS)}")
    return tuple(h for h in HEURISTICS if h in names)


def parse_duration(text: str) -> float:
    """`1s`, `300ms`, `20us`, `0.3` (seconds) -> seconds, > 0."""
    raw = text.strip().lower()
    for suffix, scale in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("s", 1.0)):
        if raw.endswith(suffix):
            raw, factor = raw[: -len(suffix)], scale
            break
    else:
        factor = 1.0
    try:
        value = float(raw) * factor
    except ValueError:
        raise ValueError(f"not a duration: {text!r} (try 1s, 300ms)") from None
    if not value > 0:
        raise ValueError(f"a deadline must be positive: {text!r}")
    return value
