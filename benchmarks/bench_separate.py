"""Benchmark `progress separate` (issue 10) against filtering the full synthesis.

    python benchmarks/bench_separate.py [--z3-configs 2t2i,2t3i,3t3i] [--out docs/results]

1. Agreement, every edge under both rules, every configuration up to 3t4i:
   the separating tests of each size found by `separate.search_size` (the
   enum space and judge, then only the named verdicts) equal the tests of a
   full `progress synth` run (every verdict, SQLite store) filtered by the
   requirement; and `separate_all` stops at the first size the filter finds.
2. Speed of one requirement: `separate.search_size` for LOBE/strong vs
   HSA+OBE/strong against the full synthesis of the same size (the
   baseline: what a user filtering by hand runs first).
3. The two engines on the same bounds: enum (judge every candidate, check
   the named verdicts) against z3 (Z3 proposes tests failing B with a fair
   lasso, A checked explicitly, each proposal blocked), every edge under the
   lattice rule, on --z3-configs; the separating sets must be equal.
Writes separation-bench.md and separation-bench.json into --out.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from progress.core.classify import LATTICE, PAPER, Column
from progress.core.registry import all_models
from progress.synth import separate as sep
from progress.synth.canonical import key
from progress.synth.driver import Settings, synthesize
from progress.synth.space import Bounds
from progress.synth.store import Store, unpack_verdicts
from progress.synth.work import _judges, space_for

CONFIGS = [Bounds(2, 2), Bounds(2, 3), Bounds(2, 4), Bounds(3, 3), Bounds(3, 4)]
MODELS = list(all_models())
BY_NAME = {m.name: m for m in MODELS}
REQS = [sep.requirement(a, b, rule) for rule in (LATTICE, PAPER) for a, b in sep.edges(MODELS)]


def synth_store(bounds: Bounds) -> tuple[list, float]:
    """(candidate, {label: True/False/None}) for every test, and the seconds of the full synthesis."""
    space_for.cache_clear()
    _judges.cache_clear()
    with tempfile.TemporaryDirectory() as folder:
        with Store(Path(folder) / "run.db") as store:
            store.set_params(Settings(bounds).params())
            start = time.perf_counter()
            outcome = synthesize(store, Settings(bounds))
            seconds = time.perf_counter() - start
            assert outcome.stop.value == "exhausted"
            labels = store.labels()
            tests = [
                (c, {lab: {"P": True, "F": False}.get(v) for lab, v in zip(labels, unpack_verdicts(m, len(labels)))})
                for c, m in store.tests()
            ]
    return tests, seconds


def agreement(stores: dict) -> list[dict]:
    rows = []
    for bounds in CONFIGS:
        tests = stores[bounds.label][0]
        start = time.perf_counter()
        reports = sep.search_size(bounds, REQS, BY_NAME)
        seconds = time.perf_counter() - start
        agree = 0
        for req, report in zip(REQS, reports):
            want = {key(c) for c, verdicts in tests if req.met_by(verdicts)}
            assert {key(c) for c in report.separating} == want, (req.text, bounds.label)
            agree += 1
        rows.append({"config": bounds.label, "requirements": agree, "tests": len(tests), "search_all_s": seconds})
    results = sep.separate_all(REQS, Bounds(3, 4), MODELS)
    for req, result in zip(REQS, results):
        hits = [b for b in sep.sizes(Bounds(3, 4)) if any(req.met_by(v) for _, v in stores[b.label][0])]
        assert (result.found.bounds if result.found else None) == (hits[0] if hits else None), req.text
    return rows


def one_requirement(stores: dict) -> list[dict]:
    req = sep.requirement(Column("LOBE", "strong"), Column("HSA+OBE", "strong"))
    rows = []
    for bounds in (Bounds(3, 3), Bounds(3, 4)):
        space_for.cache_clear()
        _judges.cache_clear()
        start = time.perf_counter()
        report = sep.search_size(bounds, [req], BY_NAME)[0]
        seconds = time.perf_counter() - start
        rows.append(
            {
                "config": bounds.label,
                "separating": len(report.separating),
                "separate_s": seconds,
                "synth_s": stores[bounds.label][1],
            }
        )
    return rows


def engines(configs: list[Bounds]) -> list[dict]:
    rows = []
    for bounds in configs:
        for req in REQS:
            if req.rule != LATTICE or sep.dominated(req, BY_NAME, bounds.threads):
                continue
            start = time.perf_counter()
            enum = sep.search_size(bounds, [req], BY_NAME)[0]
            enum_s = time.perf_counter() - start
            start = time.perf_counter()
            z3 = sep.search_size_z3(bounds, req, BY_NAME)
            z3_s = time.perf_counter() - start
            assert enum.separating == z3.separating, (req.text, bounds.label)
            rows.append(
                {
                    "config": bounds.label,
                    "edge": f"{req.a.label} > {req.b.label}",
                    "separating": len(enum.separating),
                    "enum_s": enum_s,
                    "z3_s": z3_s,
                    "z3_proposals": z3.tests,
                }
            )
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def markdown(data: dict) -> str:
    lines = [
        "# `progress separate` benchmark (`benchmarks/bench_separate.py`)",
        "",
        f"Machine: {data['machine']}; {data['cpus']} CPUs (shared with other jobs: load average "
        f"{data['load']:.1f} at the end); date {data['date']}. Times are in-process wall-clock seconds.",
        "",
        "## 1. Agreement with the filtered synthesis, every edge, both rules, up to 3t4i",
        "",
        "For each configuration, the separating tests `separate` finds for each of the "
        f"{len(REQS)} requirements (15 edges x 2 rules) equal the tests of the full synthesis (every "
        "verdict, stored) that meet the requirement; and `separate_all` up to 3t4i stops, for every "
        "requirement, at the first size the filter finds (or at none).",
        "",
        "| config | tests | requirements agreeing | one shared pass for all (s) |",
        "|---|---:|---:|---:|",
    ]
    for row in data["agreement"]:
        lines.append(f"| {row['config']} | {row['tests']} | {row['requirements']} | {row['search_all_s']:.2f} |")
    lines += [
        "",
        "## 2. One requirement against synthesizing everything",
        "",
        "LOBE/strong vs HSA+OBE/strong, lattice rule: `separate`'s search of one size (two verdicts per "
        "test) against the full synthesis of that size (11 verdicts per test, stored), which a user "
        "would run before filtering.",
        "",
        "| config | separating | separate (s) | full synthesis (s) | ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in data["one_requirement"]:
        ratio = row["synth_s"] / row["separate_s"] if row["separate_s"] else float("inf")
        lines.append(
            f"| {row['config']} | {row['separating']} | {row['separate_s']:.2f} | {row['synth_s']:.2f} | {ratio:.1f}x |"
        )
    lines += [
        "",
        "## 3. The engines on the same bounds: enum against z3 (counterexample-guided)",
        "",
        "Every lattice edge the subset argument does not settle; equal separating sets asserted.",
        "",
        "| config | edge | separating | enum (s) | z3 (s) | z3 proposals (tests failing B) | z3 / enum |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    enum_total = z3_total = 0.0
    for row in data["engines"]:
        enum_total += row["enum_s"]
        z3_total += row["z3_s"]
        ratio = row["z3_s"] / row["enum_s"] if row["enum_s"] else float("inf")
        lines.append(
            f"| {row['config']} | {row['edge']} | {row['separating']} | {row['enum_s']:.3f} | {row['z3_s']:.2f} "
            f"| {row['z3_proposals']} | {ratio:.0f}x |"
        )
    if data["engines"]:
        lines += [
            "",
            f"**Total: enum {enum_total:.2f} s, z3 {z3_total:.1f} s ({z3_total / enum_total:.0f}x slower).** "
            "enum is the default (`separate.DEFAULT_ENGINE`); z3 stays as the independent cross-check.",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--z3-configs", default="2t2i,2t3i,3t3i")
    parser.add_argument("--out", default="docs/results")
    args = parser.parse_args()
    stores = {}
    for bounds in CONFIGS:
        stores[bounds.label] = synth_store(bounds)
        print(f"synth {bounds.label}: {len(stores[bounds.label][0])} tests", file=sys.stderr, flush=True)
    z3_configs = [b for b in CONFIGS + [Bounds(3, 5)] if b.label in args.z3_configs.split(",")]
    data = {
        "machine": f"{platform.platform()}; Python {platform.python_version()}",
        "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "agreement": agreement(stores),
        "one_requirement": one_requirement(stores),
        "engines": engines(z3_configs),
    }
    data["load"] = os.getloadavg()[0]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "separation-bench.json").write_text(json.dumps(data, indent=2) + "\n")
    (out / "separation-bench.md").write_text(markdown(data))
    print(markdown(data))


if __name__ == "__main__":
    main()
