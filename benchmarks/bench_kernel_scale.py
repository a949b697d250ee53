"""Benchmark: kernels at scale (issue 29, the compiled-explorer half; issue 28
part 4). For each idiom, a ladder of launches (workgroups x invocations),
each checked with all 11 verdicts (lassos included) in a fresh process under
RLIMIT_AS 4 GiB and a 60 s limit, by three engines:

- python: the unreduced Python checker (`check_system(engine="python")`);
- compiled: the unreduced compiled checker (progress/core/kernel_jit.py, kernel_decide.py);
- reduced: the Python checker with partial-order reduction (`reduce=True`, scale-reduce's).
- quiet (part `quiet`): `reduce=True` compiled, with quiet steps (docs/semantics.md section 13;
  `progress/core/kernel_reduce.py`).

An engine's ladder stops at its first launch that does not finish. Bytes per
state: (peak resident memory - resident memory before the check) / states of
the largest product. Part `exported`: the 483 published AXB tests exported as
GLSL (`progress.back.glsl_source.shader`) checked by the compiled checker,
against CADP's verdicts (cadp_verdicts.csv) and the AXB checker's.

Writes docs/results/kernels_scale.json and prints Markdown tables.

    python3 benchmarks/bench_kernel_scale.py [--part idioms,exported,quiet] [--limit 60]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "litmus" / "kernels"
OWN = REPO / "benchmarks" / "kernels"

LEADER = [(2, 1), (3, 1), (3, 2), (4, 2), (8, 1), (8, 2), (8, 4), (8, 64)]
EVERY = [(2, 1), (2, 2), (4, 1), (4, 2), (8, 1), (2, 4), (8, 2), (4, 4), (8, 4), (4, 8)]
PIET = [(2, 1), (2, 2), (3, 1), (4, 1), (3, 2), (2, 4), (4, 2), (4, 4)]
"""benchmarks/kernels/piet_fallback_scan.comp: at most 4 workgroups of 4 invocations."""
IDIOMS = {
    # name: (file, ladder, target, kind of edit)
    "look-back scan, no fallback (leader)": (KERNELS / "lookback_dynamic.comp", LEADER, (8, 64), "dynamic"),
    "look-back scan with fallback (leader)": (KERNELS / "lookback_fallback.comp", LEADER, (8, 64), "fallback"),
    "inter-workgroup barrier (leader)": (KERNELS / "grid_barrier.comp", LEADER, (8, 64), "size"),
    "ticket lock (leader)": (OWN / "leader_ticket_lock.comp", LEADER, (8, 64), "none"),
    "CAS lock (every invocation)": (OWN / "cas_lock.comp", EVERY, (8, 4), "none"),
    "TAS lock (every invocation)": (OWN / "tas_lock.comp", EVERY, (4, 8), "none"),
    "piet-gpu-shaped fallback scan (every invocation helps)": (OWN / "piet_fallback_scan.comp", PIET, (4, 4), "none"),
}
ENGINES = ("python", "compiled", "reduced")
QUIET = {
    # the launches of part `quiet` (each idiom's ladder stops at its first launch that does not finish)
    "look-back scan, no fallback (leader)": [(2, 64), (4, 64), (8, 64)],
    "look-back scan with fallback (leader)": [(2, 64), (4, 64), (5, 64), (6, 64), (8, 64)],
    "inter-workgroup barrier (leader)": [(2, 64), (4, 64), (8, 64)],
    "ticket lock (leader)": [(2, 64), (4, 64), (5, 64), (6, 64), (8, 64)],
    "CAS lock (every invocation)": [(4, 4), (4, 8), (8, 4)],
    "TAS lock (every invocation)": [(4, 4), (4, 8), (8, 4), (8, 8)],
    "piet-gpu-shaped fallback scan (every invocation helps)": [(2, 2), (3, 2), (2, 4), (4, 2), (4, 4)],
}
"""Part `quiet`: the reduced check with quiet steps, compiled (docs/semantics.md section 13)."""
QUIET_BEGIN, QUIET_END = "<!-- scale-quiet:begin -->", "<!-- scale-quiet:end -->"

CHILD = r"""
import json, resource, sys, time
limit, gib = float(sys.argv[4]), 4
resource.setrlimit(resource.RLIMIT_AS, (gib << 30, gib << 30))
from progress.cli.kernel import given_settings, kernel_system
from progress.core.analyze import check_system, queries_for
from progress.core.lts import resident_bytes
from progress.core.registry import all_models
path, workgroups, local, engine = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[5]
buffers = json.loads(sys.argv[6])
system = kernel_system(path, given_settings(workgroups, buffers, [], None, None, local_size=local))
stored = {"graph": 0, "decision": 0}
if engine != "python":
    import progress.core.kernel_decide as kd, progress.core.kernel_jit  # numba loaded before the clock
    product_of, components_of = kd.product, kd.components
    def product(graph, *args, **kwargs):  # what the graph and each product keep (arrays at their capacity)
        prod = product_of(graph, *args, **kwargs)
        stored["graph"] = max(stored["graph"], graph.bytes())
        stored["decision"] += prod.bytes() + 4 * prod.size  # + the (enabled, memory) kind of each state
        return prod
    def components(prod):
        found = components_of(prod)
        stored["decision"] += found.bytes()
        return found
    kd.product, kd.components = product, components
