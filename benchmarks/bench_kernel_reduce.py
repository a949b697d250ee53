"""Benchmark: partial-order reduction of kernels (issue 29, docs/semantics.md section 11).

    python benchmarks/bench_kernel_reduce.py [--time-limit 60] [--max-states 2000000]

Every kernel of litmus/kernels/ at its header's launch, and four scaled
families, W workgroups x L invocations (invocations that each update their
own cells, then a message-passing handshake or a spin lock; the spin lock
and the ticket lock of docs/results/kernels.md, which read no invocation
id; a leader's spin lock, its workgroup waiting at a barrier), checked in this process by
`check_system` for all 11 verdicts with lassos, unreduced and with
`reduce=True`: states (of the largest product), seconds, and whether the
verdicts agree (a check stopped by a bound is inconclusive and not compared).
Exit 1 on a disagreement. Writes docs/results/kernels_reduce.json and the
section between the scale-reduce markers of docs/results/kernels_scale.md.
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
RESULTS = REPO / "docs" / "results"
KERNELS = REPO / "litmus" / "kernels"
BEGIN, END = "<!-- scale-reduce:begin -->", "<!-- scale-reduce:end -->"

PRIVATE_WORK = """\
// progress: --workgroups {w}
#version 450
layout(local_size_x = {l}) in;
layout(std430, binding = 0) buffer Flag {{ uint flag; uint work[{cells}]; }};
void main() {{
    uint me = gl_GlobalInvocationID.x;
    for (uint i = 0u; i < 3u; i++) {{
        work[me] = work[me] + i;
    }}
    if (me == 0u) {{
        atomicExchange(flag, 1u);
    }} else {{
        while (atomicAdd(flag, 0u) == 0u) {{ }}
    }}
}}
"""

PRIVATE_LOCK = """\
// progress: --workgroups {w}
#version 450
layout(local_size_x = {l}) in;
layout(std430, binding = 0) buffer Lock {{ uint lock; uint counter; uint work[{cells}]; }};
void main() {{
    uint me = gl_GlobalInvocationID.x;
    for (uint i = 0u; i < 2u; i++) {{
        work[me] = work[me] * 3u + i;
    }}
    while (atomicExchange(lock, 1u) != 0u) {{ }}
    counter = counter + work[me];
    atomicExchange(lock, 0u);
}}
"""


SPIN_LOCK = """\
// progress: --workgroups {w}
#version 450
layout(local_size_x = {l}) in;
layout(std430, binding = 0) buffer Lock {{ uint lock; uint counter; }};
void main() {{
    while (atomicExchange(lock, 1u) != 0u) {{ }}
    counter = counter + 1u;
    atomicExchange(lock, 0u);
}}
"""

TICKET_LOCK = """\
// progress: --workgroups {w}
#version 450
layout(local_size_x = {l}) in;
layout(std430, binding = 0) buffer Tickets {{ uint next; uint serving; uint counter; }};
void main() {{
    uint ticket = atomicAdd(next, 1u);
    while (atomicAdd(serving, 0u) != ticket) {{ }}
    counter = counter + 1u;
    atomicAdd(serving, 1u);
}}
"""

LEADER_LOCK = """\
// progress: --workgroups {w}
#version 450
layout(local_size_x = {l}) in;
layout(std430, binding = 0) buffer Lock {{ uint lock; uint count; }};
shared uint result;
void main() {{
    if (gl_LocalInvocationID.x == 0u) {{
        while (atomicExchange(lock, 1u) == 1u) {{ }}
        count = count + 1u;
        result = count;
        atomicExchange(lock, 0u);
    }}
    barrier();
    uint seen = result;
    if (seen == 0u) {{ atomicAdd(count, 100u); }}
}}
"""

FAMILIES = (
    ("private_work", PRIVATE_WORK, ((2, 2), (3, 2), (4, 2), (3, 3))),
    ("private_lock", PRIVATE_LOCK, ((2, 1), (3, 1), (2, 2))),
    ("spin_lock", SPIN_LOCK, ((1, 4), (2, 2), (2, 3), (1, 8), (4, 2), (2, 4), (4, 4), (8, 4), (4, 8))),
    ("ticket_lock", TICKET_LOCK, ((1, 4), (2, 2), (2, 3), (4, 2), (2, 4))),
    ("leader_lock", LEADER_LOCK, ((2, 4), (2, 8), (3, 8), (4, 8), (2, 64), (4, 64), (8, 64))),
)


def cases(folder: Path) -> list[tuple[str, Path, dict]]:
    """(name, kernel file, launch overrides) in the order of the table."""
    found = [(p.name, p, {}) for p in sorted(KERNELS.iterdir())]
    for family, text, sizes in FAMILIES:
        for groups, local in sizes:
            path = folder / f"{family}_{groups}x{local}.comp"
            path.write_text(text.format(w=groups, l=local, cells=groups * local))
            found.append((f"{family} {groups}x{local}", path, {}))
    return found


def measure(path: Path, overrides: dict, reduce: bool, max_states: int, time_limit: float) -> dict:
    from progress.cli.kernel import given_settings, kernel_system
    from progress.core.analyze import check_system, queries_for
    from progress.core.registry import all_models

    given = given_settings(overrides.get("workgroups"), (), (), None, False)
    system = kernel_system(path, given)
    started = time.perf_counter()
    report = check_system(
        system, queries_for(all_models()), max_states=max_states, time_limit=time_limit, reduce=reduce
    )
    seconds = time.perf_counter() - started
    verdicts = [v.terminates for v in report.verdicts]
    return {
        "states": max(v.states for v in report.verdicts),
        "seconds": round(seconds, 3),
        "verdicts": "".join("?" if t is None else "P" if t else "F" for t in verdicts),
        "units": len(system.groups),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--max-states", type=int, default=2_000_000)
    parser.add_argument("--render", action="store_true", help="rewrite the page from kernels_reduce.json only")
    parser.add_argument("--agreement", action="store_true", help="only the 483 exported tests with --reduce")
    parser.add_argument("--only", help="rerun the cases whose name contains this, keeping the others' saved rows")
    args = parser.parse_args()
    if args.agreement:
        return agreement()
    if args.render:
        saved = json.loads((RESULTS / "kernels_reduce.json").read_text())
        _write_section(saved["rows"], saved["meta"])
        return 0
    rows = []
    saved = {}
    if args.only:
        saved = {row["kernel"]: row for row in json.loads((RESULTS / "kernels_reduce.json").read_text())["rows"]}
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, path, overrides in cases(Path(tmp)):
            if args.only and args.only not in name and name in saved:
                rows.append(saved[name])
                continue
            plain = measure(path, overrides, False, args.max_states, args.time_limit)
            reduced = measure(path, overrides, True, args.max_states, args.time_limit)
            comparable = "?" not in plain["verdicts"] and "?" not in reduced["verdicts"]
            agree = plain["verdicts"] == reduced["verdicts"] if comparable else None
            bad += agree is False
            rows.append({"kernel": name, "plain": plain, "reduced": reduced, "agree": agree})
            print(name, plain, reduced, agree, flush=True)
    meta = run_meta(Path(__file__).name)
    meta.update({"time_limit": args.time_limit, "max_states": args.max_states})
    if args.only:
        meta["rerun_only"] = args.only  # the other rows are an earlier run's
    (RESULTS / "kernels_reduce.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    _write_section(rows, meta)
    return 1 if bad else 0


def agreement() -> int:
    """The 483 published tests exported as GLSL, checked by one `progress check --reduce`
    process, against CADP and the AXB checker: writes docs/results/kernels_reduce_agreement.json."""
    from bench_kernels import PROGRESS, cadp, differences, run, verdicts

    suite = REPO / "litmus" / "oopsla21"
    with tempfile.TemporaryDirectory() as tmp:
        glsl = Path(tmp) / "glsl"
        exported = run([PROGRESS, "export", "--format", "glsl", str(suite), "-o", str(glsl)])
        assert exported["status"] == 0, exported["stderr"]
        axb_run = run([PROGRESS, "check", str(suite), "--format", "json"])
        reduced_run = run([PROGRESS, "check", str(glsl), "--format", "json", "--reduce"])
        assert reduced_run["status"] in (0, 1), reduced_run["stderr"][-3000:]
        table = verdicts(reduced_run["stdout"], glsl)
        axb = verdicts(axb_run["stdout"], suite)
    reference = cadp(suite)
    report = {
        "meta": run_meta(Path(__file__).name),
        "tests": len(table),
        "verdicts": sum(len(v) for v in table.values()),
        "wall_s": reduced_run["wall_s"],
        "differences_from_cadp": differences(reference, table),
        "differences_from_axb": differences(axb, table),
    }
    (RESULTS / "kernels_reduce_agreement.json").write_text(json.dumps(report, indent=1) + "\n")
    print({k: v for k, v in report.items() if k != "meta"})
    return 1 if report["differences_from_cadp"] or report["differences_from_axb"] else 0


def _write_section(rows: list[dict], meta: dict) -> None:
    lines = [
        BEGIN,
        "## Reductions (`--reduce`): private steps, interchangeable invocations",
        "",
        "Written by `benchmarks/bench_kernel_reduce.py` (raw numbers: kernels_reduce.json);",
        "docs/semantics.md sections 11 and 12 prove the reductions. Each kernel is checked in one",
        "process for all 11 verdicts with lassos, unreduced (`check_system`) and reduced",
        f"(`reduce=True`), each bounded by {meta['max_states']:,} states and {meta['time_limit']:g} s;",
        "states are those of the largest product. Verdicts: the 11 in the order of",
        "`progress check` (P passes, F fails, ? inconclusive); agree: the reduced verdicts",
        "are the unreduced ones (not compared where either is inconclusive). Measured on the",
        "shared 2-core development machine while other jobs ran: times are indicative.",
        "",
        "| kernel | invocations | states | states, --reduce | seconds | seconds, --reduce | verdicts (--reduce) "
        "| agree |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        p, r = row["plain"], row["reduced"]
        agree = {True: "yes", False: "**NO**", None: "n/a"}[row["agree"]]
        lines.append(
            f"| {row['kernel']} | {p['units']} | {p['states']:,} | {r['states']:,} | {p['seconds']:.2f} | "
            f"{r['seconds']:.2f} | {r['verdicts']} | {agree} |"
        )
    lines += [
        "",
        "What the table shows. Private steps (section 11) fold an invocation's accesses to",
        "its own cells (private_work, private_lock, the fallback scan's per-invocation",
        "slots) and reads of cells no one writes; they do nothing where every access is to",
        "a cell two invocations touch (locks, counters, flags) or invocations wait at",
        "barriers (arrivals are never folded), where the probe and the ownership checks",
        "cost time for no states. Interchangeable invocations (section 12) reduce the",
        "kernels whose invocations can no longer read their id (the spin lock and the",
        "ticket lock families; the leader lock's followers, and its leader once past its",
        "id test): each workgroup's invocations up to permutation; workgroups are not permuted, so",
        "many workgroups of few invocations gain little. `--reduce` is off by default.",
        "The time limit is checked while exploring; deciding the 11 queries on a finished",
        "exploration can pass it. The issue's targets (8x4 and 4x8 locks, leader idioms at",
        "8x64, all 11 verdicts in 60 s) are not reached here: the quotient of the 8x4 spin",
        "lock or of the 2x8 leader lock is still past what this Python explorer does in 60 s",
        "(barrier arrivals are interleaved one by one: no barrier-phase reduction), workgroups",
        "are not permuted (HSA and LOBE tell them apart anyway), and with 64 invocations a",
        "workgroup's followers pass through their barrier one arrival at a time.",
    ]
    agreed = RESULTS / "kernels_reduce_agreement.json"
    if agreed.exists():
        found = json.loads(agreed.read_text())
        lines += [
            "",
            f"The {found['tests']} published tests exported as GLSL (`progress export --format glsl`) and",
            f"checked by one `progress check --reduce` process: {found['verdicts']} verdicts,",
            f"{len(found['differences_from_cadp'])} differences from CADP, {len(found['differences_from_axb'])} from",
            f"the AXB checker ({found['wall_s']:.0f} s, glslang compiling each; one invocation per workgroup",
            "and no private cell, so nothing is folded: the probe and the checks cost the time).",
            "Reproduce: `python benchmarks/bench_kernel_reduce.py --agreement` (kernels_reduce_agreement.json).",
        ]
    lines.append(END)
    page = RESULTS / "kernels_scale.md"
    text = page.read_text() if page.exists() else "# Kernels at scale\n"
    section = "\n".join(lines)
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + section + text[text.index(END) + len(END) :]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    page.write_text(text)


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(Path(__file__).parent))
    sys.exit(main())
