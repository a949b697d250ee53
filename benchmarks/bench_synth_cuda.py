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


def markdown(result: dict) -> str:
    meta = result["meta"]
    lines = [
        "# The CUDA judge (`benchmarks/bench_synth_cuda.py`)",
        "",
        f"Machine: {meta['gpu']}, {meta['cpu_cores']} CPU cores; Python {meta['python']}; {meta['date']}. "
        "GPU: `synth/cuda_judge.py` (one kernel, candidates decoded from indices on the device, only the tests' "
        "indices copied back). CPU: `synth/fast_judge.py` (numba) on every core, one process per core, unit by unit. "
        "Times are wall-clock seconds of the judging alone (kernel compilation and numba loading excluded).",
        "",
        "## Agreement (every partition judged whole on the GPU, every unit on the CPU)",
        "",
        "| config | programs | judged | tests | GPU s | CPU s (all cores) | GPU / CPU | same tests and counts |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in result["agreement"]:
        ratio = r["cpu_seconds"] / r["gpu_seconds"] if r["gpu_seconds"] else float("nan")
        lines.append(
            f"| {r['config']} | {r['programs']:,} | {r['judged']:,} | {r['tests']:,} | {r['gpu_seconds']:.3f} "
            f"| {r['cpu_seconds']:.3f} | {ratio:.1f}x | {'yes' if r['agree'] else 'NO'} |"
        )
    lines += [
        "",
        "## Beyond (GPU: whole partitions while the time budget lasted; CPU: an evenly spread sample of units)",
        "",
        "| config | programs | GPU covered | GPU judged | GPU tests | GPU s | GPU programs/s | CPU programs/s "
        "(all cores) | GPU / CPU |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["beyond"]:
        cpu = r["cpu_sample"]["raw_per_second"]
        gpu = r["gpu_raw_per_second"]
        covered = "all" if r["complete"] else f"{r['gpu_covered'] / r['programs']:.1%}"
        lines.append(
            f"| {r['config']} | {r['programs']:,} | {covered} | {r['gpu_judged']:,} | {r['gpu_tests']:,} "
            f"| {r['gpu_seconds']:.1f} | {gpu:,.0f} | {cpu:,.0f} | {gpu / cpu:.1f}x |"
        )
    cores = meta["cpu_cores"]
    for r in result["beyond"]:
        full = r.get("cpu_complete")
        if full:
            lines.append(
                f"\n{r['config']} judged whole on the CPU too: {full['seconds']:.1f} s on all {cores} cores "
                f"({full['judged']:,} judged, {full['tests']:,} tests): "
                f"{'the same tests and counts as the GPU' if full['agree'] else 'DIFFERENT from the GPU'}; "
                f"GPU {full['seconds'] / full.get('gpu_seconds_same_call', r['gpu_seconds']):.1f}x faster."
            )
        cpu = r["cpu_sample"]["raw_per_second"]
        lines.append(
            f"\n{r['config']}: the CPU judge would need about {r['programs'] / cpu:,.0f} s on all {cores} cores "
            f"({r['programs'] / cpu * cores / 3600:.1f} core-hours); the GPU judged "
            f"{r['gpu_judged'] / max(r['gpu_seconds'], 1e-9):,.0f} candidates/s, the CPU "
            f"{r['cpu_sample']['judged'] / r['cpu_sample']['seconds'] / cores:,.0f} per core (a sample of "
            f"{r['cpu_sample']['units']} units in {r['cpu_sample']['seconds']:.2f} s: too short to keep 16 processes "
            "busy, so a low estimate of the CPU; the agreement rows judge every unit)."
        )
    lines += [
        "",
        "A complete row's test count is the number of tests of that configuration (judged only: not classified). "
        "Rates are programs (raw indices, constraint 4, every location naming) covered per second, "
        "the same work on both sides.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--budget", type=float, default=200.0, help="seconds for the whole run (phase 2 stops)")
    parser.add_argument("--only-beyond", action="store_true", help="skip the agreement phase")
    parser.add_argument("--cpu-complete", action="store_true", help="also judge 2t6i/3t6i whole on the CPU and compare")
    parser.add_argument("--render", metavar="JSON", help="only write synth_cuda.md from an earlier synth_cuda.json")
    args = parser.parse_args()
    if args.render:
        Path(args.out, "synth_cuda.md").write_text(markdown(json.loads(Path(args.render).read_text())))
        return
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
        (out / "synth_cuda.md").write_text(markdown(result))

    # the compiled code loads in the parent first, so forked workers inherit it
    t0 = time.perf_counter()
    fast_judge.judge_unit(Bounds(2, 3), 0)
    result["meta"]["numba_load_seconds"] = time.perf_counter() - t0
    pool = multiprocessing.get_context("fork").Pool(os.cpu_count())
    for bounds in [] if args.only_beyond else UP_TO_5:
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
    for left, bounds in zip(range(len(BEYOND), 0, -1), BEYOND):
        deadline = time.time() + (began + args.budget - time.time()) / left  # the rest, shared fairly
        space = fast_judge.stream_space(bounds)
        row = {"config": name(bounds), "programs": space.raw_size, "partitions": []}
        # CPU, every core, an evenly spread sample of units
        sample = list(range(0, space.unit_count, max(1, space.unit_count // (2 * (os.cpu_count() or 1)))))
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
        gpu_found: dict[int, tuple[np.ndarray, int]] = {}
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
            gpu_found[p] = (indices, count)
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
        if args.cpu_complete and row["complete"]:
            cpu, seconds = cpu_all(pool, bounds, list(range(space.unit_count)))
            row["cpu_complete"] = {
                "seconds": seconds,
                "judged": sum(j for _, j in cpu.values()),
                "tests": sum(len(i) for i, _ in cpu.values()),
                "agree": all(
                    np.array_equal(gpu_found[p][0], cpu[p][0]) and gpu_found[p][1] == cpu[p][1]
                    for p in range(len(space.partitions))
                ),
            }
        del gpu_found
        result["beyond"].append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "partitions"}), flush=True)
        save()
    pool.close()
    result["meta"]["seconds"] = time.time() - began
    save()


if __name__ == "__main__":
    main()
