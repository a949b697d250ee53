"""Run tests on a backend under the launch heuristics: the loop both backends share.

A backend compiles a list of programs (`prepare`) and runs the k-th one under
one launch geometry for some iterations (`run`), returning how many
instances failed (had a thread time out) in each iteration. This module
turns that into `Outcome`s, test by test, as they arrive; it does no I/O.
An iteration fails if any instance failed in it; a test passes under a
heuristic (`P`) iff no iteration failed, else it is `F (k/N)`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from progress.core.program import Program
from progress.errors import EXIT_INCONCLUSIVE, EXIT_USAGE, ProgressError
from progress.gpu.heuristics import HEURISTICS, MAX_LAUNCH, Geometry, geometry

MAX_ITERATIONS = 2**31 - 1
"""Iterations are counted in a C `int` by the generated programs."""
MAX_INSTANCES = MAX_LAUNCH
"""Instances are an `unsigned int`, and N*M workgroups must fit a launch."""
MIN_DEADLINE_S, MAX_DEADLINE_S = 1e-6, 3600.0
"""A deadline is at least 1 us (the timers' useful resolution) and at most an hour."""
MAX_LAUNCH_S = 7 * 24 * 3600.0
"""iterations x deadline of one (test, heuristic) is at most a week, so the
host guard is a time-out the OS can wait for."""


class DeviceHang(ProgressError):
    """A launch outlived the host's wall-clock guard (exit 3): the device-side
    deadline did not stop it. Results written so far are kept."""

    exit_code = EXIT_INCONCLUSIVE


class BackendUnavailable(ProgressError):
    """The backend cannot run here (no CuPy/GPU, no C compiler) (exit 2)."""

    exit_code = EXIT_USAGE


class Backend(Protocol):
    """What `run_tests` needs of a backend. `max_workgroups` (optional, default
    `heuristics.MAX_LAUNCH`) is the most workgroups one launch may have."""

    name: str

    def auto_instances(self, threads: int) -> int: ...

    def prepare(self, programs: list[Program], progress: Callable[[int], None] | None = None) -> None:
        """Compile the programs; call `progress(done)` as they are compiled."""
        ...

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


def max_workgroups(backend: Backend) -> int:
    """The most workgroups `backend` can launch at once."""
    return getattr(backend, "max_workgroups", MAX_LAUNCH)


def check_launches(backend: Backend, programs: list[Program], settings: Settings) -> None:
    """ValueError naming the first test whose launch would not fit the backend
    (N x M workgroups beyond `max_workgroups`), before anything runs."""
    limit = max_workgroups(backend)
    for program in programs:
        threads = len(program.threads)
        for heuristic in settings.heuristics:
            launch = geometry(heuristic, threads, instances_for(backend, settings, threads))
            if launch.workgroups > limit:
                raise ValueError(
                    f"--instances {launch.instances}: test {program.name} has {threads} threads, so {heuristic} "
                    f"needs {launch.workgroups} workgroups; the {backend.name} backend launches at most {limit} "
                    f"(--instances at most {limit // threads} for it)"
                )


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
    """`1s`, `300ms`, `20us`, `500ns`, `1h` -> seconds, in [1 us, 1 h]. The unit is
    required: a bare `50` could mean 50 s or 50 ms (the default is `50ms`)."""
    raw = text.strip().lower()
    for suffix, scale in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("s", 1.0), ("h", 3600.0)):
        if raw.endswith(suffix):
            raw, factor = raw[: -len(suffix)].strip(), scale
            break
    else:
        if _is_number(raw):
            raise ValueError(f"a deadline needs a unit: {text}ms or {text}s? (units: h, s, ms, us, ns)")
        raise ValueError(f"not a duration: {text!r} (try 1s, 300ms)")
    if not _is_number(raw):
        raise ValueError(f"not a duration: {text!r} (try 1s, 300ms)")
    value = float(raw) * factor
    if not MIN_DEADLINE_S <= value <= MAX_DEADLINE_S:  # also NaN and infinity
        raise ValueError(f"a deadline is from 1us to 1h (3600s), not {text!r}")
    return value


def _is_number(text: str) -> bool:
    """A plain decimal number (no `inf`, `nan`, `_` or exponent games)."""
    return re.fullmatch(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", text) is not None


def check_settings(settings: Settings) -> None:
    """ValueError naming the option and its range when a setting does not fit
    the types the generated code uses (see the MAX_ constants)."""
    if not 1 <= settings.iterations <= MAX_ITERATIONS:
        raise ValueError(f"--iterations is from 1 to {MAX_ITERATIONS}, not {settings.iterations}")
    if settings.instances is not None and not 1 <= settings.instances <= MAX_INSTANCES:
        raise ValueError(f"--instances is auto or from 1 to {MAX_INSTANCES}, not {settings.instances}")
    if not MIN_DEADLINE_S <= settings.deadline_s <= MAX_DEADLINE_S:
        raise ValueError(f"a deadline is from 1us to 1h (3600s), not {settings.deadline_s} s")
    if settings.iterations * settings.deadline_s > MAX_LAUNCH_S:
        raise ValueError(
            f"--iterations {settings.iterations} x --deadline {settings.deadline_s:g}s is more than a week "
            "for one test and heuristic; lower one of them"
        )


def parse_instances(text: str) -> int | None:
    """`auto` -> None; a number from 1 to MAX_INSTANCES -> that number."""
    if text.strip() == "auto":
        return None
    raw = text.strip()
    if not re.fullmatch(r"[0-9]+", raw) or len(raw) > 12 or not 1 <= int(raw) <= MAX_INSTANCES:
        raise ValueError(f"--instances takes auto or a number from 1 to {MAX_INSTANCES}, not {text!r}")
    return int(raw)
