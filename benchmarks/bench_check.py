"""Benchmark: `progress check <OOPSLA'21 suite> --format json`, start-up included.

Runs the real console script in fresh processes (all 483 tests x 11 verdicts,
witnesses included), next to the interpreter's own start-up measured in the
same run as the baseline. Checks that every run prints the same bytes.
Writes docs/results/check.md and docs/results/check.json.

    python3 benchmarks/bench_check.py [--runs 11] [--suite litmus/oopsla21]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 0.3


def timed(command: list[str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start, done.stdout


def measure(command: list[str], runs: int) -> tuple[list[float], set[str]]:
    times, digests = [], set()
    for _ in range(runs):
        seconds, out = timed(command)
        times.append(seconds)
        digests.add(hashlib.sha256(out).hexdigest())
    return times, digests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--suite", default=str(REPO / "litmus" / "oopsla21"))
    args = parser.parse_args()
    progress = shutil.which("progress") or sys.exit("the console script `progress` is not installed")
    check = [progress, "check", args.suite, "--format", "json"]
    baseline = [sys.executable, "-c", "pass"]
    # Byte-compile the package as a normal install does (this environment may
    # set PYTHONDONTWRITEBYTECODE, which would recompile every module per run).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "progress"), str(REPO / "models")], check=True)
    timed(check)  # warm the file cache
    rows = {}
    for name, command in (
        ("interpreter start-up (python3 -c pass)", baseline),
        ("progress check suite --format json", check),
    ):
        times, digests = measure(command, args.runs)
        rows[name] = {
            "median_s": statistics.median(times),
            "min_s": min(times),
            "max_s": max(times),
            "runs": args.runs,
            "distinct_outputs": len(digests),
        }
    _, out = timed(check)
    lines = out.decode().splitlines()
    result = {
        "command": "progress check litmus/oopsla21 --format json",
        "tests": len(lines),
        "verdicts": sum(len(json.loads(line)["results"]) for line in lines),
        "target_s": TARGET_SECONDS,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_1min": os.getloadavg()[0],
        },
        "rows": rows,
    }
    check_row = rows["progress check suite --format json"]
    base_row = rows["interpreter start-up (python3 -c pass)"]
    result["ratio_to_startup"] = check_row["median_s"] / base_row["median_s"]
    out_dir = REPO / "docs" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "check.json").write_text(json.dumps(result, indent=2) + "\n")
    (out_dir / "check.md").write_text(_markdown(result))
    print(_markdown(result))


def _markdown(result: dict) -> str:
    lines = [
        "# Checker speed: the whole OOPSLA'21 suite",
        "",
        f"`{result['command']}`: {result['tests']} tests, {result['verdicts']} verdicts with witnesses,",
        "one fresh process per run, start-up included, modules byte-compiled as by an install.",
        f"Target: under {result['target_s']} s.",
        f"Machine: {result['machine']['cpus']} CPUs, Python {result['machine']['python']}, "
        f"1-min load average {result['machine']['load_average_1min']:.2f} at the end.",
        "",
        "| command | median (s) | min (s) | max (s) | runs | distinct outputs |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in result["rows"].items():
        lines.append(
            f"| {name} | {row['median_s']:.3f} | {row['min_s']:.3f} | {row['max_s']:.3f} | "
            f"{row['runs']} | {row['distinct_outputs']} |"
        )
    lines += [
        "",
        f"Ratio of the check to bare interpreter start-up, same run: {result['ratio_to_startup']:.2f}x.",
        "",
        "Reproduce: `python3 benchmarks/bench_check.py`.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
