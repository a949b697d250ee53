"""The CUDA judge against the compiled CPU judge, on a GPU machine.

    python benchmarks/bench_synth_cuda.py --out DIR [--budget SECONDS]

1. Agreement: every partition of every configuration up to 2t5i and 3t5i
   (and small ones with 3 locations / 3 values) judged whole on the GPU and,
   unit by unit, by the CPU judge on every core (a fork pool); the sorted
   test indices and the judged counts must be equal. Both are timed.
2. Rates beyond: 2t6i and 3t6i on the GPU, whole partitions while the
   budget lasts (each partition in ranges of 2**31 indices), the CPU judge on
   every core over a sample of units for the same configuration.
Writes synth_cuda.json (and prints a summary) into --out, phase by phase, so
a run cut short still leaves what it measured.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import time
from pathlib import Path

import numpy as np

from progress.synth import cuda_judge, fast_judge
from progress.synth.space import Bounds

UP_TO_5 = [Bounds(t, i) for t in (1, 2, 3) for i in range(t, 6) if (t, i) != (1, 5)] + [
    Bounds(2, 3, locations=3),
    Bounds(3, 3, locations=3),
    Bounds(2, 3, values=3),
    Bounds(3, 3, values=3),
    Bounds(2, 2, locations=3, values=3),
    Bounds(2, 4, locations=3),
]
BEYOND = [Bounds(2, 6), Bounds(3, 6)]
RANGE = 1 << 31


def name(bounds: Bounds) -> str:
    extra = "" if (bounds.locations, bounds.values) == (2, 2) else f" L={bounds.locations} V={bounds.values}"
    return bounds.label + extra


def cpu_unit(job):
    bounds, unit = job
    space = fast_judge.stream_space(bounds)
    u = space.unit(unit)
    indices, judged = fast_judge.judge_range(space.table(u.partition), u.start, u.stop)
    return unit, indices, judged


def cpu_all(pool, bounds: Bounds, units: list[int]):
    """{partition: (sorted indices, judged)} over the given units, and the wall seconds."""
    space = fast_judge.stream_space(bounds)
    start = time.perf_counter()
    results = pool.map(cpu_unit, [(bounds, u) for u in units], chunksize=1)
    seconds = time.perf_counter() - start
    by_partition: dict[int, tuple[list, int]] = {}
    for unit, indices, judged in sorted(results, key=lambda r: r[0]):
        parts, count = by_partition.get(space.unit(unit).partition, ([], 0))
        by_partition[space.unit(unit).partition] = (parts + [indices], count + judged)
    return {p: (np.concatenate(parts), judged) for p, (parts, judged) in by_partition.items()}, seconds


def gpu_partition(table, deadline: float | None = None):
    """(sorted indices, judged, seconds, complete) over the whole partition, in ranges."""
    import cupy

    parts, judged, start = [], 0, time.perf_counter()
    for lo in range(0, table.size, RANGE):
        if deadline is not None and time.time() > deadline:
            return np.concatenate(parts) if parts else np.empty(0, np.int64), judged, time.perf_counter() - start, lo
        indices, count = cuda_judge.judge_range(table, lo, min(table.size, lo + RANGE))
        parts.append(indices)
        judged += count
    cupy.cuda.Device().synchronize()
    return np.concatenate(parts), judged, time.perf_counter() - start, table.size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--budget", type=float, default=200.0, help="seconds for the whole run (phase 2 stops)")
    args = parser.parse_args()
    began = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    result: dict = {
        "meta": {
            "gpu": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
            "cpu_cores": os.cpu_count(),
            "cpu": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        },
        "agreement": [],
        "beyond": [],
    }

    def save():
        (out / "synth_cuda.json").write_text(json.dumps(result, indent=2) + "\n")

    # the compiled code loads in the parent first, so forked workers inherit it
    t0 = time.perf_counter()
    fast_judge.judge_unit(Bounds(2, 3), 0)
    result["meta"]["numba_load_seconds"] = time.perf_counter() - t0
    pool = multiprocessing.get_context("fork").Pool(os.cpu_count())
    for bounds in UP_TO_5:
        space = fast_judge.stream_space(bounds)
        cpu, cpu_seconds = cpu_all(pool, bounds, list(range(space.unit_count)))
        row = {"config": name(bounds), "programs": space.raw_size, "agree": True, "gpu_seconds": 0.0}
        row["cpu_seconds"], judged, tests = cpu_seconds, 0, 0
        for p in range(len(space.partitions)):
            table = space.table(p)
            cuda_judge.judge_range(table, 0, min(table.size, 1 << 16))  # compile the kernel outside the timing
            indices, count, seconds, _ = gpu_partition(table)
            row["gpu_seconds"] += seconds
            expected, expected_judged = cpu.get(p, (np.empty(0, np.int64), 0))
            row["agree"] &= bool(np.array_equal(indices, expected) and count == expected_judged)
            judged += count
            tests += len(indices)
        row.update(judged=judged, tests=tests)
        result["agreement"].append(row)
        print(json.dumps(row), flush=True)
        save()
    deadline = began + args.budget
    for bounds in BEYOND:
        space = fast_judge.stream_space(bounds)
        row = {"config": name(bounds), "programs": space.raw_size, "partitions": []}
        # CPU, every core, an evenly spread sample of units
        sample = list(range(0, space.unit_count, max(1, space.unit_count // (8 * (os.cpu_count() or 1)))))
        cpu, cpu_seconds = cpu_all(pool, bounds, sample)
        raw = sum(space.unit(u).size for u in sample)
        row["cpu_sample"] = {
            "units": len(sample),
            "raw": raw,
            "judged": sum(j for _, j in cpu.values()),
            "seconds": cpu_seconds,
            "raw_per_second": raw / cpu_seconds,
        }
        judged = tests = covered = 0
        gpu_seconds = 0.0
        for p in range(len(space.partitions)):
            table = space.table(p)
            cuda_judge.judge_range(table, 0, min(table.size, 1 << 16))
            indices, count, seconds, done = gpu_partition(table, deadline)
            row["partitions"].append(
                {"lengths": list(space.partitions[p]), "raw": table.size, "covered": done, "tests": len(indices)}
            )
            judged += count
            tests += len(indices)
            covered += done
            gpu_seconds += seconds
            if done < table.size:
                break
        row.update(
            gpu_covered=covered,
            gpu_judged=judged,
            gpu_tests=tests,
            gpu_seconds=gpu_seconds,
            gpu_raw_per_second=covered / gpu_seconds if gpu_seconds else 0.0,
            complete=covered == space.raw_size,
        )
        result["beyond"].append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "partitions"}), flush=True)
        save()
    pool.close()
    result["meta"]["seconds"] = time.time() - began
    save()


if __name__ == "__main__":
    main()
