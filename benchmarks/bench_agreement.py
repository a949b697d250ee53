"""The long cross-checks, kept out of the test suite for its time (issue 8):
the z3 engine against the enum engine on the paper's larger configurations,
and SPIN against our weak verdicts on a larger sample of the OOPSLA'21 suite.

    python benchmarks/bench_agreement.py [--configs 3t4i ...] [--per-group 6] [--skip-z3] [--skip-spin]
                                         [--out docs/results]

The test suite runs the same checks on small inputs (tests/test_synth_engines.py:
z3 = enum on 2t2i, 2t3i, 3t3i and others; tests/test_port_spin.py: SPIN on
two tests per group). Here: every test of each --configs bound found by both
engines (sets compared), and SPIN's acceptance-cycle search on --per-group
tests per group under every model (tests/spin_oracle.py, the suite's own
oracle). Writes agreement.md and agreement.json into --out; exits 1 on any
disagreement.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from run_meta import run_meta

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from spin_oracle import GROUPS, disagreements, sample  # noqa: E402

from progress.core.registry import all_models  # noqa: E402
from progress.synth.enum_engine import search_unit  # noqa: E402
from progress.synth.space import Bounds, Space, partitions  # noqa: E402

OOPSLA = REPO / "litmus" / "oopsla21"


def engines(bounds: Bounds) -> dict:
    """Both engines' sets of tests for `bounds`, compared."""
    from progress.synth.z3_engine import solve_partition

    start = time.perf_counter()
    space = Space(bounds)
    judges: dict = {}
    enum = frozenset(c for unit in space.units for _, c in search_unit(space, unit, judges)[0])
    enum_seconds = time.perf_counter() - start
    start = time.perf_counter()
    found = [c for lengths in partitions(bounds) for c in solve_partition(lengths, bounds)]
    z3_seconds = time.perf_counter() - start
    z3 = frozenset(found)
    return {
        "config": bounds.label,
        "enum_tests": len(enum),
        "z3_tests": len(z3),
        "z3_repeats": len(found) - len(z3),
        "only_enum": len(enum - z3),
        "only_z3": len(z3 - enum),
        "agree": enum == z3 and len(found) == len(z3),
        "enum_seconds": enum_seconds,
        "z3_seconds": z3_seconds,
    }


def spin(per_group: int, workers: int) -> dict:
    models = list(all_models())
    start = time.perf_counter()
    chosen = sample(OOPSLA, models, per_group)
    with tempfile.TemporaryDirectory() as folder:
        jobs, wrong = disagreements(chosen, models, Path(folder), workers)
    both = {
        m.name: {ours for _, name, ours in jobs if name == m.name} == {True, False} for m in models if m.has_fairness
    }
    return {
        "per_group": per_group,
        "tests": len(chosen),
        "jobs": len(jobs),
        "may_not_terminate": sum(1 for _, _, ours in jobs if ours is False),
        "disagreements": [[p.parent.name + "/" + p.name, m, ours] for p, m, ours in wrong],
        "both_verdicts_per_model": both,
        "agree": not wrong and all(both.values()),
        "seconds": time.perf_counter() - start,
        "workers": workers,
    }


def markdown(data: dict) -> str:
    meta = data["meta"]
    lines = [
        "# Long cross-checks (`benchmarks/bench_agreement.py`)",
        "",
        f"Machine: {meta['machine']}; Python {meta['python']}; {meta['cpus']} CPUs (shared with other jobs; "
        f"load average {meta['load_average'][0]:.1f} at the end); date {meta['date']}.",
        f"Command: `{meta['command']}`",
        "",
        "These checks ran in the test suite until they took most of its time; the suite now runs them "
        "on small inputs and this script on the large ones. Times are wall-clock seconds.",
        "",
    ]
    if data.get("engines"):
        lines += [
            "## z3 engine = enum engine",
            "",
            "| config | enum tests | z3 tests | z3 repeats | only enum | only z3 | agree | enum (s) | z3 (s) |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in data["engines"]:
            lines.append(
                f"| {r['config']} | {r['enum_tests']} | {r['z3_tests']} | {r['z3_repeats']} | {r['only_enum']} "
                f"| {r['only_z3']} | {'yes' if r['agree'] else 'NO'} | {r['enum_seconds']:.2f} "
                f"| {r['z3_seconds']:.2f} |"
            )
        lines.append("")
    s = data.get("spin")
    if s:
        lines += [
            "## SPIN = our weak verdicts",
            "",
            f"{s['tests']} tests of the OOPSLA'21 suite ({s['per_group']} spread evenly over each of "
            f"{', '.join(GROUPS)}, plus any needed for both verdicts under every model), under every model: "
            f"{s['jobs']} Promela exports, each re-checked by SPIN's acceptance-cycle search "
            f"({s['may_not_terminate']} with an acceptance cycle, i.e. may not terminate). "
            f"Disagreements: {len(s['disagreements'])}"
            + (f" ({s['disagreements']})" if s["disagreements"] else "")
            + ". Both verdicts occur under every model with fairness: "
            + ("yes" if all(s["both_verdicts_per_model"].values()) else f"NO ({s['both_verdicts_per_model']})")
            + f". {s['seconds']:.1f} s with {s['workers']} workers (mostly gcc compiling each verifier).",
            "",
        ]
    lines.append(f"**All agree: {'yes' if data['agree'] else 'NO'}.**")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", nargs="*", default=["3t4i"], help="bounds as TtIi (default: 3t4i)")
    parser.add_argument("--per-group", type=int, default=6)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--skip-z3", action="store_true")
    parser.add_argument("--skip-spin", action="store_true")
    parser.add_argument("--out", default="docs/results")
    args = parser.parse_args()
    data: dict = {}
    if not args.skip_z3:
        data["engines"] = []
        for label in args.configs:
            threads, instructions = label.rstrip("i").split("t")
            row = engines(Bounds(int(threads), int(instructions)))
            print(json.dumps(row), file=sys.stderr, flush=True)
            data["engines"].append(row)
    if not args.skip_spin:
        data["spin"] = spin(args.per_group, args.workers)
        print(json.dumps(data["spin"]), file=sys.stderr, flush=True)
    data["agree"] = all(r["agree"] for r in data.get("engines", [])) and data.get("spin", {}).get("agree", True)
    data["meta"] = run_meta("bench_agreement.py")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "agreement.json").write_text(json.dumps(data, indent=2) + "\n")
    (out / "agreement.md").write_text(markdown(data))
    print((out / "agreement.md").read_text())
    sys.exit(0 if data["agree"] else 1)


if __name__ == "__main__":
    main()
