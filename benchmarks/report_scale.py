"""docs/results/checker_scale.md from the .json that benchmarks/bench_scale.py writes.

python benchmarks/report_scale.py   # rewrite the .md from the .json
"""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ORDER = "unfair, fair w/s, HSA w/s, OBE w/s, HSA+OBE w/s, LOBE w/s"


def markdown(result: dict) -> str:
    meta, end = result["meta"], result["meta_end"]
    lines = [
        "# The checker at scale (issue 22)",
        "",
        f"Reproduce: `{meta['command']}` ({meta['date']}, {meta['cpus']} CPUs, Python {meta['python']}).",
        f"Load average (1, 5, 15 min) at the start {_load(meta)}, at the end {_load(end)}: a shared machine,",
        "so compare times within a run only.",
        "",
        "## The 483 published tests, all 11 verdicts, whole processes",
        "",
        f"{result['suite']['runs']} interleaved runs of each command.",
        "",
        "| command | median (s) | min (s) | max (s) | distinct outputs | ratio to brute force |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in result["suite"]["rows"].items():
        lines.append(
            f"| {name} | {row['median_s']:.3f} | {row['min_s']:.3f} | {row['max_s']:.3f} | "
            f"{row['distinct_outputs']} | {row['ratio_to_brute']:.2f} |"
        )
    lines += [
        "",
        "## Idiom families (tests/families.py), all 11 verdicts",
        "",
        f"Verdicts in the order {ORDER} (P: guaranteed to terminate, F: may not).",
        "compiled: progress.core.scale.check_large, one fresh process per test,",
        "time to all 11 verdicts after loading the compiled kernels (numba's on-disk cache, about 1-2 s",
        "per process, measured apart in the JSON as load_s), peak RSS of the process (start-up, numba included).",
        "states: per model, the states the compiled checker stored (OBE/fair/unfair: orbits; LOBE: its view;",
        "HSA+OBE: inherited from OBE when OBE passes; a failing product may stop early).",
        "python: the unreduced Python checker (same verdicts?, time); SPIN: weak HSA, no partial-order",
        "reduction (export + spin -a + gcc + pan), agreement with our weak HSA verdict.",
        "",
        "| test | verdicts | compiled (s) | peak MiB | states HSA / OBE / HSA+OBE / LOBE / fair "
        "| python (s) | SPIN HSA weak (s) |",
        "|---|---|---:|---:|---|---:|---:|",
    ]
    for row in result["families"]:
        lines.append(_family_row(row))
    lines += [
        "",
        "`-`: not run (odd N for SPIN, or an earlier N of the family ran past its limit); `>limit`: stopped at",
        "the limit.",
        "",
    ]
    return "\n".join(lines)


def _load(meta: dict) -> str:
    return ", ".join(f"{x:.2f}" for x in meta["load_average"])


def _family_row(row: dict) -> str:
    compiled = row["compiled"]
    name = f"{row['family']} {row['n']}"
    if compiled is None:
        return f"| {name} | | >limit | | | | |"
    states = compiled["states"]
    counts = " / ".join(f"{states[m]:,}" for m in ("HSA", "OBE", "HSA+OBE", "LOBE", "fair"))
    python = _python(row["python"], compiled["verdicts"]) if "python" in row else "-"
    spin = _spin(row["spin_hsa_weak"], compiled["verdicts"][3] == "P") if "spin_hsa_weak" in row else "-"
    return (
        f"| {name} | {compiled['verdicts']} | {compiled['seconds']:.2f} | {compiled['peak_mib']:.0f} | "
        f"{counts} | {python} | {spin} |"
    )


def _python(python: dict | None, verdicts: str) -> str:
    if python is None:
        return ">limit"
    if "?" in python["verdicts"]:
        return "past 10^6 states"
    same = "same" if python["verdicts"] == verdicts else f"DIFFERENT {python['verdicts']}"
    return f"{python['seconds']:.2f} ({same})"


def _spin(spin: dict | None, ours: bool) -> str:
    if spin is None:
        return ">limit"
    if "error" in spin:
        return "not exported"
    return f"{spin['seconds']:.2f} ({'agrees' if spin['terminates'] is ours else 'DISAGREES'})"


if __name__ == "__main__":
    data = json.loads((REPO / "docs" / "results" / "checker_scale.json").read_text())
    (REPO / "docs" / "results" / "checker_scale.md").write_text(markdown(data))
