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
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stderr is not None
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.append(child.stderr.read()), daemon=True)
    reader.start()
    lines = [child.stdout.readline()]  # the summary's first line: the search and the store are done
    searched = time.perf_counter() - start
    lines.append(child.stdout.read())
    child.wait()
    reader.join()
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
        "peak_mb": after.ru_maxrss / 1024,
        "tests": tests,
        "last_progress_line": last,
        "export": str(export),
        "load_after": os.getloadavg(),
    }


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
    args = parser.parse_args()
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
        "| run | wall (s) | to the summary (s) | export (s) | CPU (s) | largest process peak (MB) | tests |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {'one process' if r['workers'] == 1 else f'`--workers {workers}`'} (#{i}) | {r['wall_seconds']:.1f} "
            f"| {r.get('search_seconds', float('nan')):.1f} | {r.get('export_seconds', float('nan')):.1f} "
            f"| {r['cpu_seconds']:.1f} | {r['peak_mb']:.0f} | {r['tests']} |"
            for i, r in enumerate(result["rows"])
        ),
        "",
        f"**Speedup of `--workers {workers}` over one process: {one['wall_seconds'] / many['wall_seconds']:.2f}x** "
        f"end to end (wall clock, best of each);"
        + (
            f" {one['search_seconds'] / many['search_seconds']:.2f}x up to the summary (space, search, "
            "classification, store: the part workers share; the export after it is the same work either way)."
            if "search_seconds" in one and "search_seconds" in many
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
