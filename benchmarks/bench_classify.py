"""Benchmark: classification with the batch classifier against check_program,
and `progress classify` end to end on a large export (issue 13).

Part 1, in one process, same run: tests classified per second (all verdicts
of every registered model, no lassos) by `check_program` one test at a time
and by `progress.core.batch.verdicts` in chunks, on the published suite and on an
evenly spread sample of an export directory, Programs loaded beforehand;
verdicts compared. Also the CPU cost per test of the other steps: reading a
file, `parse_program` against `quick_program`, the canonical hash, and the
bulk reader (`progress.front.axb.bulkread`: threads, hash and kernel record in one
pass, its memo warm from the first pass).

Part 2, fresh processes: `progress classify DIR --matrix --format csv` with
the batch path forced off (the old path) on a sample of the export, and with
the default path on the whole export with --jobs 1, --jobs 2 and the
default jobs, plus the classification table; wall and CPU (user+sys, workers
included) time and the 1-minute load average at the start of each run; the
old and new outputs compared byte for byte on the sample, the new ones with
each other on the whole export. The old path's time on the whole export is
extrapolated from the sample past its start-up (its cost per test is flat). Writes
docs/results/classify.md and classify.json.

    python3 benchmarks/bench_classify.py --export DIR [--sample 5000] [--quiet-below 2 --quiet-wait 600]
    (make DIR with `progress synth -t 3 -i 5 --export DIR`: 341,727 tests)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OLD_PATH = (
    "import sys, progress.cli.classify as c; c.BATCH_FROM = 10**12; from progress.cli import main; main(sys.argv[1:])"
)
NEW_PATH = "import sys; from progress.cli import main; main(sys.argv[1:])"


def in_process(files: list[Path], label: str, old_limit: int) -> dict:
    """Rates of check_program and batch.verdicts on the same Programs (CPU
    time of this process)."""
    from progress.core import batch
    from progress.core.analyze import check_program, queries_for
    from progress.core.canonical import canonical_hash
    from progress.core.registry import all_models
    from progress.front.axb.bulkread import BulkReader
    from progress.front.axb.parse import parse_program
    from progress.front.axb.quickparse import quick_program

    clock = time.process_time
    queries = queries_for(all_models())
    start = clock()
    texts = [(f.read_bytes().decode("utf-8"), str(f)) for f in files]
    read_s = clock() - start
    start = clock()
    programs = [parse_program(text, path) for text, path in texts]
    parse_s = clock() - start
    start = clock()
    quick = [quick_program(text, path) for text, path in texts]
    quick_s = clock() - start
    assert quick == programs
    start = clock()
    hashes = [canonical_hash(program) for program in programs]
    hash_s = clock() - start
    reader = BulkReader()
    start = clock()
    bulk = [reader.read(text) for text, _ in texts]
    bulk_cold_s = clock() - start
    start = clock()
    bulk = [reader.read(text) for text, _ in texts]
    bulk_s = clock() - start
    assert [b.hash for b in bulk] == hashes and [(b.threads, b.init) for b in bulk] == [
        (p.threads, p.init) for p in programs
    ]

    batch.verdicts(programs[:8], queries)  # load the compiled kernels
    old_programs = programs[:old_limit]
    start = clock()
    old = [tuple(v.terminates for v in check_program(p, queries, witnesses=False).verdicts) for p in old_programs]
    old_s = clock() - start
    stats = batch.Stats()
    start = clock()
    new = []
    for at in range(0, len(programs), 4096):
        new += batch.verdicts(programs[at : at + 4096], queries, stats=stats)
    new_s = clock() - start
    assert new[: len(old)] == old, "batch verdicts differ from check_program"
    n = len(programs)
    return {
        "suite": label,
        "tests": n,
        "verdicts_per_test": len(queries),
        "old_tests": len(old),
        "old_tests_per_s": len(old) / old_s,
        "new_tests_per_s": n / new_s,
        "speedup": (n / new_s) / (len(old) / old_s),
        "fallbacks": stats.fallbacks,
        "us_per_test": {
            "read": read_s / n * 1e6,
            "parse_program": parse_s / n * 1e6,
            "quick_program": quick_s / n * 1e6,
            "canonical_hash": hash_s / n * 1e6,
            "bulk read (cold)": bulk_cold_s / n * 1e6,
            "bulk read (warm)": bulk_s / n * 1e6,
            "check_program": old_s / len(old) * 1e6,
            "batch": new_s / n * 1e6,
        },
    }


def run_cli(code: str, args: list[str]) -> dict:
    """Wall s, CPU s of the child (and its workers), its load average at
    the start, its stdout and exit status."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "load": load, "out": done.stdout, "code": done.returncode}


