"""Benchmark the synthesizer on the paper's five configurations.

    python benchmarks/bench_synth.py [--skip-z3 | --z3-from JSON] [--baseline-limit SECONDS] [--out docs/results]

For each configuration, in one process, one after the other:
- `default-engine run`: what `progress synth` does (space, search, classification
  under all 11 verdicts, SQLite store in a temporary file; no export);
- `enum search`: the enum engine's search alone (space + judge);
- `baseline search`: the straightforward enumeration (synth/baseline.py),
  one candidate at a time, plain Python, stopped at --baseline-limit;
- `z3 search`: the z3 engine's search alone (every solution, class blocking);
- `compiled search`: the compiled engine's search alone (streamed space,
  numba judge), in the same process, with its rate against enum's.
The engines' sets and the baseline's (when complete) are compared. Then
(section "compiled judge at scale") agreement with 3 locations / 3 values,
complete compiled searches of 2t5i and 3t5i, sampled rates on 2t6i and 3t6i
with time estimates, and peak memory of a worker process. Writes synth.md
and synth.json into --out. Rates use process CPU time (the machine is
shared) and wall-clock time is given beside it.

    python benchmarks/bench_synth.py --end-to-end --old OLD/bin/progress [--config 3t5i]

runs benchmarks/bench_synth_e2e.py instead: `progress synth ... --export`
end to end, today's against the pipeline before issue 13, in one run
(synth_e2e.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from run_meta import run_meta

from progress.synth import fast_judge
from progress.synth.baseline import baseline_search
from progress.synth.driver import DEFAULT_ENGINE, Settings, synthesize
from progress.synth.enum_engine import search_unit
from progress.synth.space import Bounds, Space, partitions
from progress.synth.store import Store
from progress.synth.stream import StreamSpace
from progress.synth.work import _judges, space_for

CONFIGS = [Bounds(2, 2), Bounds(2, 3), Bounds(2, 4), Bounds(3, 3), Bounds(3, 4)]
PAPER = {
    "2t2i": (8, "completed"),
    "2t3i": (176, "timed out after 7 days"),
    "2t4i": (173, "timed out after 7 days"),
    "3t3i": (21, "timed out after 7 days"),
    "3t4i": (105, "timed out after 7 days"),
}


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def cpu_timed(function, *args):
    """(result, wall seconds, this process's CPU seconds)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def compiled_search(bounds: Bounds, units=None):
    """(set of tests, judged) over all units (or the given unit ids)."""
    space = fast_judge.stream_space(bounds)
    found: set = set()
    judged = 0
    for unit in range(space.unit_count) if units is None else units:
        search = fast_judge.judge_unit(bounds, unit)
        found.update(search.found)
        judged += search.judged
    return found, judged


def enum_search_timed(bounds: Bounds):
    """The enum search with its space build timed apart: (space, found, judged, build wall/cpu, search wall/cpu)."""
    space, build_wall, build_cpu = cpu_timed(Space, bounds)
    judges: dict = {}

    def run():
        return frozenset(c for unit in space.units for _, c in search_unit(space, unit, judges)[0])

    found, wall, cpu = cpu_timed(run)
    return space, found, (build_wall, build_cpu), (wall, cpu)


def enum_run(bounds: Bounds) -> dict:
    space_for.cache_clear()
    _judges.cache_clear()
    with tempfile.TemporaryDirectory() as folder:
        with Store(Path(folder) / "run.db") as store:
            store.set_params(Settings(bounds).params())
            outcome, seconds = timed(synthesize, store, Settings(bounds, DEFAULT_ENGINE))
            tests = store.count_tests()
    assert outcome.stop.value == "exhausted"
    return {"seconds": seconds, "tests": tests, "judged": outcome.progress.judged}


def enum_search(bounds: Bounds):
    space = Space(bounds)
    judges: dict = {}
    found = frozenset(c for unit in space.units for _, c in search_unit(space, unit, judges)[0])
    return space, found


def z3_search(bounds: Bounds):
    from progress.synth.z3_engine import solve_partition

    return frozenset(c for lengths in partitions(bounds) for c in solve_partition(lengths, bounds))


def measure(bounds: Bounds, args) -> dict:
    row = {"config": bounds.label, "enum_run": enum_run(bounds)}
    (space, found), row["enum_search_seconds"] = timed(enum_search, bounds)
    _, _, build, search = enum_search_timed(bounds)
    row["enum_cpu"] = {"build": build[1], "search": search[1]}
    (compiled, judged), wall, cpu = cpu_timed(compiled_search, bounds)
    row["compiled"] = {"wall": wall, "cpu": cpu, "judged": judged, "agrees": compiled == found}
    row.update(
        programs=space.raw_size,
        canonical=space.canonical_size,
        after_static_pruning=space.pruned_size,
        tests=len(found),
    )
    base, row["baseline_seconds"] = timed(baseline_search, bounds, args.baseline_limit)
    row["baseline_complete"] = base.complete
    row["baseline_judged"] = base.judged
    row["baseline_agrees"] = base.found == found if base.complete else None
    if args.z3_from:
        earlier = next(r for r in args.z3_from["rows"] if r["config"] == bounds.label)
        row.update(z3_search_seconds=earlier["z3_search_seconds"], z3_agrees=earlier["z3_agrees"], z3_copied=True)
    elif not args.skip_z3:
        z3_found, row["z3_search_seconds"] = timed(z3_search, bounds)
        row["z3_agrees"] = z3_found == found
    paper_tests, paper_status = PAPER[bounds.label]
    row.update(paper_tests=paper_tests, paper_status=paper_status)
    print(json.dumps(row), file=sys.stderr, flush=True)
    return row


AGREE = [
    Bounds(2, 3, locations=3),
    Bounds(3, 3, locations=3),
    Bounds(2, 3, values=3),
    Bounds(3, 3, values=3),
    Bounds(2, 2, locations=3, values=3),
]
COMPLETE = ["2t5i", "3t5i"]
SAMPLED = {"2t6i": 100, "3t6i": 25}  # every k-th unit


def parse_label(label: str) -> Bounds:
    threads, instructions = label.rstrip("i").split("t")
    return Bounds(int(threads), int(instructions))


def name(bounds: Bounds) -> str:
    extra = "" if (bounds.locations, bounds.values) == (2, 2) else f" L={bounds.locations} V={bounds.values}"
    return bounds.label + extra


def agreement(args) -> list[dict]:
    """compiled = enum (= z3) with 3 locations or 3 values."""
    rows = []
    for bounds in AGREE:
        compiled, judged = compiled_search(bounds)
        space, enum_found, _, _ = enum_search_timed(bounds)
        row = {"config": name(bounds), "tests": len(compiled), "judged": judged, "pruned": space.pruned_size}
        row["enum_agrees"] = compiled == enum_found and judged == space.pruned_size
        if args.z3_from:
            earlier = next(a for a in args.z3_from["meta"]["scale"]["agreement"] if a["config"] == row["config"])
            row.update(z3_seconds=earlier["z3_seconds"], z3_agrees=earlier["z3_agrees"], z3_copied=True)
        elif not args.skip_z3:
            z3_found, row["z3_seconds"] = timed(z3_search, bounds)
            row["z3_agrees"] = z3_found == compiled
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def worker(label: str, step: int) -> dict:
    """One configuration in this process (run as a subprocess: its peak memory is its own)."""
    import resource

    bounds = parse_label(label)
    compiled_search(Bounds(2, 2))  # load the compiled code first
    space, build_wall, _ = cpu_timed(StreamSpace, bounds)
    units = list(range(0, space.unit_count, step))
    wall, cpu = time.perf_counter(), time.process_time()
    judged = tests = raw = 0
    for unit in units:
        search = fast_judge.judge_unit(bounds, unit)
        judged += search.judged
        tests += len(search.found)
        raw += space.unit(unit).size
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "config": label,
        "complete": step == 1,
        "units": space.unit_count,
        "units_run": len(units),
        "programs": space.raw_size,
        "canonical": space.canonical_size,
        "raw_run": raw,
        "judged": judged,
        "tests": tests,
        "wall": wall,
        "cpu": cpu,
        "space_seconds": build_wall,
        "estimated_cpu": cpu * space.raw_size / raw,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def enum_worker(label: str, step: int) -> dict:
    """The enum engine on one configuration: its space build and a sample of its units."""
    import resource

    bounds = parse_label(label)
    space, build_wall, build_cpu = cpu_timed(Space, bounds)
    rss_space = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    judges: dict = {}
    units = space.units[::step]
    cpu = time.process_time()
    judged = sum(search_unit(space, unit, judges)[1] for unit in units)
    cpu = time.process_time() - cpu
    return {
        "config": label,
        "space_wall": build_wall,
        "space_cpu": build_cpu,
        "space_rss_mb": rss_space,
        "units_run": len(units),
        "judged": judged,
        "cpu": cpu,
        "rate_cpu": judged / cpu,
    }


def subprocess_json(*argv: str) -> dict:
    import subprocess

    out = subprocess.run([sys.executable, __file__, *argv], check=True, capture_output=True, text=True).stdout
    row = json.loads(out.strip().splitlines()[-1])
    print(json.dumps(row), file=sys.stderr, flush=True)
    return row


def at_scale(args) -> dict:
    result = {"agreement": agreement(args)}
    result["compiled"] = [subprocess_json("--worker", label, "1") for label in COMPLETE]
    result["compiled"] += [subprocess_json("--worker", label, str(step)) for label, step in SAMPLED.items()]
    result["enum"] = [subprocess_json("--enum-worker", "3t5i", "20")]
    if args.enum_2t5i:
        result["enum"].append(subprocess_json("--enum-worker", "2t5i", "40"))
    return result


def scale_markdown(scale: dict, rows: list[dict]) -> list[str]:
    lines = [
        "",
        "## The compiled judge (`--engine compiled`)",
        "",
        "Rates are candidates judged per second of this process's CPU time (one core; the machine is shared, "
        "so wall-clock time is longer and noisier). The enum engine's search excludes building its space.",
        "",
        "| config | judged | enum search (CPU s) | enum rate (/s) | compiled search (CPU s) | compiled rate (/s) "
        "| speed-up per core | sets and counts agree |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        c, e = r["compiled"], r["enum_cpu"]
        er, cr = c["judged"] / e["search"], c["judged"] / c["cpu"]
        lines.append(
            f"| {r['config']} | {c['judged']} | {e['search']:.2f} | {er:,.0f} | {c['cpu']:.3f} | {cr:,.0f} "
            f"| {cr / er:.1f}x | {'yes' if c['agrees'] and c['judged'] == r['after_static_pruning'] else 'NO'} |"
        )
    judged = sum(r["compiled"]["judged"] for r in rows)
    e_cpu = sum(r["enum_cpu"]["search"] for r in rows)
    e_build = sum(r["enum_cpu"]["build"] for r in rows)
    c_cpu = sum(r["compiled"]["cpu"] for r in rows)
    lines += [
        "",
        f"All five: compiled {judged / c_cpu:,.0f} judged/s, enum {judged / e_cpu:,.0f}/s "
        f"(**{e_cpu / c_cpu:.1f}x**; {(e_cpu + e_build) / c_cpu:.1f}x counting enum's space build, "
        f"{e_build:.2f} s).",
    ]
    for e in scale["enum"]:
        mine = next((c for c in scale["compiled"] if c["config"] == e["config"]), None)
        if mine:
            rate = mine["judged"] / mine["cpu"]
            lines.append(
                f"{e['config']}, same run: enum {e['rate_cpu']:,.0f} judged/s (sampled units, "
                f"{e['judged']} judged), compiled {rate:,.0f}/s: **{rate / e['rate_cpu']:.1f}x** per core. "
                f"Enum's space: {e['space_wall']:.1f} s, {e['space_rss_mb']:.0f} MB resident."
            )
        else:
            lines.append(
                f"{e['config']}: enum's space takes {e['space_wall']:.1f} s and {e['space_rss_mb']:.0f} MB resident "
                f"before the search; its rate {e['rate_cpu']:,.0f} judged/s."
            )
    lines += [
        "",
        "Agreement with 3 locations or 3 values (compiled = enum: sets and judged counts; = z3: sets):",
        "",
        "| config | judged | tests | compiled = enum | compiled = z3 |",
        "|---|---|---|---|---|",
    ]
    yes = {True: "yes", False: "NO", None: "not run"}
    for a in scale["agreement"]:
        lines.append(
            f"| {a['config']} | {a['judged']} | {a['tests']} | {yes[a['enum_agrees']]} | {yes[a.get('z3_agrees')]} |"
        )
    lines += [
        "",
        "Beyond the paper's bounds (search only, no classification; each in its own process: peak resident "
        "memory is the whole process's, Python and numba included):",
        "",
        "| config | programs (c. 4) | units | run | judged | tests | CPU s | judged/s | est. CPU for all "
        "| space built in | peak RSS |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in scale["compiled"]:
        run = "all" if c["complete"] else f"{c['units_run']} sampled (every {c['units'] // max(c['units_run'], 1)}th)"
        lines.append(
            f"| {c['config']} | {c['programs']:,} | {c['units']} | {run} | {c['judged']:,} | {c['tests']:,} "
            f"| {c['cpu']:.1f} | {c['judged'] / c['cpu']:,.0f} | {c['estimated_cpu'] / 60:.1f} min "
            f"| {c['space_seconds'] * 1000:.1f} ms | {c['peak_rss_mb']:.0f} MB |"
        )
    lines.append(
        "\n*est. CPU for all* scales the sample's CPU time by programs / programs sampled (one core; "
        "divide by the number of workers)."
    )
    return lines


def markdown(rows: list[dict], meta: dict) -> str:
    total = sum(r["enum_run"]["seconds"] for r in rows)
    search = sum(r["enum_search_seconds"] for r in rows)
    base = sum(r["baseline_seconds"] for r in rows)
    lines = [
        "# Synthesizer benchmark (`benchmarks/bench_synth.py`)",
        "",
        f"Machine: {meta['machine']}; Python {meta['python']}; {meta['cpus']} CPUs (shared with other jobs; "
        f"load average {meta['load_average'][0]:.1f} at the end); date {meta['date']}.",
        f"Command: `{meta['command']}`",
        "",
        f"Times are in-process wall-clock seconds. *default-engine run* ({DEFAULT_ENGINE}) is what "
        "`progress synth` does (space, search, "
        "classification of every test under all 11 verdicts, SQLite store in a temporary file) without the "
        "interpreter start (~0.3 s) or `--export` (one file per test). *search* columns find the set of tests "
        "only. The *baseline* (synth/baseline.py) is the straightforward enumeration: every program meeting "
        "constraint 4 generated one at a time, skipped unless in canonical location order, and judged by the "
        "reference judge (synth/constraints.py: `progress.core.lts.explore` + networkx, static checks first, first "
        "violation only).",
        "",
        "| config | programs (c. 4) | up to renaming | after static pruning | tests "
        "| paper's tests (Alloy, 7-day limit) | default-engine run (s) | enum search (s) "
        "| baseline search (s) | z3 search (s) | engines agree |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        baseline = f"{r['baseline_seconds']:.2f}" + ("" if r["baseline_complete"] else " (stopped: lower bound)")
        z3 = f"{r['z3_search_seconds']:.2f}" if "z3_search_seconds" in r else "not run"
        agree = {True: "yes", False: "NO", None: "n/a"}
        lines.append(
            f"| {r['config']} | {r['programs']} | {r['canonical']} | {r['after_static_pruning']} "
            f"| {r['tests']} | {r['paper_tests']} ({r['paper_status']}) | {r['enum_run']['seconds']:.2f} "
            f"| {r['enum_search_seconds']:.2f} | {baseline} | {z3} "
            f"| enum=z3: {agree[r.get('z3_agrees')]}, enum=baseline: {agree[r['baseline_agrees']]} |"
        )
    complete = all(r["baseline_complete"] for r in rows)
    lines += [
        "",
        f"**All five, default engine ({DEFAULT_ENGINE}), full run (search, 11-verdict classification, "
        f"SQLite store): {total:.2f} s.** Search alone: {search:.2f} s.",
        f"Straightforward baseline search: {base:.2f} s"
        + ("" if complete else " (a lower bound: stopped)")
        + f", {base / search:.1f}x the enum search and {base / total:.1f}x the full default-engine run.",
        f"z3 is the slowest engine here; the default is {DEFAULT_ENGINE} (synth/driver.py: DEFAULT_ENGINE).",
    ]
    if "z3_from" in meta:
        lines += [
            "",
            f"*z3 was not re-run here*: its columns (here and in the agreement table below) are copied from the "
            f"run of {meta['z3_from']} (`--z3-from`), to keep this run short on the loaded machine; "
            "tests/test_synth_engines.py and tests/test_synth_compiled.py check z3's agreement on every test run.",
        ]
    lines += [
        "",
        "The paper (OOPSLA'21, Sec. 5) ran Alloy + a SAT solver for up to 7 days per configuration on a "
        "20-core Xeon Gold 6230 with 1 TB of RAM; every run but 2t2i timed out, with 483 tests in all. "
        "Here every configuration is exhausted (stop reason `exhausted`: no other test exists within the "
        "bounds).",
    ]
    if "scale" in meta:
        lines += scale_markdown(meta["scale"], rows)
    return "\n".join(lines) + "\n"


def main() -> None:
    if "--end-to-end" in sys.argv[1:]:  # issue 13: the whole pipeline, before against after (its own options)
        import bench_synth_e2e

        bench_synth_e2e.main([a for a in sys.argv[1:] if a != "--end-to-end"])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-z3", action="store_true")
    parser.add_argument("--z3-from", metavar="JSON", help="copy the z3 columns from an earlier synth.json")
    parser.add_argument("--baseline-limit", type=float, default=600.0)
    parser.add_argument("--out", default="docs/results")
    parser.add_argument("--render", metavar="JSON", help="only rewrite synth.md from an earlier synth.json")
    parser.add_argument("--skip-scale", action="store_true", help="only the five paper configurations")
    parser.add_argument("--enum-2t5i", action="store_true", help="also build enum's 2t5i space (about 1 GB)")
    parser.add_argument("--worker", nargs=2, metavar=("CONFIG", "STEP"), help=argparse.SUPPRESS)
    parser.add_argument("--enum-worker", nargs=2, metavar=("CONFIG", "STEP"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker or args.enum_worker:
        label, step = args.worker or args.enum_worker
        print(json.dumps((worker if args.worker else enum_worker)(label, int(step))))
        return
    if args.render:
        data = json.loads(Path(args.render).read_text())
        (Path(args.out) / "synth.md").write_text(markdown(data["rows"], data["meta"]))
        return
    z3_from = None
    if args.z3_from:
        args.z3_from = json.loads(Path(args.z3_from).read_text())
        z3_from = args.z3_from["meta"]["date"]
    compiled_search(Bounds(2, 2))  # load (or compile) the numba code before timing it
    rows = [measure(bounds, args) for bounds in CONFIGS]
    scale = None if args.skip_scale else at_scale(args)
    meta = run_meta("bench_synth.py")
    if z3_from:
        meta["z3_from"] = z3_from
    if scale is not None:
        meta["scale"] = scale
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "synth.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    (out / "synth.md").write_text(markdown(rows, meta))
    print((out / "synth.md").read_text())


if __name__ == "__main__":
    main()
