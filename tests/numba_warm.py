"""Compile the numba code once per suite, not once per pytest-xdist worker.

A fresh checkout's cache is empty, and each worker compiled every kernel the
first time one of its tests needed it: both workers, and often a `progress`
child too, compiled the same code at once (about a minute of CPU per worker,
docs/results/suite_time.md). Here, before the first test, the compiled code
is split into four groups, each compiled by running a small real workload
through the public entry points, which saves it in the workers' shared cache
(tests/conftest.py). The workers share the groups out by their compile time
(worker i compiles its own groups first, each under an exclusive lock), then
takes each other group's lock in turn, waiting while its owner compiles it,
and runs its workload too: a load from the cache, a fraction of a second (or
the compile, where its owner had not begun it). So the tests start with
every group in the cache, and the worker or `progress` child that runs one
loads it. Only the order in which code gets compiled changes,
not what any test runs or checks; a signature no workload here reaches is
compiled by its first test, as before.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _scale() -> None:
    """progress/core/explore_jit.py (the large-test checker, with lassos and a lift)."""
    import families

    from progress.core import scale
    from progress.core.analyze import queries_for
    from progress.core.registry import all_models
    from progress.front.axb.parse import parse_program

    asks = [(q.model, q.fairness == "strong") for q in queries_for(all_models())]
    body = "  AXB(y, 1, 0, true, 0)\n  AXB(x, 0, 2, true, 0)\n  AXB(y, 0, 0, true, 0)\n"
    texts = [families.FAMILIES[name](3) for name in sorted(families.FAMILIES)]
    for text in texts + [f"thread 0\n{body}thread 1\n{body}"]:  # the last needs a lift (test_scale)
        scale.check_large(parse_program(text, "warm.axb"), asks, witnesses=True)


def _judge() -> None:
    """synth/fast_judge.py and synth/lanes.py (the compiled synthesis judge)."""
    from progress.synth.fast_judge import judge_unit
    from progress.synth.space import Bounds

    judge_unit(Bounds(2, 3), 0)


def _kernel() -> None:
    """progress/core/kernel_jit.py and kernel_decide.py (the compiled kernel checker)."""
    from progress.cli.kernel import kernel_system
    from progress.core.analyze import check_system, queries_for
    from progress.core.registry import all_models
    from progress.front.header import LaunchSettings

    kernel = kernel_system(REPO / "litmus" / "kernels" / "ticket_lock.comp", LaunchSettings())
    check_system(kernel, queries_for(all_models()), engine="compiled")


def _batch() -> None:
    """progress/core/fastcheck.py (the batch classifier)."""
    from progress.core.analyze import queries_for
    from progress.core.batch import verdicts
    from progress.core.registry import all_models
    from progress.front.axb.parse import parse_program

    program = parse_program("thread 0\n  AXB(x, 0, 0, false, 0)\nthread 1\n  AXB(x, 1, 1, true, 1)\n", "warm.axb")
    verdicts([program], queries_for(all_models()))


GROUPS: dict[str, tuple[float, Callable[[], None], frozenset[str]]] = {
    # name: (seconds of CPU to compile it cold, measured 2026-12-02 (numba's compile events); the workload;
    # the test files that need it)
    "scale": (15.0, _scale, frozenset({"test_scale.py"})),
    "judge": (16.0, _judge, frozenset({"test_synth_compiled.py", "test_synth_cli.py"})),
    "kernel": (20.0, _kernel, frozenset({"test_kernel_decide.py", "test_kernel_reduce.py"})),
    "batch": (8.5, _batch, frozenset({"test_batch.py", "test_classify_batch.py"})),
}


def shares(names: list[str], workers: int) -> list[list[str]]:
    """`names` (of GROUPS) dealt to `workers` workers, the longest first, each to the least loaded."""
    dealt: list[list[str]] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for name in sorted(names, key=lambda n: -GROUPS[n][0]):
        least = load.index(min(load))
        dealt[least].append(name)
        load[least] += GROUPS[name][0]
    return dealt


def warm(test_files: set[str], worker: int, workers: int, locks: Path) -> list[str]:
    """Compile (or load) the groups the collected `test_files` need, as the
    module docstring says; the groups this worker ran, in order."""
    wanted = [name for name, (_, _, users) in GROUPS.items() if users & test_files]
    mine = shares(wanted, workers)[worker]
    ran = []
    for name in mine + [n for n in wanted if n not in mine]:
        with open(locks / f".warm-{name}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
            GROUPS[name][1]()
            ran.append(name)
    return ran


def worker_slot() -> tuple[int, int] | None:
    """(this worker's number, the number of workers) under pytest-xdist, else None."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not worker.startswith("gw") or count < 2:
        return None
    return int(worker[2:]), count
