"""Benchmark: the checker at scale (issue 22), and the small check against brute force.

Part 1, families (tests/families.py: mutex, ticket, barrier, chain) at N = 2..16:
per test, in a fresh process each, the compiled checker's (progress.core.scale,
called directly, also below the 50,000 states where check_program hands over) time to all 11
verdicts and its peak memory (ru_maxrss, start-up included), the product
states per model; the unreduced Python checker's verdicts (progress.core.analyze
without the hand-over) where it finishes within --python-limit; SPIN's time to
the weak HSA verdict at even N (progress.back.promela export, spin -a, gcc -O2
-DNOREDUCE, pan -a: no partial-order reduction), where it finishes within
--spin-limit. A family stops at the first N past --limit seconds.

Part 2, the 483 published tests, all 11 verdicts, whole processes, interleaved
runs: `progress check SUITE` (text, no lassos, as the brute force gives none),
`progress check SUITE --format json` (with lassos), and tests/brute.py run as
a script (benchmarks/brute_check.py), every module byte-compiled first.
The compiled checker's run is repeated with lassos (`witnesses=True`), each
replayed by tests/brute.py's validator (`lasso_problems`).

    python benchmarks/bench_scale.py [--max-n 16] [--runs 7]

Writes docs/results/checker_scale.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

import families  # noqa: E402
from run_meta import run_meta  # noqa: E402

SUITE = REPO / "litmus" / "oopsla21"


def child(family: str, n: int, engine: str) -> None:
    """One check in this process; prints a JSON line."""
    from progress.core import analyze, scale
    from progress.core.analyze import Budget, Verdict, queries_for
    from progress.core.registry import all_models
    from progress.front.axb.parse import parse_program

    program = parse_program(families.FAMILIES[family](n), f"{family}_{n}.axb")
    queries = queries_for(all_models())
    start = time.perf_counter()
    if engine == "compiled":  # load the compiled kernels (numba's cache) on a 2-thread test first
        warm = parse_program(families.mutex(2), "warm.axb")  # its HSA lassos load the lasso kernels too
        scale.check_large(warm, [(q.model, False) for q in queries], witnesses=True)
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    if engine == "compiled":
        asks = [(q.model, q.fairness == "strong") for q in queries]
        outcomes = scale.check_large(program, asks) or []
        verdicts = [
            Verdict(q.model.name, q.fairness, o.terminates, o.states, o.transitions) for q, o in zip(queries, outcomes)
        ]
    else:
        verdicts = analyze._check_here(program, queries, Budget(1_000_000), False, give_up=False) or ()
    seconds = time.perf_counter() - start
    lassos: dict = {}
    if engine == "compiled":  # again, with a lasso per failing verdict, each replayed by tests/brute.py
        import brute

        asks = [(q.model, q.fairness == "strong") for q in queries]
        start = time.perf_counter()
        outcomes = scale.check_large(program, asks, witnesses=True) or []
        lassos["seconds"] = time.perf_counter() - start
        shown = [(q, o.witness) for q, o in zip(queries, outcomes) if o.witness is not None]
        fairness = {"none": "weak"}
        lassos["lassos"] = len(shown)
        lassos["valid"] = sum(
            not brute.lasso_problems(program, q.model.name, fairness.get(q.fairness, q.fairness), w) for q, w in shown
        )
        lassos["steps"] = max((len(w.steps) for _, w in shown), default=0)
    print(
        json.dumps(
            {
                "seconds": seconds,
                "with_lassos": lassos,
                "load_s": loaded,
                "verdicts": "".join({True: "P", False: "F", None: "?"}[v.terminates] for v in verdicts),
                "states": {v.model: v.states for v in verdicts},
                "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def run_child(family: str, n: int, engine: str, limit: float) -> dict | None:
    command = [sys.executable, __file__, "--child", family, str(n), engine]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit, check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def spin_hsa_weak(family: str, n: int, limit: float) -> dict | None:
    """SPIN's weak HSA verdict and its time (export, spin -a, gcc, pan), or None past `limit`."""
    from progress.back.promela import RECHECK, to_promela
    from progress.core.registry import find_model
    from progress.front.axb.parse import parse_program

    program = parse_program(families.FAMILIES[family](n), f"{family}_{n}.axb")
    with tempfile.TemporaryDirectory() as work:
        start = time.perf_counter()
        try:
            (Path(work) / "test.pml").write_text(to_promela(program, find_model("HSA")))
        except ValueError as error:
            return {"error": str(error)}
        command = RECHECK.format(file="test.pml").replace("-m100000", "-m100000000")
        try:
            done = subprocess.run(command, shell=True, cwd=work, capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            return None
        seconds = time.perf_counter() - start
    if "errors:" not in done.stdout:
        return {"error": (done.stdout + done.stderr)[-300:]}
    errors = done.stdout.split("errors:")[1].split()[0]
    return {"seconds": seconds, "terminates": errors == "0"}


def families_part(max_n: int, limit: float, python_limit: float, spin_limit: float) -> list[dict]:
    rows = []
    for family in families.FAMILIES:
        python_on, spin_on = True, shutil.which("spin") is not None
        for n in range(2, max_n + 1):
            row: dict = {"family": family, "n": n, "compiled": run_child(family, n, "compiled", limit)}
            if python_on:
                row["python"] = run_child(family, n, "python", python_limit)
                python_on = row["python"] is not None and "?" not in row["python"]["verdicts"]
            if spin_on and n % 2 == 0:
                row["spin_hsa_weak"] = spin_hsa_weak(family, n, spin_limit)
                spin_on = row["spin_hsa_weak"] is not None and "error" not in row["spin_hsa_weak"]
            rows.append(row)
            print(json.dumps(row), flush=True)
            if row["compiled"] is None:
                break
    return rows


def timed(command: list[str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start, done.stdout


def suite_part(runs: int) -> dict:
    progress = str(Path(sys.executable).parent / "progress")
    commands = {
        "progress check (text, 11 verdicts)": [progress, "check", str(SUITE)],
        "progress check --format json (with lassos)": [progress, "check", str(SUITE), "--format", "json"],
        "brute force (tests/brute.py as a script)": [
            sys.executable,
            str(REPO / "benchmarks" / "brute_check.py"),
            str(SUITE),
        ],
    }
    # Byte-compile explicitly: under PYTHONDONTWRITEBYTECODE (set on this
    # machine) imports never write .pyc, and every run would compile its
    # modules again (pip install compiles them; so does a default Python).
    sources = [REPO / d for d in ("progress", "models", "synth", "benchmarks")] + [REPO / "tests" / "brute.py"]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *map(str, sources)], check=True, capture_output=True)
    for command in commands.values():
        timed(command)  # warm the file cache
    times: dict[str, list[float]] = {name: [] for name in commands}
    outputs: dict[str, set[bytes]] = {name: set() for name in commands}
    for _ in range(runs):  # interleaved, so that load changes hit every command alike
        for name, command in commands.items():
            seconds, out = timed(command)
            times[name].append(seconds)
            outputs[name].add(out)
    medians = {name: statistics.median(values) for name, values in times.items()}
    brute = medians["brute force (tests/brute.py as a script)"]
    return {
        "runs": runs,
        "rows": {
            name: {
                "median_s": medians[name],
                "min_s": min(times[name]),
                "max_s": max(times[name]),
                "distinct_outputs": len(outputs[name]),
                "ratio_to_brute": medians[name] / brute,
            }
            for name in commands
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=16)
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--python-limit", type=float, default=30.0)
    parser.add_argument("--spin-limit", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--child", nargs=3, metavar=("FAMILY", "N", "ENGINE"))
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return
    result = {"meta": run_meta("bench_scale.py"), "no_bytecode_env": os.environ.get("PYTHONDONTWRITEBYTECODE", "")}
    result["suite"] = suite_part(args.runs)
    result["families"] = families_part(args.max_n, args.limit, args.python_limit, args.spin_limit)
    result["meta_end"] = run_meta("bench_scale.py")
    out = REPO / "docs" / "results"
    (out / "checker_scale.json").write_text(json.dumps(result, indent=1) + "\n")
    from report_scale import markdown

    (out / "checker_scale.md").write_text(markdown(result))


if __name__ == "__main__":
    main()
