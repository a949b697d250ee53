"""Benchmark: kernels (issue 18): the two paths agree, and how fast the kernel path is.

    python benchmarks/bench_kernels.py [--suite litmus/oopsla21] [--part agreement,idioms]

agreement: every published test exported by `progress export --format glsl`
and checked as a kernel (glslang, SPIR-V, the kernel checker), with and
without `--optimize`, must get the AXB checker's 11 verdicts and CADP's
(5313 verdicts: 483 x 10 from cadp_verdicts.csv, plus unfair, F for every
synthesized test by construction). The same runs, whole processes, are the
speed comparison: the AXB path, the kernel path with an empty compile cache
(every shader compiled by glslang) and with the cache the cold run filled.
Writes docs/results/kernels_agreement.{md,json}; exit 1 on any disagreement.

idioms: the spin lock and the ticket lock at 2..8 workgroups of 1, 2 and 4
invocations, each one `progress check` process: states, time to all 11
verdicts, peak resident memory (os.wait4). Writes docs/results/kernels_cli.{md,json}.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from run_meta import run_meta

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "docs" / "results"
PROGRESS = str(Path(sys.executable).parent / "progress")
SPIN_LOCK = """\
// progress: --workgroups {w}
#version 450
layout(local_size_x = {l}) in;
layout(set = 0, binding = 0) buffer Lock {{ uint lock; }};
layout(set = 0, binding = 1) buffer Counter {{ uint counter; }};
void main() {{
    while (atomicExchange(lock, 1u) != 0u) {{
    }}
    counter = counter + 1u;
    atomicExchange(lock, 0u);
}}
"""
TICKET_LOCK = """\
// progress: --workgroups {w}
#version 450
layout(local_size_x = {l}) in;
layout(set = 0, binding = 0) buffer Tickets {{ uint next; uint serving; }};
layout(set = 0, binding = 1) buffer Counter {{ uint counter; }};
void main() {{
    uint ticket = atomicAdd(next, 1u);
    while (atomicAdd(serving, 0u) != ticket) {{
    }}
    counter = counter + 1u;
    atomicAdd(serving, 1u);
}}
"""
IDIOMS = {"spin lock": SPIN_LOCK, "ticket lock": TICKET_LOCK}


def run(command: list[str], env: dict[str, str] | None = None, timeout: float = 1800) -> dict:
    """One process: its exit status, output, wall time and peak RSS (os.wait4: the
    process and the descendants it waited for, the largest of them)."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.monotonic() - started
        out.seek(0), err.seek(0)
        return {
            "status": os.waitstatus_to_exitcode(status),
            "wall_s": round(wall, 3),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "stdout": out.read().decode(),
            "stderr": err.read().decode(),
        }


OPTIMIZED = " (spirv-opt -O)"
"""How `progress check --optimize` names the record of the optimized module (after the original's)."""


def verdicts(json_lines: str, root: Path, optimized: bool = False) -> dict[str, dict[str, bool | None]]:
    """{test path relative to `root`, without suffix: {"model/fairness": terminates}}, from the
    records of the modules as compiled, or (`optimized`) of the modules after `spirv-opt -O`."""
    table = {}
    for line in json_lines.splitlines():
        record = json.loads(line)
        file = record["file"]
        if file.endswith(OPTIMIZED) != optimized:
            continue
        name = Path(file.removesuffix(OPTIMIZED)).resolve().relative_to(root.resolve()).with_suffix("").as_posix()
        table[name] = {f"{r['model']}/{r['fairness']}": r["terminates"] for r in record["results"]}
    return table


