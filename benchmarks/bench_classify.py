"""Benchmark: classification with the batch classifier against check_program,
and `progress classify` end to end on a large export (issue 13).

Part 1, in one process, same run: tests classified per second (all verdicts
of every registered model, no lassos) by `check_program` one test at a time
and by `progress.batch.verdicts` in chunks, on the published suite and on an
export directory, Programs loaded beforehand; verdicts compared. Also the cost
per test of the other steps: reading a file, `parse_program` against
`quick_program`, the canonical hash.

Part 2, fresh processes: `progress classify DIR --matrix --format csv` with
the batch path forced off (the old path) on a sample of the export and on the
whole export with the default (batch) path; wall and CPU (user+sys) time,
and the old and new outputs compared byte for byte on the sample. The old
path's time on the whole export is extrapolated from the sample (its cost
per test is flat). Writes docs/results/classify.md and classify.json.

    python3 benchmarks/bench_classify.py --export DIR [--sample 20000]
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
    """Rates of check_program and batch.verdicts on the same Programs."""
    from progress import batch
    from progress.analyze import check_program, queries_for
    from progress.canonical import canonical_hash
    from progress.parse import parse_program
    from progress.quickparse import quick_program
    from progress.registry import all_models

    queries = queries_for(all_models())
    start = time.perf_counter()
    texts = [(f.read_bytes().decode("utf-8"), str(f)) for f in files]
    read_s = time.perf_counter() - start
    start = time.perf_counter()
    programs = [parse_program(text, path) for text, path in texts]
    parse_s = time.perf_counter() - start
    start = time.perf_counter()
    quick = [quick_program(text, path) for text, path in texts]
    quick_s = time.perf_counter() - start
    assert quick == programs
    start = time.perf_counter()
    for program in programs:
        canonical_hash(program)
    hash_s = time.perf_counter() - start

    batch.verdicts(programs[:8], queries)  # load the compiled kernels
    old_programs = programs[:old_limit]
    start = time.perf_counter()
    old = [tuple(v.terminates for v in check_program(p, queries, witnesses=False).verdicts) for p in old_programs]
    old_s = time.perf_counter() - start
    stats = batch.Stats()
    start = time.perf_counter()
    new = []
    for at in range(0, len(programs), 4096):
        new += batch.verdicts(programs[at : at + 4096], queries, stats=stats)
    new_s = time.perf_counter() - start
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
            "check_program": old_s / len(old) * 1e6,
            "batch": new_s / n * 1e6,
        },
    }


def run_cli(code: str, args: list[str]) -> tuple[float, float, bytes, int]:
    """(wall s, CPU s of the child, stdout, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout, done.returncode


def end_to_end(export: Path, sample: int) -> dict:
    from progress.cli.inputs import expand

    files = expand([str(export)])
    picked = files[:: max(1, len(files) // sample)][:sample]
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "sample.txt"
        listing.write_text("".join(os.path.abspath(f) + "\n" for f in picked))
        args = ["classify", f"@{listing}", "--matrix", "--format", "csv"]
        old_wall, old_cpu, old_out, old_code = run_cli(OLD_PATH, args)
        new_wall_s, new_cpu_s, new_out, new_code = run_cli(NEW_PATH, args)
    assert old_code == new_code == 0 and old_out == new_out, "old and new outputs differ on the sample"
    full = ["classify", str(export), "--matrix", "--format", "csv"]
    wall, cpu, out, code = run_cli(NEW_PATH, full)
    assert code == 0 and out.count(b"\n") == len(files) + 1
    wall2, cpu2, out2, code2 = run_cli(NEW_PATH, [*full, "--jobs", "2"])
    assert code2 == 0 and out2 == out, "--jobs 2 printed other bytes"
    table = ["classify", str(export)]
    table_wall, table_cpu, _, table_code = run_cli(NEW_PATH, table)
    assert table_code == 0
    per_test_old = old_wall / len(picked)
    return {
        "export": str(export),
        "tests": len(files),
        "sample": len(picked),
        "sample_identical_bytes": True,
        "old_sample_wall_s": old_wall,
        "old_sample_cpu_s": old_cpu,
        "new_sample_wall_s": new_wall_s,
        "new_sample_cpu_s": new_cpu_s,
        "old_extrapolated_wall_s": per_test_old * len(files),
        "old_extrapolated_cpu_s": old_cpu / len(picked) * len(files),
        "new_matrix_wall_s": wall,
        "new_matrix_cpu_s": cpu,
        "new_matrix_jobs2_wall_s": wall2,
        "new_matrix_jobs2_cpu_s": cpu2,
        "new_table_wall_s": table_wall,
        "new_table_cpu_s": table_cpu,
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
        "All verdicts of the 6 registered models (11 per test), no lassos; Programs parsed beforehand.",
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
        lines += [
            "",
            f"## `progress classify` end to end: {e['tests']} tests ({e['export']})",
            "",
            "Fresh processes, start-up included. The old path (one `check_program` per test) ran on an",
            f"evenly spread sample of {e['sample']} tests, its output identical byte for byte to the new path's;",
            "its time on the whole export is the sample's per-test time times the number of tests.",
            "",
            "| run | wall (s) | CPU (s) |",
            "|---|---|---|",
            f"| old path, sample of {e['sample']}, --matrix csv | {e['old_sample_wall_s']:.2f} | "
            f"{e['old_sample_cpu_s']:.2f} |",
            f"| new path, sample of {e['sample']}, --matrix csv | {e['new_sample_wall_s']:.2f} | "
            f"{e['new_sample_cpu_s']:.2f} |",
            f"| old path, all {e['tests']} (extrapolated) | {e['old_extrapolated_wall_s']:.1f} | "
            f"{e['old_extrapolated_cpu_s']:.1f} |",
            f"| new path, all {e['tests']}, --matrix csv | {e['new_matrix_wall_s']:.2f} | "
            f"{e['new_matrix_cpu_s']:.2f} |",
            f"| new path, all {e['tests']}, --matrix csv --jobs 2 (same bytes) | {e['new_matrix_jobs2_wall_s']:.2f} | "
            f"{e['new_matrix_jobs2_cpu_s']:.2f} |",
            f"| new path, all {e['tests']}, classification table (md) | {e['new_table_wall_s']:.2f} | "
            f"{e['new_table_cpu_s']:.2f} |",
            "",
            f"Speedup on the whole export (CPU, extrapolated old): "
            f"{e['old_extrapolated_cpu_s'] / e['new_matrix_cpu_s']:.1f}x; "
            f"on the sample, measured: {e['old_sample_cpu_s'] / e['new_sample_cpu_s']:.1f}x.",
        ]
    lines += ["", f"Reproduce: `{result['command']}`.", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default=str(REPO.parent / "shared" / "data" / "oopsla21"))
    parser.add_argument("--export", default=None, help="an export directory (progress synth --export)")
    parser.add_argument("--sample", type=int, default=20000, help="tests the old path runs on")
    parser.add_argument("--out", default=str(REPO / "docs" / "results"))
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from progress.cli.inputs import expand

    load_start = os.getloadavg()[0]
    rates = [in_process(expand([args.suite]), "OOPSLA'21 suite", 10**9)]
    if args.export:
        rates.append(in_process(expand([args.export]), f"export {Path(args.export).name}", args.sample))
    result = {
        "command": "python3 benchmarks/bench_classify.py"
        + (f" --export {args.export} --sample {args.sample}" if args.export else ""),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_start": load_start},
        "rates": rates,
    }
    if args.export:
        result["end_to_end"] = end_to_end(Path(args.export), args.sample)
    result["machine"]["load_end"] = os.getloadavg()[0]
    out = Path(args.out)
    (out / "classify.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "classify.md").write_text(render(result))
    print(render(result))


if __name__ == "__main__":
    main()
