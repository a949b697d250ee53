"""Issue 9 section 4: the results page of complete synthesized suites.

Reads finished runs made by

    /usr/bin/time -v -o RUNS/NAME.time nice -n 10 \\
        progress synth -t T -i I [--locations L] [--values V] --engine compiled --out RUNS/NAME.db

(RUNS/NAME.time: GNU time's -v output; the store gives the tests, the
judged count and the verdict masks) and writes docs/results/suites.json
with, per configuration: tests, judged, time (wall, CPU), peak resident
memory, how many tests pass / fail each verdict, distinct verdict vectors,
per lattice point the conformance and distinguishing tests (the lattice
rule of progress/core/classify.py), and per lattice edge (synth/separate.edges)
the tests separating it under the lattice and the paper's rule. With
--keys DIR it also writes DIR/NAME.keys.gz (synth/keys.py), from which
`progress synth --from-keys DIR/NAME.keys.gz --export OUT` rebuilds the tests.

Everything is counted per distinct verdict mask (SQL GROUP BY), so a suite
of 400,000 tests takes a second. Usage:

    python benchmarks/report_suites.py RUNS 2t5i 3t5i ... [--keys docs/results/suites]
"""

from __future__ import annotations

import argparse
import json
import platform
import re
from pathlib import Path

from progress.core.classify import LATTICE, PAPER, at_or_below, columns_for, strictly_below
from progress.core.registry import all_models
from progress.synth import keys
from progress.synth import separate as sep
from progress.synth.space import Bounds
from progress.synth.store import Store, unpack_verdicts

OUT = Path(__file__).resolve().parent.parent / "docs" / "results" / "suites.json"


def gnu_time(path: Path) -> dict[str, float]:
    text = path.read_text()

    def field(name: str) -> str:
        match = re.search(rf"^\s*{re.escape(name)}: (.*)$", text, re.M)
        if not match:
            raise ValueError(f"{path}: no {name!r}")
        return match.group(1).strip()

    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    return {
        "wall_s": round(wall, 2),
        "user_s": float(field("User time (seconds)")),
        "system_s": float(field("System time (seconds)")),
        "peak_rss_mb": round(int(field("Maximum resident set size (kbytes)")) / 1024, 1),
        "exit_status": int(field("Exit status")),
    }


def suite(runs: Path, name: str, keys_dir: Path | None) -> dict:
    models = list(all_models())
    with Store(runs / f"{name}.db", readonly=True) as store:
        p = store.params()
        bounds = Bounds(p["threads"], p["instructions"], p["locations"], p["values"])
        labels = store.labels()
        judged, tests = store.totals()
        groups = store._rows("SELECT verdicts, COUNT(*) FROM tests GROUP BY verdicts")
        verdicts = {label: {"P": pass_, "F": fail} for label, pass_, fail in store.verdict_counts()}
        if keys_dir is not None:
            keys_dir.mkdir(parents=True, exist_ok=True)
            with open(keys_dir / f"{name}.keys.gz", "wb") as file:
                written = keys.write_packed(file, bounds, labels, tests, store.packed_tests())
            assert written == tests
        stop, engine, elapsed = p.get("stop"), p.get("engine"), p.get("elapsed")
    rows = [(dict(zip(labels, unpack_verdicts(mask, len(labels)))), count) for mask, count in groups]
    assert sum(c for _, c in rows) == tests
    columns = columns_for(models)
    closure = at_or_below(models)
    points = []
    for point in columns:
        lower = strictly_below(point, columns, closure)
        conformance = sum(c for v, c in rows if v[point.label] == "P")
        distinguishing = sum(c for v, c in rows if v[point.label] == "P" and all(v[b.label] == "F" for b in lower))
        points.append({"point": point.label, "conformance": conformance, "distinguishing": distinguishing})
    edges = []
    for upper, lower in sep.edges(models):
        entry = {"pass": upper.label, "fail": lower.label}
        for rule in (LATTICE, PAPER):
            try:
                req = sep.requirement(upper, lower, rule)
            except ValueError:
                entry[rule] = None  # the rule has no such requirement (e.g. paper, unfair)
                continue
            entry[rule] = sum(
                c for v, c in rows if req.met_by({k: {"P": True, "F": False}.get(x) for k, x in v.items()})
            )
        edges.append(entry)
    return {
        "name": name,
        "bounds": {"threads": bounds.threads, "instructions": bounds.instructions}
        | {"locations": bounds.locations, "values": bounds.values},
        "engine": engine,
        "stop": stop,
        "tests": tests,
        "judged": judged,
        "elapsed_s": elapsed,
        "time": gnu_time(runs / f"{name}.time"),
        "verdicts": verdicts,
        "verdict_vectors": len(rows),
        "inconclusive_cells": sum(c * list(v.values()).count("?") for v, c in rows),
        "points": points,
        "edges": edges,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path)
    parser.add_argument("names", nargs="+")
    parser.add_argument("--keys", type=Path, default=None, help="write NAME.keys.gz here")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    result = {
        "machine": {"cpus": len(__import__("os").sched_getaffinity(0)), "platform": platform.platform()}
        | {"python": platform.python_version()},
        "suites": [suite(args.runs, name, args.keys) for name in args.names],
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