def cadp(suite: Path) -> dict[str, dict[str, bool]]:
    with open(suite / "cadp_verdicts.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    table = {}
    for row in rows:
        cells = {key: value == "P" for key, value in row.items() if key != "test"}
        cells["unfair/none"] = False  # every synthesized test fails unfair, by construction
        table[row["test"].removesuffix(".axb")] = cells
    return table


def differences(reference: dict, other: dict) -> list[str]:
    wrong = []
    for test in sorted(reference):
        got = other.get(test, {})
        for key, want in sorted(reference[test].items()):
            if got.get(key) != want:
                wrong.append(f"{test} {key}: want {want}, got {got.get(key)}")
    return wrong


def agreement(suite: Path, work: Path) -> dict:
    glsl = work / "glsl"
    exported = run([PROGRESS, "export", "--format", "glsl", str(suite), "-o", str(glsl)])
    assert exported["status"] == 0, exported["stderr"]
    cold_cache = work / "cache"
    env = dict(os.environ, XDG_CACHE_HOME=str(cold_cache))
    optimize = [PROGRESS, "check", str(glsl), "--format", "json", "--optimize"]
    runs = {
        "axb": run([PROGRESS, "check", str(suite), "--format", "json"], env),
        "kernel, cold cache": run([PROGRESS, "check", str(glsl), "--format", "json"], env),
        "kernel, warm cache": run([PROGRESS, "check", str(glsl), "--format", "json"], env),
        "kernel --optimize, spirv-opt not yet cached": run(optimize, env),
        "kernel --optimize, warm cache": run(optimize, env),
    }
    for name, result in runs.items():
        assert result["status"] in (0, 1), f"{name}: exit {result['status']}\n{result['stderr'][-3000:]}"
    axb = verdicts(runs["axb"]["stdout"], suite)
    reference = cadp(suite)
    report = {"tests": len(reference), "verdicts": sum(len(v) for v in reference.values()), "runs": {}}
    tables = {name: axb if name == "axb" else verdicts(result["stdout"], glsl) for name, result in runs.items()}
    tables["kernel after spirv-opt -O (the same process)"] = verdicts(
        runs["kernel --optimize, warm cache"]["stdout"], glsl, True
    )
    runs["kernel after spirv-opt -O (the same process)"] = runs["kernel --optimize, warm cache"]
    for name, result in runs.items():
        table = tables[name]
        report["runs"][name] = {
            "wall_s": result["wall_s"],
            "cpu_s": result["cpu_s"],
            "peak_rss_mb": result["peak_rss_mb"],
            "tests": len(table),
            "differences_from_cadp": differences(reference, table),
            "differences_from_axb": differences(axb, table),
        }
    base, base_cpu = runs["axb"]["wall_s"], runs["axb"]["cpu_s"]
    for row in report["runs"].values():
        row["ratio_to_axb"] = round(row["wall_s"] / base, 2)
        row["cpu_ratio_to_axb"] = round(row["cpu_s"] / base_cpu, 2)
    return report


def idioms(work: Path, workgroups: range, lanes: tuple[int, ...], limit_s: float) -> list[dict]:
    rows = []
    for idiom, template in IDIOMS.items():
        for size in lanes:
            for w in workgroups:
                path = work / f"{idiom.replace(' ', '_')}_{w}x{size}.comp"
                path.write_text(template.format(w=w, l=size))
                command = [PROGRESS, "check", str(path), "--format", "json", "--time-limit", str(limit_s)]
                result = run(command)
                row = {"idiom": idiom, "workgroups": w, "invocations": size, "status": result["status"]}
                row.update({k: result[k] for k in ("wall_s", "cpu_s", "peak_rss_mb")})
                if result["status"] in (0, 1):
                    record = json.loads(result["stdout"].splitlines()[0])
                    row["states"] = max(r["states"] for r in record["results"])
                    row["verdicts"] = "".join("P" if r["terminates"] else "F" for r in record["results"])
                rows.append(row)
                print(row, file=sys.stderr)
                if result["status"] not in (0, 1):
                    break  # larger dispatches of this shape only take longer
    return rows


def agreement_markdown(report: dict, meta: dict) -> str:
    lines = [
        "# Kernels: the AXB path and the SPIR-V path agree",
        "",
        f"Every one of the {report['tests']} published tests exported by `progress export --format glsl`,",
        "compiled by glslang and checked as a SPIR-V kernel, against the AXB checker on the `.axb`",
        f"files and against CADP ({report['verdicts']} verdicts: cadp_verdicts.csv's 10 per test, plus unfair,",
        "which every synthesized test fails by construction). Each run is one whole `progress check`",
        "process (`--format json`), start-up and compilation included; the cold run starts from an",
        "empty compile cache (`XDG_CACHE_HOME` a fresh directory), the warm runs reuse what it cached.",
        "",
        "| run | tests | wall (s) | CPU (s) | peak RSS (MB) | x AXB wall | x AXB CPU | differences from CADP | "
        "from AXB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, row in report["runs"].items():
        lines.append(
            f"| {name} | {row['tests']} | {row['wall_s']:.2f} | {row['cpu_s']:.2f} | {row['peak_rss_mb']:.0f} | "
            f"{row['ratio_to_axb']:.1f} | {row['cpu_ratio_to_axb']:.1f} | {len(row['differences_from_cadp'])} | "
            f"{len(row['differences_from_axb'])} |"
        )
    lines += [
        "",
        "CPU is the process's and its children's (glslang, spirv-opt, spirv-val), user plus system, from",
        "os.wait4. The last row is the same `--optimize` process as the one above it: its records of the",
        "optimized modules, compared the same way.",
        "",
        *_meta_lines(meta),
    ]
    return "\n".join(lines) + "\n"


def idioms_markdown(rows: list[dict], meta: dict, limit_s: float) -> str:
    lines = [
        "# Kernels: states, time and memory of two lock idioms",
        "",
        "The test-and-set spin lock and the ticket lock of `benchmarks/bench_kernels.py` (critical",
        "section: a plain load and store of a counter), W workgroups of L invocations, one",
        "`progress check K.comp --format json` process each (all 11 verdicts, lassos included, start-up",
        f"and compilation included), `--time-limit {limit_s:g}` per verdict. States: the largest product LTS",
        "of the 11 verdicts. Verdicts in the order of `progress check` (unfair, fair weak/strong, HSA, OBE,",
        "HSA+OBE, LOBE).",
        "",
        "| idiom | W | L | exit | states | wall (s) | peak RSS (MB) | verdicts |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['idiom']} | {row['workgroups']} | {row['invocations']} | {row['status']} | "
            f"{row.get('states', '-')} | {row['wall_s']:.2f} | {row['peak_rss_mb']:.0f} | {row.get('verdicts', '-')} |"
        )
    lines += ["", *_meta_lines(meta)]
    return "\n".join(lines) + "\n"


def _meta_lines(meta: dict) -> list[str]:
    load = ", ".join(f"{x:.2f}" for x in meta["load_average"])
    return [
        f"Machine: {meta['machine']}, {meta['cpus']} CPUs, Python {meta['python']}, load average {load} at the",
        f"start, {meta['date']}. Reproduce: `{meta['command']}`.",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=REPO / "litmus" / "oopsla21")
    parser.add_argument("--part", default="agreement,idioms")
    parser.add_argument("--max-workgroups", type=int, default=8)
    parser.add_argument("--time-limit", type=float, default=120.0)
    args = parser.parse_args()
    parts = set(args.part.split(","))
    meta = run_meta("bench_kernels.py")
    failed = False
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        if "agreement" in parts:
            report = agreement(args.suite, work)
            report["meta"] = meta
            (RESULTS / "kernels_agreement.json").write_text(json.dumps(report, indent=2) + "\n")
            (RESULTS / "kernels_agreement.md").write_text(agreement_markdown(report, meta))
            failed = any(r["differences_from_cadp"] or r["differences_from_axb"] for r in report["runs"].values())
        if "idioms" in parts:
            rows = idioms(work, range(2, args.max_workgroups + 1), (1, 2, 4), args.time_limit)
            (RESULTS / "kernels_cli.json").write_text(json.dumps({"rows": rows, "meta": meta}, indent=2) + "\n")
            (RESULTS / "kernels_cli.md").write_text(idioms_markdown(rows, meta, args.time_limit))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
