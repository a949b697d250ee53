"""Shared fixtures: where the repository and the published suite live; the
reference synthesis export the synth tests compare with. Under pytest-xdist,
the workers' numba cache (below)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
OOPSLA = REPO / "litmus" / "oopsla21"
"""The OOPSLA'21 suite, shipped with the project (litmus/oopsla21/README.md)."""


def _write_bytecode() -> None:
    """Let this process and the `progress` processes the tests start write and
    reuse .pyc files. Where PYTHONDONTWRITEBYTECODE is set (this workplace sets
    it), every subprocess compiled every module it imports again: about 0.1 s
    of each of the suite's hundreds of `progress` runs. Only where the bytes
    are cached changes, not what runs."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


_write_bytecode()


def _hear_sigint() -> None:
    """Run in a background job (`cmd &` from a script), the suite starts with
    SIGINT ignored, which every child inherits: then each test that sends a
    `progress` child SIGINT saw it carry on (5 failed so on 2026-12-02).
    Python's own handler here makes the children start with SIGINT's
    default, as at a terminal."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


_hear_sigint()


def _numba_cache_for_workers() -> None:
    """Give the pytest-xdist workers (and the processes their tests start) one
    numba cache of their own, shared between them, in
    `<per-user cache>/numba-tests/shared`: made 0700 and checked by
    progress.cache like every cache the tool trusts, and kept between runs.

    Sharing is safe because progress.jit serializes numba's cache saves
    (`serialize_cache_saves`, tested in tests/test_jit_cache.py): two
    processes saving two signatures of one function at the same moment could
    otherwise leave the index naming the other's code. Each worker had its
    own cache before, and a fresh checkout compiled every kernel once per
    worker. One process (`-n0`) keeps numba's default, `__pycache__` beside
    the source. Runs at import, before anything imports numba.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker or "NUMBA_CACHE_DIR" in os.environ:
        return
    from progress.cache import cache_root, private_dir

    directory = private_dir(cache_root())
    for part in ("numba-tests", "shared"):  # each level made 0700 and checked (mkdir's parents are not)
        directory = private_dir(directory / part)
    os.environ["NUMBA_CACHE_DIR"] = str(directory)


_numba_cache_for_workers()


def pytest_xdist_auto_num_workers(config) -> int | None:
    """How many workers `-n auto` (pyproject's addopts) starts: one per CPU this
    process may run on (`os.sched_getaffinity`, so taskset and cpusets count).
    pytest-xdist's own answer is psutil's count of physical cores, which gives
    one worker on a machine whose 2 CPUs are the two threads of one core, or
    the host's count in a container pinned to fewer. PYTEST_XDIST_AUTO_NUM_WORKERS
    still decides when set (None hands over to pytest-xdist, which reads it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no sched_getaffinity (macOS)
        return os.cpu_count() or 1


def progress_command() -> list[str]:
    """The console script this interpreter's install made (beside sys.executable), else the same
    entry point through this Python: never whatever `progress` comes first on PATH, which may be
    another install."""
    script = Path(sys.executable).parent / "progress"
    return [str(script)] if script.is_file() else [sys.executable, "-c", "from progress.cli import main; main()"]


@pytest.fixture(scope="session")
def oopsla_dir() -> Path:
    """The OOPSLA'21 suite shipped in litmus/oopsla21."""
    assert OOPSLA.is_dir(), f"the published suite is missing: {OOPSLA}"
    return OOPSLA


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


def default_sigint() -> None:
    """A child's preexec_fn: Ctrl-C as at a terminal, even when the tests run in a
    background job (whose shell left SIGINT ignored, which Python keeps)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def file_tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` (relative path -> bytes)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def reference(tmp_path_factory) -> dict[str, bytes]:
    """An uninterrupted single-process run of 2t3i with the default engine (compiled), exported
    (synth tests compare with it)."""
    from progress.cli import main

    root = tmp_path_factory.mktemp("reference")
    with pytest.raises(SystemExit) as stop:
        main(["synth", "-t", "2", "-i", "3", "--out", str(root / "run.db"), "--export", str(root / "export")])
    assert stop.value.code == 0
    return file_tree(root / "export")


def agreement_settings() -> dict:
    """`settings` of a derandomized agreement property: the same examples every
    run, no deadline or example database, every health check off."""
    from hypothesis import HealthCheck

    return {"derandomize": True, "deadline": None, "database": None, "suppress_health_check": list(HealthCheck)}


def long_twin(body, strategies: tuple | dict, suite: int, full: int, **options):
    """A hypothesis property run twice: (the suite's test, at `suite` examples;
    its `long`-marked twin at `full`, which benchmarks/long_tests.py runs).
    `strategies` are `given`'s (a tuple, or a dict of keyword strategies);
    `options` the other `settings`. With `derandomize`, both draw from the same
    seed (the body's), so the suite runs a smaller sample of the same property:
    assign the pair to `test_NAME, test_NAME_in_full`."""
    from hypothesis import given, settings

    def run(examples: int):
        draw = given(**strategies) if isinstance(strategies, dict) else given(*strategies)
        return settings(max_examples=examples, **options)(draw(body))

    return run(suite), pytest.mark.long(run(full))


def pytest_collection_finish(session) -> None:
    """Under pytest-xdist, the workers share out the numba compile before the
    first test (tests/numba_warm.py): each kernel compiled once per suite, not
    once per worker."""
    import numba_warm

    slot = numba_warm.worker_slot()
    if slot is None or not session.items:
        return
    from progress import jit

    locks = jit.cache_dir()
    if locks is None:
        return
    files = {item.path.name for item in session.items}
    numba_warm.warm(files, *slot, locks)
