"""Benchmark: the .axb readers before and after a change, in the same run (issue 23).

Extracts a git revision (--before, default the merge base with main) into a
temporary tree and runs it beside this checkout, interleaved, in fresh
processes (`python -m progress` from each tree's root, modules byte-compiled
first): `check` of the OOPSLA'21 suite --format json, `classify` of it
--matrix --format csv, and `classify` of an export (--jobs 1) --matrix
--format csv; wall time (median) and CPU (user+sys, children), and whether
the two trees print the same bytes. Also per-test CPU in one process of each
tree: `parse_program`, `quick_parts` and `BulkReader.read` (its memo warm)
over the suite and over a sample of the export. Writes docs/results/front.md
and front.json.

    python3 benchmarks/bench_front.py --export DIR [--before REV] [--runs 15]
    (make DIR with `progress synth -t 3 -i 5 --export DIR`: DIR/3t5i holds 341,727 tests)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "litmus" / "oopsla21"
GROUPS = ("2t2i", "2t3i", "2t4i", "3t3i", "3t4i")
READERS = """
import sys, time
from pathlib import Path
from progress.front.axb.parse import parse_program
from progress.front.axb.quickparse import quick_parts
from progress.front.axb.bulkread import BulkReader
files = [Path(line) for line in sys.stdin.read().split()]
texts = [(f.read_text(), str(f)) for f in files]
reader, out = BulkReader(), {}
for text, _ in texts:
    reader.read(text)
for name, read in (("parse_program", lambda t, p: parse_program(t, p)), ("quick_parts", quick_parts),
                   ("bulk read (warm)", lambda t, p: reader.read(t))):
    best = None
    for _ in range(3):
        start = time.process_time()
        for text, path in texts:
            read(text, path)
        spent = time.process_time() - start
        best = spent if best is None else min(best, spent)
    out[name] = best / len(texts) * 1e6
print(repr(out))
"""


def timed(command: list[str], root: Path) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, sha256 of its standard output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env(), check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, hashlib.sha256(done.stdout).hexdigest()


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    return env


def extract(revision: str, into: Path) -> None:
    archive = subprocess.run(["git", "archive", revision], cwd=REPO, stdout=subprocess.PIPE, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def compare(trees: dict[str, Path], command: list[str], runs: int) -> dict:
    """Interleaved runs of one command in each tree."""
    seen: dict[str, list[tuple[float, float, str]]] = {name: [] for name in trees}
    for root in trees.values():
        timed(command, root)  # warm caches
    for _ in range(runs):
        for name, root in trees.items():
            seen[name].append(timed(command, root))
    result = {}
    for name, rows in seen.items():
        result[name] = {
            "wall_median_s": round(statistics.median(r[0] for r in rows), 4),
            "wall_min_s": round(min(r[0] for r in rows), 4),
            "cpu_median_s": round(statistics.median(r[1] for r in rows), 4),
            "outputs": sorted({r[2] for r in rows}),
        }
    return result


def readers(trees: dict[str, Path], files: list[Path]) -> dict:
    listing = "\n".join(map(str, files))
    found = {}
    for name, root in trees.items():
        done = subprocess.run(
            [sys.executable, "-c", READERS], cwd=root, input=listing, text=True, capture_output=True, env=_env()
        )
        found[name] = {k: round(v, 2) for k, v in eval(done.stdout).items()}  # noqa: S307 - our own repr
    return found


def load() -> float:
    return round(os.getloadavg()[0], 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export", type=Path, required=True, help="an export directory (holding 3t5i/)")
    parser.add_argument("--before", default=None, help="the revision to compare with (default: merge base with main)")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    before = (
        args.before
        or subprocess.run(
            ["git", "merge-base", "HEAD", "main"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    suite = [str(SUITE / group) for group in GROUPS]
    export = sorted((args.export / "3t5i").glob("*.axb"))
    py = [sys.executable, "-m", "progress"]
    with tempfile.TemporaryDirectory() as temporary:
        old = Path(temporary)
        extract(before, old)
        trees = {"before": old, "after": REPO}
        for root in trees.values():
            compile_all = [sys.executable, "-m", "compileall", "-q", "progress", "models", "synth"]
            subprocess.run(compile_all, cwd=root, check=True)
        report: dict = {"before": before, "load_start": load(), "python": platform.python_version()}
        report["check suite --format json"] = compare(trees, [*py, "check", *suite, "--format", "json"], args.runs)
        report["classify suite --matrix --format csv"] = compare(
            trees, [*py, "classify", *suite, "--matrix", "--format", "csv"], args.runs
        )
        report["classify export --matrix --format csv --jobs 1"] = compare(
            trees, [*py, "classify", str(args.export / "3t5i"), "--matrix", "--format", "csv", "--jobs", "1"], 3
        )
        suite_files = sorted(f for group in suite for f in Path(group).glob("*.axb"))
        report["readers, suite (us per test)"] = readers(trees, suite_files)
        report["readers, export every 20th (us per test)"] = readers(trees, export[::20])
        report["load_end"] = load()
    out = REPO / "docs" / "results"
    (out / "front.json").write_text(json.dumps(report, indent=1) + "\n")
    (out / "front.md").write_text(render(report, len(export)))
    print((out / "front.md").read_text())


def render(report: dict, exported: int) -> str:
    lines = [
        "# The .axb readers before and after the shared lexicon (issue 23)",
        "",
        f"Before: `{report['before'][:12]}`; after: this checkout. Python {report['python']}, 2 CPUs (shared),"
        f" 1-min load average {report['load_start']} at the start and {report['load_end']} at the end.",
        "Fresh processes, interleaved, start-up included; CPU is user+sys of the child (workers included).",
        f"The export is `synth -t 3 -i 5` ({exported} tests).",
        "",
        "| command | before wall (s) | after wall (s) | after / before | before CPU (s) | after CPU (s) | same bytes |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, value in report.items():
        if not isinstance(value, dict) or "before" not in value or "wall_median_s" not in value["before"]:
            continue
        b, a = value["before"], value["after"]
        same = "yes" if b["outputs"] == a["outputs"] and len(a["outputs"]) == 1 else "NO"
        ratio = a["wall_median_s"] / b["wall_median_s"]
        lines.append(
            f"| {key} | {b['wall_median_s']} | {a['wall_median_s']} | {ratio:.3f} | {b['cpu_median_s']} |"
            f" {a['cpu_median_s']} | {same} |"
        )
    lines += ["", "CPU per test in one process (microseconds, best of 3 passes):", ""]
    lines += ["| files | reader | before | after | after / before |", "|---|---|---|---|---|"]
    for key, value in report.items():
        if key.startswith("readers"):
            for reader, spent in value["before"].items():
                now = value["after"][reader]
                files = key.split(", ")[1].split(" (")[0]
                lines.append(f"| {files} | {reader} | {spent} | {now} | {now / spent:.3f} |")
    lines += ["", "Reproduce: `python3 benchmarks/bench_front.py --export DIR --before REV`.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