base = resident_bytes()
start = time.perf_counter()
try:
    report = check_system(
        system, queries_for(all_models()), time_limit=limit, max_states=10**9,
        engine={"reduced": "python", "quiet": "compiled"}.get(engine, engine), reduce=engine in ("reduced", "quiet"),
    )
    verdicts = report.verdicts
    stopped = next((v.reason for v in verdicts if v.reason), None)
except MemoryError:
    verdicts, stopped = (), "out of memory (4 GiB)"
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
states = max((v.states for v in verdicts), default=0)
print(json.dumps({
    "seconds": round(seconds, 2),
    "states": states,
    "transitions": max((v.transitions for v in verdicts), default=0),
    "verdicts": "".join("?" if v.terminates is None else "P" if v.terminates else "F" for v in verdicts),
    "stopped": stopped,
    "peak_mib": round(peak / 2**20, 1),
    "bytes_per_state": round((peak - base) / states) if states and not stopped else None,
    "stored_bytes_per_state": (
        round((stored["graph"] + stored["decision"]) / states) if states and stored["graph"] and not stopped else None
    ),
}))
"""


def edited(path: Path, kind: str, workgroups: int, folder: Path, local: int = 1) -> tuple[Path, list[str]]:
    """A copy of the kernel whose workgroup size is a specialization constant
    (so --local-size sets it) and whose per-tile (per-invocation) arrays fit the launch."""
    text = path.read_text()
    buffers: list[str] = []
    if kind != "none":
        text = re.sub(
            r"layout\(local_size_x = (\d+)\) in;", r"layout(local_size_x = \1, local_size_x_id = 0) in;", text
        )
    if kind == "fallback":
        text = text.replace("[3];", f"[{workgroups}];").replace("inputs[6]", f"inputs[{2 * workgroups}]")
    if kind == "size":  # grid_barrier.comp: one value and result per invocation, read from the next workgroup
        total = workgroups * local
        text = text.replace("values[4]", f"values[{total}]").replace("results[4]", f"results[{total}]")
        text = text.replace("(me + 2u) % 4u", f"(me + {local}u) % {total}u")
    if kind == "dynamic":
        buffers = [f"{name}={workgroups}" for name in ("flags", "aggregates", "prefixes")]
    out = folder / f"{path.stem}_{workgroups}x{local}.comp"
    out.write_text(text)
    return out, buffers


def run_one(path: Path, workgroups: int, local: int, engine: str, buffers: list[str], limit: float) -> dict:
    command = [
        sys.executable,
        "-c",
        CHILD,
        str(path),
        str(workgroups),
        str(local),
        str(limit),
        engine,
        json.dumps(buffers),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit + 120, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {"stopped": "killed past the limit", "seconds": None, "states": 0, "verdicts": ""}
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"stopped": f"exit {done.returncode}: {tail[:200]}", "seconds": None, "states": 0, "verdicts": ""}
    return json.loads(done.stdout.strip().splitlines()[-1])


def idioms(limit: float, engines: tuple[str, ...], only: str = "") -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (path, ladder, target, kind) in IDIOMS.items():
            if only not in name:
                continue
            for engine in engines:
                for workgroups, local in ladder:
                    copy, buffers = edited(path, kind, workgroups, Path(tmp), local)
                    result = run_one(copy, workgroups, local, engine, buffers, limit)
                    row = {"idiom": name, "kernel": str(path.relative_to(REPO)), "target": list(target)}
                    row |= {"engine": engine, "workgroups": workgroups, "invocations": local, **result}
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
                    if result.get("stopped"):
                        break
    return rows


def quiet(limit: float, only: str = "") -> list[dict]:
    """Part `quiet`: each idiom of QUIET at its launches, reduced with quiet steps and compiled."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, ladder in QUIET.items():
            if only not in name:
                continue
            path, _, target, kind = IDIOMS[name]
            for workgroups, local in ladder:
                copy, buffers = edited(path, kind, workgroups, Path(tmp), local)
                result = run_one(copy, workgroups, local, "quiet", buffers, limit)
                row = {"idiom": name, "kernel": str(path.relative_to(REPO)), "target": list(target)}
                row |= {"engine": "quiet", "workgroups": workgroups, "invocations": local, **result}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
                if result.get("stopped"):
                    break
    return rows


