"""Do Dask workers pay for themselves? `progress synth` end to end (start,
space, search, classification, store, export) in one process and with
`--workers 2` (worker processes forked from the driver), in one run on the same machine, and
the two exports compared byte for byte.

    python benchmarks/bench_workers.py [--config 3t5i] [--engine ENGINE] [--workers 2] [--out docs/results]

Each run is a fresh `progress synth` process (interpreter start included);
wall time (and its split: start to the summary, then the export), CPU time
of the whole process tree (driver and workers) and the peak resident memory
of the largest process are recorded. The machine is
shared with other jobs: the load average is recorded with the results, and
each configuration is run --repeat times, the best kept. Writes
workers.md and workers.json into --out.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
from run_meta import run_meta

PROGRESS = [sys.executable, "-c", "from progress.cli import main; main()"]


def run(config: str, engine: str | None, workers: int, folder: Path, tag: str) -> dict:
    threads, instructions = re.fullmatch(r"(\d+)t(\d+)i", config).groups()
    out = folder / f"{tag}.db"
    export = folder / f"export-{tag}"
    command = [*PROGRESS, "synth", "-t", threads, "-i", instructions, "--out", str(out), "--export", str(export)]
    if engine:
        command += ["--engine", engine]
    if workers > 1:
        command += ["--workers", str(workers)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # A session of its own: with autogroup scheduling (Linux's default on desktops and this machine) CPU is
    # shared between sessions first, so a run must not share one with this script or anything else.
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert child.stdout is not None and child.stderr is not None
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.append(child.stderr.read()), daemon=True)
    reader.start()
    cpu = ProcessCpu(child.pid)
    cpu.start()
    lines = [child.stdout.readline()]  # the summary's first line: the search and the store are done
    searched = time.perf_counter() - start
    search_cpu = cpu.snapshot()
    lines.append(child.stdout.read())
    child.wait()
    reader.join()
    cpu.done.set()
    wall = time.perf_counter() - start
    stdout, stderr = "".join(lines), "".join(errors)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode}):\n{stderr[-2000:]}")
    tests = int(re.search(r"tests found: (\d+)", stdout).group(1))
    last = [line for line in stderr.splitlines() if line.startswith("progress:")][-1]
    return {
        "workers": workers,
        "wall_seconds": wall,
        "search_seconds": searched,  # start to the summary: space, search, classification, store
        "export_seconds": wall - searched,  # the summary and the export (the same work for any workers)
        "cpu_seconds": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "search_cpu_by_process": search_cpu,  # CPU seconds up to the summary: the driver, then each worker
        "peak_mb": after.ru_maxrss / 1024,
        "tests": tests,
        "last_progress_line": last,
        "export": str(export),
        "load_after": os.getloadavg(),
    }


class ProcessCpu(threading.Thread):
    """CPU seconds (user + system) of a process and of each descendant, sampled every 0.1 s
    (a worker's last sample is at most 0.1 s before it exits)."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.root = psutil.Process(pid)
        self.seen: dict[int, float] = {}
        self.done = threading.Event()
        self.lock = threading.Lock()

    def run(self) -> None:
        while not self.done.is_set():
            try:
                procs = [self.root, *self.root.children(recursive=True)]
            except psutil.Error:
                return
            for proc in procs:
                try:
                    times = proc.cpu_times()
                except psutil.Error:
                    continue
                with self.lock:
                    self.seen[proc.pid] = times.user + times.system
            self.done.wait(0.1)

    def snapshot(self) -> list[float]:
        """[driver, worker, worker, ...] CPU seconds so far."""
        try:
            times = self.root.cpu_times()
            with self.lock:
                self.seen[self.root.pid] = times.user + times.system
        except psutil.Error:
            pass
        with self.lock:
            driver = self.seen.get(self.root.pid, 0.0)
            others = sorted((v for k, v in self.seen.items() if k != self.root.pid and v > 0.05), reverse=True)
        return [round(driver, 2), *(round(v, 2) for v in others)]


def same(a: str, b: str) -> bool:
    """Two export trees with the same files, byte for byte."""
    left = sorted(p.relative_to(a) for p in Path(a).rglob("*") if p.is_file())
    right = sorted(p.relative_to(b) for p in Path(b).rglob("*") if p.is_file())
    if left != right:
        return False
    match, mismatch, errors = filecmp.cmpfiles(a, b, [str(p) for p in left], shallow=False)
    return not mismatch and not errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="3t5i")
    parser.add_argument("--engine", default=None, help="default: progress synth's default engine")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", default="docs/results")
    parser.add_argument("--render", action="store_true", help="only rewrite workers.md from workers.json")
    args = parser.parse_args()
    if args.render:
        result = json.loads((Path(args.out) / "workers.json").read_text())
        result["best"] = {int(k): v for k, v in result["best"].items()}
        (Path(args.out) / "workers.md").write_text(markdown(result, args.workers))
        return
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        best: dict[int, dict] = {}
        for attempt in range(args.repeat):
            for workers in (1, args.workers) if attempt % 2 == 0 else (args.workers, 1):
                row = run(args.config, args.engine, workers, Path(folder), f"w{workers}-{attempt}")
                print(json.dumps(row), file=sys.stderr, flush=True)
                if workers not in best or row["wall_seconds"] < best[workers]["wall_seconds"]:
                    best[workers] = row
                rows.append(row)
        identical = same(best[1]["export"], best[args.workers]["export"])
        write(Path(args.out), args, rows, best, identical)  # before removing the exports (minutes on some disks)