def wait_quiet(below: float, patience: float) -> float:
    """Wait (at most `patience` s) for the 1-minute load average to drop below
    `below`; the load average found."""
    deadline = time.monotonic() + patience
    while os.getloadavg()[0] >= below and time.monotonic() < deadline:
        time.sleep(5)
    return os.getloadavg()[0]


def end_to_end(export: Path, sample: int, quiet_below: float, quiet_wait: float) -> dict:
    from progress.cli.classify import default_jobs
    from progress.cli.inputs import expand

    files = expand([str(export)])
    picked = files[:: max(1, len(files) // sample)][:sample]
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "sample.txt"
        listing.write_text("".join(os.path.abspath(f) + "\n" for f in picked))
        args = ["classify", f"@{listing}", "--matrix", "--format", "csv"]
        old = run_cli(OLD_PATH, args)
        new = run_cli(NEW_PATH, args)
        one = Path(tmp) / "one.txt"
        one.write_text(os.path.abspath(picked[0]) + "\n")
        old_start = run_cli(OLD_PATH, ["classify", f"@{one}", "--matrix", "--format", "csv"])  # start-up
    assert old["code"] == new["code"] == 0 and old["out"] == new["out"], "old and new outputs differ on the sample"
    wait_quiet(quiet_below, quiet_wait)
    full = ["classify", str(export), "--matrix", "--format", "csv"]
    runs = {
        "--matrix csv --jobs 1": run_cli(NEW_PATH, [*full, "--jobs", "1"]),
        "--matrix csv --jobs 2": run_cli(NEW_PATH, [*full, "--jobs", "2"]),
        "--matrix csv (default jobs)": run_cli(NEW_PATH, full),
        "classification table, md (default jobs)": run_cli(NEW_PATH, ["classify", str(export)]),
    }
    outputs = [run["out"] for label, run in runs.items() if label.startswith("--matrix")]
    assert all(run["code"] == 0 for run in runs.values())
    assert outputs[0].count(b"\n") == len(files) + 1 and all(out == outputs[0] for out in outputs), "jobs changed bytes"
    per_test_old_wall = max(0.0, old["wall_s"] - old_start["wall_s"]) / (len(picked) - 1)
    per_test_old_cpu = max(0.0, old["cpu_s"] - old_start["cpu_s"]) / (len(picked) - 1)
    strip = lambda run: {k: v for k, v in run.items() if k != "out"}  # noqa: E731
    return {
        "export": str(export),
        "tests": len(files),
        "sample": len(picked),
        "sample_identical_bytes": True,
        "whole_identical_bytes_for_any_jobs": True,
        "default_jobs": default_jobs(len(files)),
        "old_sample": strip(old),
        "new_sample": strip(new),
        "old_one_test": strip(old_start),
        "old_extrapolated_wall_s": old_start["wall_s"] + per_test_old_wall * (len(files) - 1),
        "old_extrapolated_cpu_s": old_start["cpu_s"] + per_test_old_cpu * (len(files) - 1),
        "new": {label: strip(run) for label, run in runs.items()},
    }


def render(result: dict) -> str:
    lines = [
        "# Classification speed: the batch classifier (issue 13)",
        "",
        f"Machine: {result['machine']['cpus']} CPUs, Python {result['machine']['python']}, "
        f"1-min load average {result['machine']['load_start']:.2f} at the start and "
        f"{result['machine']['load_end']:.2f} at the end (the machine is shared: CPU times are steadier than wall).",
        "",
        "## Tests classified per second, same process, same run",
        "",
        "All verdicts of the 6 registered models (11 per test), no lassos; Programs parsed beforehand;",
        "CPU time of the benchmark's process.",
        "",
        "| suite | tests | check_program tests/s | batch tests/s | speedup | fallbacks |",
        "|---|---|---|---|---|---|",
    ]
    for r in result["rates"]:
        lines.append(
            f"| {r['suite']} | {r['tests']} | {r['old_tests_per_s']:.0f} (on {r['old_tests']}) | "
            f"{r['new_tests_per_s']:.0f} | {r['speedup']:.1f}x | {r['fallbacks']} |"
        )
    lines += ["", "Cost of each step per test (microseconds):", ""]
    steps = list(result["rates"][0]["us_per_test"])
    lines.append("| suite | " + " | ".join(steps) + " |")
    lines.append("|---|" + "---|" * len(steps))
    for r in result["rates"]:
        lines.append(f"| {r['suite']} | " + " | ".join(f"{r['us_per_test'][s]:.1f}" for s in steps) + " |")
    e = result.get("end_to_end")
    if e:
        old_cpu = e["old_extrapolated_cpu_s"]
        lines += [
            "",
            f"## `progress classify` end to end: {e['tests']} tests ({e['export']})",
            "",
            "Fresh processes, start-up included; CPU is user+sys of the process and its workers. The old",
            "path (one `check_program` per test) ran on an evenly spread sample of "
            f"{e['sample']} tests, its output identical",
            "byte for byte to the new path's; its time on the whole export is its start-up (a run on one",
            "test) plus the sample's time per test past it times the number of tests. On the whole",
            "export every --matrix run printed the same bytes.",
            "",
            "| run | load at start | wall (s) | CPU (s) | old CPU / this wall | old CPU / this CPU |",
            "|---|---|---|---|---|---|",
        ]
        for label, run in (
            ("old path, one test (start-up)", e["old_one_test"]),
            (f"old path, sample of {e['sample']}, --matrix csv", e["old_sample"]),
            (f"new path, sample of {e['sample']}, --matrix csv", e["new_sample"]),
        ):
            lines.append(f"| {label} | {run['load']:.1f} | {run['wall_s']:.2f} | {run['cpu_s']:.2f} | | |")
        lines.append(
            f"| old path, all {e['tests']} (extrapolated) | | {e['old_extrapolated_wall_s']:.1f} | {old_cpu:.1f} | | |"
        )
        for label, run in e["new"].items():
            lines.append(
                f"| new path, all {e['tests']}, {label} | {run['load']:.1f} | {run['wall_s']:.2f} | "
                f"{run['cpu_s']:.2f} | {old_cpu / run['wall_s']:.1f}x | {old_cpu / run['cpu_s']:.1f}x |"
            )
        lines += [
            "",
            f"The default --jobs on this machine: {e['default_jobs']}. On the sample (start-up dominates), "
            f"measured: {e['old_sample']['cpu_s'] / e['new_sample']['cpu_s']:.1f}x by CPU.",
        ]
    lines += ["", f"Reproduce: `{result['command']}`.", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default=str(REPO / "litmus" / "oopsla21"))
    parser.add_argument("--export", default=None, help="an export directory (progress synth --export)")
    parser.add_argument("--sample", type=int, default=5000, help="tests the old path runs on")
    parser.add_argument("--rates-sample", type=int, default=50000, help="export tests part 1 runs on")
    parser.add_argument("--quiet-below", type=float, default=2.0, help="load average to wait for before part 2")
    parser.add_argument("--quiet-wait", type=float, default=0.0, help="seconds to wait for it at most")
    parser.add_argument("--out", default=str(REPO / "docs" / "results"))
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "benchmarks"))
    from run_meta import run_meta

    from progress.cli.inputs import expand

    meta = run_meta("bench_classify.py")
    rates = [in_process(expand([args.suite]), "OOPSLA'21 suite", 10**9)]
    if args.export:
        files = expand([args.export])
        spread = files[:: max(1, len(files) // args.rates_sample)][: args.rates_sample]
        rates.append(in_process(spread, f"export {Path(args.export).name} (every {len(files) // len(spread)}th)", 5000))
    result = {
        "command": meta["command"],
        "meta": meta,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_start": meta["load_average"][0]},
        "rates": rates,
    }
    if args.export:
        result["end_to_end"] = end_to_end(Path(args.export), args.sample, args.quiet_below, args.quiet_wait)
    result["machine"]["load_end"] = os.getloadavg()[0]
    out = Path(args.out)
    (out / "classify.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "classify.md").write_text(render(result))
    print(render(result))


if __name__ == "__main__":
    main()