def quiet_section(rows: list[dict], meta: dict) -> str:
    """The results page's section for part `quiet` (between QUIET_BEGIN and QUIET_END)."""
    lines = [
        QUIET_BEGIN,
        "## The reductions, compiled (`--reduce` from 16 invocations)",
        "",
        "Written by `python3 benchmarks/bench_kernel_scale.py --part quiet` (raw: kernels_scale_quiet.json):",
        "`check_system(reduce=True, engine='compiled')` (`progress/core/kernel_reduce.py`): kernels with",
        "barriers or private cells get docs/semantics.md section 13's normal forms (barrier arrivals and last",
        "steps folded; section 15's reads of Workgroup memory between barriers too), the others (the locks)",
        "section 12's quotient by interchangeable invocations; kernels that never read their workgroup id",
        "are checked for unfair, fair and OBE up to workgroup permutations too (section 14; an unfair or OBE",
        "pass gives the contained models' passes, 14.4), the other models without them; all 11",
        "verdicts with lassos, each launch in a fresh process under RLIMIT_AS 4 GiB and a 60 s time limit;",
        "states are those of the largest product (with the STARTED memory). Bytes per state: the peak",
        "resident memory less that before the check, over those states (whole process: numba's code and",
        "the step tables included); stored bytes per state: what the explored graph (`Graph.bytes`: rows,",
        "edges, parents, step tables, arrays at their capacity, 8 per state for the hash table) and the",
        "decision (`Product.bytes`, the SCCs, a kind per state) keep, over the same states. A ladder",
        f"stops at its first launch that does not finish. Load average at the start: {meta['load_at_start'][0]:.1f} on",
        f"{meta['cpu_count']} cores ({meta['when']}). The unreduced checkers' rows are in the tables above.",
        "",
        "| idiom | workgroups x invocations | states | transitions | seconds | peak MiB | bytes per state "
        "| stored bytes per state | verdicts |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if row.get("stopped"):
            states = f"stopped: {row['stopped']} ({row['states']:,} states)"
        else:
            states = f"{row['states']:,}"
        lines.append(
            f"| {row['idiom']} | {row['workgroups']}x{row['invocations']} | {states} | {row.get('transitions', '')} "
            f"| {row.get('seconds')} | {row.get('peak_mib')} | {row.get('bytes_per_state') or ''} "
            f"| {row.get('stored_bytes_per_state') or ''} | `{row['verdicts']}` |"
        )
    lines.append(QUIET_END)
    return "\n".join(lines)


def write_quiet(rows: list[dict], meta: dict) -> None:
    """Put part `quiet`'s section into docs/results/kernels_scale.md (replacing the last one)."""
    page = REPO / "docs" / "results" / "kernels_scale.md"
    text = page.read_text()
    section = quiet_section(rows, meta)
    if QUIET_BEGIN in text:
        head, rest = text.split(QUIET_BEGIN, 1)
        text = head + section + rest.split(QUIET_END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    page.write_text(text)


def exported(suite: Path) -> dict:
    """The 483 published tests through the compiled kernel checker, against CADP and AXB."""
    import csv

    from progress.back.glsl_source import shader
    from progress.core.analyze import check_program, check_system, queries_for
    from progress.core.registry import all_models
    from progress.front.axb.parse import parse_program
    from progress.front.header import launch_settings
    from progress.front.spirv.kernel import KernelSystem, Launch
    from progress.front.spirv.load import load_kernel

    queries = queries_for(all_models())
    with open(suite / "cadp_verdicts.csv", newline="") as handle:
        cadp = {row["test"]: row for row in csv.DictReader(handle)}
    tests = sorted(p for p in suite.rglob("*.axb"))
    compared = differ_cadp = differ_axb = 0
    start = time.perf_counter()
    for path in tests:
        name = str(path.relative_to(suite))
        program = parse_program(path.read_text(), name)
        text = shader(program)
        launch = launch_settings(text, "exported.comp", "glsl")
        module = load_kernel(text.encode(), "exported.comp", "glsl").module
        kernel = KernelSystem(
            module, Launch(launch.workgroups or 1, dict(launch.buffers), launch.init), name, name, "0"
        )
        got = check_system(kernel, queries, engine="compiled", witnesses=False).verdicts
        axb = check_program(program, queries, witnesses=False).verdicts
        row = cadp.get(name, {})
        for verdict, expected in zip(got, axb):
            compared += 1
            differ_axb += verdict.terminates != expected.terminates
            key = f"{verdict.model}/{verdict.fairness}"
            want = row.get(key, "F") == "P"  # unfair: not in the table, every synthesized test fails it
            differ_cadp += verdict.terminates != want
    return {
        "tests": len(tests),
        "verdicts": compared,
        "differ_from_cadp": differ_cadp,
        "differ_from_axb": differ_axb,
        "seconds": round(time.perf_counter() - start, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="idioms,exported")
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--only", default="", help="only the idioms whose name contains this")
    parser.add_argument("--suite", type=Path, default=REPO / "litmus" / "oopsla21")
    parser.add_argument("--out", default=str(REPO / "docs" / "results" / "kernels_scale.json"))
    args = parser.parse_args()
    parts = args.part.split(",")
    meta = {
        "command": "python3 benchmarks/bench_kernel_scale.py " + " ".join(sys.argv[1:]),
        "load_at_start": os.getloadavg(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.platform(),
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    result: dict = {"meta": meta}
    if "quiet" in parts:
        rows = quiet(args.limit, args.only)
        out = REPO / "docs" / "results" / "kernels_scale_quiet.json"
        if args.only and out.exists():  # keep the other idioms' saved rows, in QUIET's order
            kept = [r for r in json.loads(out.read_text())["quiet"] if args.only not in r["idiom"]]
            order = list(QUIET)
            rows = sorted(kept + rows, key=lambda r: order.index(r["idiom"]))
        out.write_text(json.dumps({"meta": meta, "quiet": rows}, indent=1) + "\n")
        write_quiet(rows, meta)
        if parts == ["quiet"]:
            return
    if "idioms" in parts:
        result["idioms"] = idioms(args.limit, tuple(args.engines.split(",")), args.only)
    if "exported" in parts:
        result["exported"] = exported(args.suite)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    for row in result.get("idioms", []):
        states = f"{row['states']}" + (f" ({row['stopped']})" if row.get("stopped") else "")
        print(
            f"| {row['idiom']} | {row['engine']} | {row['workgroups']}x{row['invocations']} | {states} "
            f"| {row.get('seconds')} | {row.get('peak_mib')} | {row.get('bytes_per_state')} | `{row['verdicts']}` |"
        )
    if "exported" in result:
        print(json.dumps(result["exported"]))


if __name__ == "__main__":
    main()
