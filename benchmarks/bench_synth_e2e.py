"""`progress synth` end to end, the pipeline before issue 13 against today's,
in one run on the same machine (issue 13, first "must show").

    python benchmarks/bench_synth_e2e.py --old /work/venvs/h13old/bin/progress [--config 3t5i] [--out docs/results]
    python benchmarks/bench_synth.py --end-to-end ...   (the same)

`--old` is the `progress` entry point of a checkout of the baseline commit
(c14b10e: the enum engine, store format 1 with a text row per verdict, one
`check_program` per test found, the export built in memory), installed in
its own virtual environment. Both runs are fresh `progress synth -t T -i I
--out DB --export DIR` processes (interpreter start to the last file
written), run back to back at the same niceness, in the order given by
--order (alternating when --repeat > 1), each in a session of its own
(with autogroup scheduling, CPU is shared between sessions first; run 1 in
synth_e2e.md predates this and shared its session with other jobs of the
same user). Before the timed runs each side
does one small synthesis (2t3i) untimed, so neither pays for a cold disk
cache or for loading compiled kernels the first time.

Measured per run: wall time; CPU time (user + system) of the process and
every descendant it waited for (os.wait4); peak resident memory of the
largest process (ru_maxrss) and of the whole process tree (psutil, sampled
every 0.2 s); phase shares from py-spy samples (`py-spy record --pid
--nonblocking -f raw`, outside the measured tree), each sample attributed by
the functions on its stack (PHASES). The two exports are compared as sets
of (canonical hash, canonical program text, verdicts), the CSV rows as
{label: verdict} per file. Writes synth_e2e.md and synth_e2e.json into --out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import psutil
from run_meta import run_meta

NEW = [sys.executable, "-c", "from progress.cli import main; main()"]

PHASES = [
    # (phase, function names; the first phase with a name on a sample's stack wins)
    ("export (store read back, files written)", ("_write_export", "Store.tests", "files (synth/export.py)")),
    ("store commit", ("Store.commit",)),
    ("classification", ("_found (synth/work.py)", "classify (synth/work.py)", "classify_batch")),
    ("search (judge)", ("judge_unit", "search_unit")),
    ("space build", ("unit_sizes", "_build (synth/driver.py)", "space_for")),
    ("other synthesis (driver)", ("synthesize (synth/driver.py)",)),
    ("start-up, summary, other", ("",)),
]


def parse_config(label: str) -> tuple[str, str]:
    match = re.fullmatch(r"(\d+)t(\d+)i", label)
    if not match:
        raise SystemExit(f"--config {label}: expected like 3t5i")
    return match.group(1), match.group(2)


def command(progress: list[str], config: str, folder: Path, tag: str) -> tuple[list[str], Path]:
    threads, instructions = parse_config(config)
    export = folder / f"export-{tag}"
    argv = [*progress, "synth", "-t", threads, "-i", instructions, "--out", str(folder / f"{tag}.db")]
    return argv + ["--export", str(export)], export


class TreeMemory(threading.Thread):
    """Peak of the summed RSS of a process and its descendants, sampled."""

    def __init__(self, pid: int, every: float = 0.2):
        super().__init__(daemon=True)
        self.root = psutil.Process(pid)
        self.every = every
        self.peak = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            total = 0
            try:
                for proc in [self.root, *self.root.children(recursive=True)]:
                    try:
                        total += proc.memory_info().rss
                    except psutil.Error:
                        pass
            except psutil.Error:
                pass
            self.peak = max(self.peak, total)
            self.done.wait(self.every)


def run(argv: list[str], folder: Path, tag: str, spy: str | None, rate: int) -> dict:
    out, err = open(folder / f"{tag}.out", "w+"), open(folder / f"{tag}.err", "w+")
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=out, stderr=err, start_new_session=True)  # own autogroup (bench_workers)
    memory = TreeMemory(child.pid)
    memory.start()
    profile = folder / f"{tag}.raw"
    profiler = None
    if spy:
        profiler = subprocess.Popen(
            [spy, "record", "--pid", str(child.pid), "--nonblocking", "--subprocesses", "-r", str(rate)]
            + ["-f", "raw", "-o", str(profile)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    memory.done.set()
    memory.join()
    if profiler is not None:
        profiler.wait(timeout=120)
    out.seek(0)
    err.seek(0)
    stdout, stderr = out.read(), err.read()
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({child.returncode}):\n{stderr[-2000:]}")
    tests = re.search(r"tests found: (\d+)", stdout)
    phases = shares(profile) if profiler is not None and profile.exists() else {}
    return {
        "command": " ".join(argv),
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "user_seconds": round(usage.ru_utime, 2),
        "system_seconds": round(usage.ru_stime, 2),
        "peak_process_mb": round(usage.ru_maxrss / 1024, 1),
        "peak_tree_mb": round(memory.peak / 2**20, 1),
        "tests": int(tests.group(1)) if tests else None,
        "phase_samples": phases,
        "load_after": os.getloadavg(),
    }


def shares(raw: Path) -> dict[str, int]:
    """py-spy raw samples per phase (PHASES), over every process of the tree."""
    counts: Counter[str] = Counter()
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = re.sub(r":\d+\)", ")", stack)
        for phase, names in PHASES:
            if any(name in frames for name in names):
                counts[phase] += int(count)
                break
    return dict(counts)


def export_contents(root: Path, config: str) -> tuple[set, dict]:
    """(set of (hash, canonical text, verdicts) of the .axb files, {file: {label: verdict}} of the CSV)."""
    folder = root / config
    tests = set()
    for entry in os.scandir(folder):
        if not entry.name.endswith(".axb"):
            continue
        text = Path(entry.path).read_text()
        digest = re.search(r"^# canonical hash (\w+)$", text, re.M)
        expect = re.search(r"^# expect: (.*)$", text, re.M)
        body = "".join(line + "\n" for line in text.splitlines() if not line.startswith(("#", "test ")))
        verdicts = frozenset(tuple(part.rsplit(" ", 1)) for part in expect.group(1).split(" | ")) if expect else None
        tests.add((digest.group(1) if digest else None, body, verdicts))
    lines = (folder / "verdicts.csv").read_text().splitlines()
    header = lines[0].split(",")
    rows = {cells[0]: dict(zip(header[1:], cells[1:])) for cells in (line.split(",") for line in lines[1:])}
    return tests, rows


def compare(old: Path, new: Path, config: str) -> dict:
    old_tests, old_rows = export_contents(old, config)
    new_tests, new_rows = export_contents(new, config)
    return {
        "old_tests": len(old_tests),
        "new_tests": len(new_tests),
        "same_tests_and_verdicts": old_tests == new_tests,
        "only_old": len(old_tests - new_tests),
        "only_new": len(new_tests - old_tests),
        "same_csv_rows": old_rows == new_rows,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", default=None, help="the baseline checkout's `progress` executable")
    parser.add_argument("--config", default="3t5i")
    parser.add_argument("--order", default="new,old", help="which runs first (alternates when repeating)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--rate", type=int, default=20, help="py-spy samples per second (0: no profile)")
    parser.add_argument("--workdir", default=None, help="where the stores and exports go (default: a temp dir)")
    parser.add_argument("--out", default="docs/results")
    parser.add_argument("--append", action="store_true", help="add this run to those already in --out")
    parser.add_argument("--render", action="store_true", help="only rewrite synth_e2e.md from synth_e2e.json")
    args = parser.parse_args(argv)
    if args.render:
        runs = json.loads((Path(args.out) / "synth_e2e.json").read_text())["runs"]
        (Path(args.out) / "synth_e2e.md").write_text(render(runs))
        return
    if not args.old:
        parser.error("--old is required (the baseline checkout's progress executable)")
    spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    spy = spy if args.rate > 0 else None
    sides = {"old": [args.old], "new": NEW}
    order = args.order.split(",")
    meta = {**run_meta("bench_synth_e2e.py"), "config": args.config, "py_spy": bool(spy), "load_before": None}
    with tempfile.TemporaryDirectory(dir=args.workdir) as name:
        folder = Path(name)
        for side in order:  # untimed warm-up: disk cache, compiled kernels loaded once
            warm, _ = command(sides[side], "2t3i", folder, f"warm-{side}")
            subprocess.run(warm, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        meta["load_before"] = os.getloadavg()
        rows: list[dict] = []
        exports: dict[str, Path] = {}
        for attempt in range(args.repeat):
            for side in order if attempt % 2 == 0 else order[::-1]:
                argv_, export = command(sides[side], args.config, folder, f"{side}-{attempt}")
                row = {"side": side, "attempt": attempt, **run(argv_, folder, f"{side}-{attempt}", spy, args.rate)}
                print(json.dumps(row), file=sys.stderr, flush=True)
                rows.append(row)
                if side in exports:
                    shutil.rmtree(exports[side])
                exports[side] = export
        check = compare(exports["old"], exports["new"], args.config)
        write(Path(args.out), meta, rows, check, args.append)


def best(rows: list[dict], side: str) -> dict:
    return min((r for r in rows if r["side"] == side), key=lambda r: r["wall_seconds"])


def write(out: Path, meta: dict, rows: list[dict], check: dict, append: bool) -> None:
    """synth_e2e.json holds {"runs": [...]}: with --append this run is added to the earlier ones."""
    path = out / "synth_e2e.json"
    runs = json.loads(path.read_text())["runs"] if append and path.exists() else []
    runs.append({"meta": meta, "rows": rows, "exports": check})
    path.write_text(json.dumps({"runs": runs}, indent=2) + "\n")
    (out / "synth_e2e.md").write_text(render(runs))


def render(runs: list[dict]) -> str:
    head = [
        "# `progress synth` end to end, before and after issue 13",
        "",
        "Written by `benchmarks/bench_synth_e2e.py` (also `bench_synth.py --end-to-end`); "
        f"{len(runs)} run(s), each with both sides back to back on the same machine.",
        "",
        "| run | date (UTC) | config | before: wall / CPU (s) | after: wall / CPU (s) | wall ratio | CPU ratio "
        "| peak RSS before -> after (MB) | same tests |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for number, run in enumerate(runs, 1):
        old, new = best(run["rows"], "old"), best(run["rows"], "new")
        head.append(
            f"| {number} | {run['meta']['date']} | {run['meta']['config']} "
            f"| {old['wall_seconds']:.1f} / {old['cpu_seconds']:.1f} | {new['wall_seconds']:.1f} / "
            f"{new['cpu_seconds']:.1f} | {old['wall_seconds'] / new['wall_seconds']:.1f}x "
            f"| {old['cpu_seconds'] / new['cpu_seconds']:.1f}x | {old['peak_tree_mb']:.0f} -> "
            f"{new['peak_tree_mb']:.0f} | {'yes' if run['exports']['same_tests_and_verdicts'] else 'NO'} |"
        )
    walls, cpus, peaks = [], [], []
    for run in runs:
        old, new = best(run["rows"], "old"), best(run["rows"], "new")
        walls.append(old["wall_seconds"] / new["wall_seconds"])
        cpus.append(old["cpu_seconds"] / new["cpu_seconds"])
        peaks.append(new["peak_tree_mb"])
    head += [
        "",
        f"Issue 13's target, at least 10x faster end to end with peak memory under 1 GB: peak memory "
        f"{'met' if max(peaks) < 1024 else 'NOT met'} in every run (at most {max(peaks):.0f} MB); "
        f"wall-clock ratio {min(walls):.1f}x to {max(walls):.1f}x, CPU ratio {min(cpus):.1f}x to {max(cpus):.1f}x "
        f"(10x reached by wall time in {sum(w >= 10 for w in walls)} of {len(walls)} runs, by CPU time in "
        f"{sum(c >= 10 for c in cpus)}). Wall time on this shared machine "
        "follows the load of the moment (see each run); run 1's two sides also shared a session with other jobs "
        "(autogroup scheduling), run 2's each had their own.",
        "",
    ]
    body = [markdown(run, number) for number, run in enumerate(runs, 1)]
    return "\n".join(head) + "\n\n" + "\n".join(body)


def phase_table(old: dict, new: dict) -> list[str]:
    lines = ["| phase | before: share | before: s | after: share | after: s |", "|---|---|---|---|---|"]
    totals = {side: sum(r["phase_samples"].values()) or 1 for side, r in (("old", old), ("new", new))}
    for phase, _ in PHASES:
        cells = []
        for side, r in (("old", old), ("new", new)):
            share = r["phase_samples"].get(phase, 0) / totals[side]
            cells += [f"{100 * share:.1f}%", f"{share * r['wall_seconds']:.1f}"]
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    return lines


def markdown(result: dict, number: int) -> str:
    meta, rows, check = result["meta"], result["rows"], result["exports"]
    old, new = best(rows, "old"), best(rows, "new")
    lines = [
        f"## Run {number} ({meta['config']})",
        "",
        f"Machine: {meta['machine']}; Python {meta['python']}; {meta['cpus']} CPUs shared with other jobs; "
        f"{meta['date']}. Load average (1, 5, 15 min) before the timed runs: "
        + ", ".join(f"{x:.1f}" for x in meta["load_before"])
        + "; after each run: "
        + "; ".join(f"{r['side']} {r['load_after'][0]:.1f}" for r in rows)
        + ".",
        f"Command: `{meta['command']}`",
        "",
        "Runs (interpreter start to the last exported file, one fresh process each, same niceness, back to back):",
        "",
        f"- before: `{old['command']}` (baseline c14b10e: enum engine, store format 1, `check_program` per test)",
        f"- after: `{new['command']}` (today's default: compiled engine, store format 2, batch classifier)",
        "",
        "| run | wall (s) | CPU user+sys (s) | peak RSS, largest process (MB) | peak RSS, process tree (MB) | tests |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {'before' if r['side'] == 'old' else 'after'} (#{r['attempt']}) | {r['wall_seconds']:.1f} "
            f"| {r['cpu_seconds']:.1f} | {r['peak_process_mb']:.0f} | {r['peak_tree_mb']:.0f} | {r['tests']} |"
        )
    lines += [
        "",
        f"**After vs before: {old['wall_seconds'] / new['wall_seconds']:.1f}x faster in wall time, "
        f"{old['cpu_seconds'] / new['cpu_seconds']:.1f}x less CPU time; peak memory "
        f"{old['peak_tree_mb']:.0f} MB -> {new['peak_tree_mb']:.0f} MB.** (Best wall time of each side.)",
        "",
        f"Exports: {check['old_tests']} tests before, {check['new_tests']} after; the same set of "
        f"(canonical hash, canonical program, verdicts): {'yes' if check['same_tests_and_verdicts'] else 'NO'}"
        f" (only before: {check['only_old']}, only after: {check['only_new']}); verdicts.csv rows the same per file "
        f"(as label -> verdict, the column order changed): {'yes' if check['same_csv_rows'] else 'NO'}.",
        "",
        "The machine is shared (2 cores, other jobs running): wall time measures the share of the cores each run "
        "got as much as its work, and the load changed between the runs (above); CPU time (user + system of the "
        "whole process tree) is the work itself and the fairer ratio.",
        "",
        *(
            [
                "Where the time goes (py-spy samples of every process at --rate per second, without idle threads, "
                "attributed by the functions on the stack; a thread waiting for a core counts as busy, so these are "
                "shares of wall time; seconds = share x wall time):",
                "",
                *phase_table(old, new),
            ]
            if old["phase_samples"] or new["phase_samples"]
            else ["No phase profile in this run (no py-spy samples: py-spy missing or --rate 0)."]
        ),
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