def write(out: Path, args, rows: list, best: dict, identical: bool) -> None:
    meta = {
        **run_meta("bench_workers.py"),
        "config": args.config,
        "engine": args.engine or "default",
    }
    result = {"meta": meta, "rows": rows, "best": best, "identical_exports": identical}
    (out / "workers.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "workers.md").write_text(markdown(result, args.workers))


def searched(result: dict, workers: int) -> float | None:
    """The best time to the summary of the runs with `workers`."""
    times = [r["search_seconds"] for r in result["rows"] if r["workers"] == workers and "search_seconds" in r]
    return min(times) if times else None


def markdown(result: dict, workers: int) -> str:
    meta, best = result["meta"], result["best"]
    one, many = best[1], best[workers]
    lines = [
        "# Worker processes against one process (`benchmarks/bench_workers.py`)",
        "",
        f"Machine: {meta['machine']}; Python {meta['python']}; {meta['cpus']} CPUs shared with other jobs "
        f"(load average {meta['load_average'][0]:.1f} at the end; after each run: "
        + ", ".join(f"{r['load_after'][0]:.1f}" for r in result["rows"])
        + f"); {meta['date']}.",
        f"Command: `{meta['command']}`",
        "",
        f"`progress synth` on {meta['config']} (engine: {meta['engine']}), end to end: interpreter start, space, "
        "search, classification under 11 verdicts, store, `--export`. CPU time is the whole process tree's "
        "(driver and workers). Runs alternate (one process first on even attempts).",
        "",
        "| run | wall (s) | to the summary (s) | export (s) | CPU (s) | CPU to the summary: driver + workers (s) "
        "| largest process peak (MB) | tests |",
        "|---|---|---|---|---|---|---|---|",
        *(
            f"| {'one process' if r['workers'] == 1 else f'`--workers {workers}`'} (#{i}) | {r['wall_seconds']:.1f} "
            f"| {r.get('search_seconds', float('nan')):.1f} | {r.get('export_seconds', float('nan')):.1f} "
            f"| {r['cpu_seconds']:.1f} | {' + '.join(f'{x:.1f}' for x in r.get('search_cpu_by_process', []))} "
            f"| {r['peak_mb']:.0f} | {r['tests']} |"
            for i, r in enumerate(result["rows"])
        ),
        "",
        f"**Speedup of `--workers {workers}` over one process: {one['wall_seconds'] / many['wall_seconds']:.2f}x** "
        f"end to end (wall clock, best of each);"
        + (
            f" {searched(result, 1) / searched(result, workers):.2f}x up to the summary (best of each: space, "
            "search, classification, store, the part workers share; the export after it is the same work "
            "either way, and its time follows the shared disk)."
            if searched(result, 1) and searched(result, workers)
            else ""
        )
        + f" Exports byte-identical: {'yes' if result['identical_exports'] else 'NO'}.",
        "",
        "Last progress lines (rates of candidates judged and of tests classified):",
        "",
        f"- one process: `{one['last_progress_line']}`",
        f"- `--workers {workers}`: `{many['last_progress_line']}`",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
