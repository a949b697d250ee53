"""docs/results/devices.md from the imported data alone (issue 20): the paper's 8 GPUs (11 runs)
and the H200 runs committed under docs/results/gpu/, imported into a fresh results database,
then `progress devices` and the conclusions the data supports, each computed from its output.

    python benchmarks/devices_report.py [--out docs/results]

Writes devices.md, devices.json (`progress devices --format json`) and devices_fig12.svg.
Nothing is measured: the same inputs give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OOPSLA = REPO / "litmus" / "oopsla21"
GPU = REPO / "docs" / "results" / "gpu"
FULL = [str(OOPSLA), str(REPO / "litmus"), str(REPO / "tests" / "data" / "gpu")]
H200 = [
    ("h200-cuda-1", "run1.csv", FULL, "CUDA, 20 iterations (report.md run1)"),
    ("h200-cuda-2", "run2.csv", FULL, "CUDA, 20 iterations (report.md run2)"),
    ("h200-cuda-10it", "wgpu/h200_cuda.csv", FULL, "CUDA, 10 iterations (wgpu.md)"),
    ("h200-vulkan-10it", "wgpu/h200_wgpu.csv", FULL, "Vulkan through wgpu, 10 iterations (wgpu.md)"),
    ("h200-3t5i-1", "select3t5i/run1.csv", [str(GPU / "select3t5i" / "suite")], "83 selected 3t5i tests"),
    ("h200-3t5i-2", "select3t5i/run2.csv", [str(GPU / "select3t5i" / "suite")], "83 selected 3t5i tests"),
]
LANES = [
    (
        "h200-cuda-lanes",
        "lanes/lanes_sm90.csv",
        [str(OOPSLA)],
        "CUDA, each test's threads as the lanes of one warp (`progress run --scope lane`), sm_90 build "
        "(independent thread scheduling), 20 iterations (lanes/README.md)",
    ),
    (
        "h200-wgpu-lanes",
        "lanes/lanes_wgpu_h200.csv",
        [str(OOPSLA)],
        "Vulkan through wgpu, each test's threads as the lanes of one subgroup of 32 (`progress run --backend "
        "wgpu --scope lane`), 10 iterations (lanes/README.md)",
    ),
    (
        "lavapipe-wgpu-lanes",
        "lanes/lanes_wgpu_lavapipe.csv",
        [str(OOPSLA)],
        "lavapipe (Mesa 22.3.6, a CPU Vulkan) through wgpu, the lanes of one subgroup of 8, 3 iterations "
        "(lanes/README.md)",
    ),
    (
        "swiftshader-wgpu-lanes",
        "lanes/lanes_wgpu_swiftshader.csv",
        [str(OOPSLA)],
        "SwiftShader (Chromium 156's, a CPU Vulkan) through wgpu, the lanes of one subgroup of 4, 3 iterations "
        "(lanes/README.md)",
    ),
]
"""Intra-warp runs made here (H200, lavapipe): judged at the lane scope, as the artifact's two intra-warp runs are."""
PAPER = ["a12", "a14", "gf940m", "rtx4k", "g77", "hd620", "a620", "tx1"]
VARIANTS = ["rtx4k-coop", "rtx4k-subgroup", "rtx4k-subgroup-sm70"]
COMMAND = "python benchmarks/devices_report.py"


def progress(*args: str) -> str:
    script = Path(sys.executable).parent / "progress"
    done = subprocess.run([str(script), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"progress {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def build(db: Path) -> None:
    progress("results", "import", str(OOPSLA / "empirical_results"), "--suite", str(OOPSLA), "--db", str(db))
    for name, table, suites, _ in H200 + LANES:
        flags = [flag for suite in suites for flag in ("--suite", suite)]
        progress("results", "import", str(GPU / table), *flags, "--name", name, "--db", str(db))


def verdict(runs: dict, name: str, column: str) -> str:
    return runs[name]["models"][column]["verdict"]


def failing(runs: dict, name: str, column: str) -> dict[str, list[str]]:
    return {h: t for h, t in runs[name]["models"][column]["failed"].items() if t}


def total(runs: dict, name: str, heuristic: str) -> int:
    figures = runs[name]["figures"][heuristic]
    return figures["deterministic"] + figures["nondeterministic"]


def failed_set(runs: dict, name: str, heuristic: str) -> set[str]:
    """The 483-suite tests that failed under `heuristic` (every one passes strong fair, so the
    strong-fair failures are all of them)."""
    return {k for k in runs[name]["models"]["fair/strong"]["failed"].get(heuristic, []) if re.match(r"\dt\di/", k)}


def conclusions(runs: dict, diffs: dict[str, str]) -> list[str]:
    """Sentences, each computed from the matrix and figures (nothing typed in by hand but the wording)."""
    out = []
    for column in ("HSA/weak", "OBE/weak"):
        bad = [n for n in PAPER + VARIANTS if verdict(runs, n, column) == "violates"]
        held = "every one of the 11 paper runs is consistent with it" if not bad else f"violated by {', '.join(bad)}"
        out.append(f"**weak {column.split('/')[0]}**: {held}.")
    out.append(_lobe(runs))
    out.append(_chunked(runs))
    out += _variants(runs)
    out += _h200(runs, diffs)
    out.append(_lanes(runs))
    return out


def _lanes(runs: dict) -> str:
    """Which lane models each intra-warp run is consistent with (docs/semantics.md section 10)."""
    weak = ["HSA", "OBE", "HSA+OBE", "LOBE", "fair"]
    parts = []
    for name in ["rtx4k-subgroup", "rtx4k-subgroup-sm70"] + [n for n, *_ in LANES]:
        held = [m for m in weak if verdict(runs, name, f"{m}/weak") == "consistent with"]
        broken = [m for m in weak if m not in held]
        parts.append(
            f"{name}: consistent with weak {', '.join(held) or 'none'}"
            + (f", violates weak {', '.join(broken)}" if broken else "")
        )
    return (
        "**Intra-warp runs at the lane scope** (a test's threads as the lanes of one warp, judged by "
        "(fair, fair, M): the lanes scheduled by M, docs/semantics.md section 10): " + "; ".join(parts) + "."
    )


def _lobe(runs: dict) -> str:
    lobe = [n for n in PAPER if verdict(runs, n, "LOBE/weak") == "violates"]
    tests = {n: failing(runs, n, "LOBE/weak") for n in lobe}
    heuristics = sorted({h for n in lobe for h in tests[n]})
    same = "the same" if len({json.dumps(tests[n]) for n in lobe}) == 1 else "different"
    first = next(iter(tests[lobe[0]].values())) if lobe else []
    lanes = [name for name, *_ in LANES]  # judged at the lane scope: their own sentence
    others = [
        n for n in runs if n not in lobe and n not in VARIANTS + lanes and verdict(runs, n, "LOBE/weak") == "violates"
    ]
    rest = (
        "Every other device, and the H200 in every run, is"
        if not others
        else f"So are {', '.join(others)}; the rest are"
    )
    return (
        f"**weak LOBE** is violated by {' and '.join(lobe)} only, under {', '.join(heuristics)} only, by {same} "
        f"{len(first)} tests: {', '.join(first)}. {rest} consistent with weak LOBE."
    )


def _chunked(runs: dict) -> str:
    counts = ", ".join(f"{n} {total(runs, n, 'chunked')}" for n in PAPER)
    base = failed_set(runs, "gf940m", "chunked")
    same = [n for n in PAPER if failed_set(runs, n, "chunked") == base]
    differ = [n for n in PAPER if n not in same]
    lobe_chunked = [n for n in PAPER if failing(runs, n, "LOBE/weak").get("chunked")]
    notes = [f"The same {len(base)} tests fail on {', '.join(same)} (compared test by test)"]
    notes[0] += "".join(f"; {_extra(runs, n, base)}" for n in differ) + "."
    if not lobe_chunked:
        notes.append("No device violates weak LOBE under chunked: it fails only tests weak LOBE does not guarantee.")
    return f"**chunked** failures per device (tests failing in some iteration, of 483): {counts}. " + " ".join(notes)


def _extra(runs: dict, name: str, base: set[str]) -> str:
    mine = failed_set(runs, name, "chunked")
    extra = sorted(mine - base, key=lambda key: (key.split("/")[0], int(key.split("/")[1].split(".")[0])))
    kept = f"all {len(base)}" if base <= mine else f"{len(base & mine)} of those {len(base)}"
    nondet = runs[name]["figures"]["chunked"]["nondeterministic"]
    return (
        f"{name} fails {kept} and {len(extra)} more ({', '.join(extra)}); {nondet} of its {len(mine)} failed in "
        "some iterations only"
    )


def _variants(runs: dict) -> list[str]:
    coop_weak = verdict(runs, "rtx4k-coop", "fair/weak")
    coop = (
        f"**RTX 4000, cooperative launch** (rtx4k-coop): weak fair: {coop_weak} (the ordinary launch: "
        f"{verdict(runs, 'rtx4k', 'fair/weak')}); chunked fails {total(runs, 'rtx4k-coop', 'chunked')} tests "
        f"instead of {total(runs, 'rtx4k', 'chunked')}"
    )
    if coop_weak == "consistent with":
        coop += (
            ", and every failure (plain, rr, chunked) is a test that fails weak fair: a livelock that only strong "
            "fairness ends. Co-resident workgroups are scheduled fairly, as CUDA documents for cooperative launches."
        )
    simt_plain = failed_set(runs, "rtx4k-subgroup", "plain")
    same_as_chunked = (
        "the same tests chunked fails on the inter-workgroup runs"
        if simt_plain == failed_set(runs, "rtx4k", "chunked")
        else "not the tests chunked fails"
    )
    simt = (
        f"**RTX 4000, intra-warp** (rtx4k-subgroup: a test's threads in one warp, SIMT build): plain fails "
        f"{total(runs, 'rtx4k-subgroup', 'plain')} tests, "
        f"{same_as_chunked}"
        f"; weak LOBE: {verdict(runs, 'rtx4k-subgroup', 'LOBE/weak')}, weak fair: "
        f"{verdict(runs, 'rtx4k-subgroup', 'fair/weak')}. Its rr and chunked columns fail "
        f"{total(runs, 'rtx4k-subgroup', 'rr')} and {total(runs, 'rtx4k-subgroup', 'chunked')} tests: read them as "
        "not run (the artifact's README says its sm_70 twin is plain only)."
    )
    its = (
        f"**RTX 4000, intra-warp with independent thread scheduling** (rtx4k-subgroup-sm70): plain fails "
        f"{total(runs, 'rtx4k-subgroup-sm70', 'plain')} tests; weak fair: "
        f"{verdict(runs, 'rtx4k-subgroup-sm70', 'fair/weak')}"
    )
    if verdict(runs, "rtx4k-subgroup-sm70", "fair/weak") == "consistent with":
        its += (
            ": every failure is a livelock that needs strong fairness, so diverged threads of a warp are "
            "interleaved fairly"
        )
    return [coop, simt, its + ".", _intra_workgroup(runs)]


def _intra_workgroup(runs: dict) -> str:
    vulkan = [n for n in PAPER if "plain-wg4-same-subgroup" in runs[n]["figures"]]
    four = ", ".join(f"{n} {total(runs, n, 'plain-wg4-same-subgroup')}" for n in vulkan)
    wide = ", ".join(f"{n} {total(runs, n, 'plain-wg256-diff-subgroup')}" for n in vulkan)
    return (
        f"**Vulkan intra-workgroup columns** (judging no model here): the test's threads in one workgroup of 4, one "
        f"subgroup, fail {four}; spread over subgroups of a 256-thread workgroup, {wide}."
    )


def _h200(runs: dict, diffs: dict[str, str]) -> list[str]:
    weak = ["HSA/weak", "OBE/weak", "HSA+OBE/weak", "LOBE/weak"]
    names = [name for name, *_ in H200]
    holds = all(verdict(runs, n, c) == "consistent with" for n in names for c in weak)
    base = failed_set(runs, "gf940m", "chunked")
    full = [n for n in names if not n.startswith("h200-3t5i")]
    same = all(failed_set(runs, n, "chunked") == base for n in full)
    return [
        f"**H200** (6 runs: CUDA x2, CUDA and Vulkan at 10 iterations, the 3t5i selection x2): "
        f"{'consistent with' if holds else 'violates'} every weak model below fair in every run. "
        f"chunked fails {total(runs, 'h200-cuda-1', 'chunked')} of 498 tests through CUDA and "
        f"{total(runs, 'h200-vulkan-10it', 'chunked')} through Vulkan; of the 483 suite tests, "
        f"{'the same ' + str(len(base)) + ' as on the paper GPUs, test by test' if same else 'not the paper GPUs set'}"
        f"; and {total(runs, 'h200-3t5i-1', 'chunked')} of the 83 3t5i tests.",
        "**Repeatability and CUDA against Vulkan** (`progress devices --diff`):\n\n```\n"
        + diffs["repeat"]
        + diffs["api"]
        + "```",
    ]


def page(db: Path, runs: dict, diffs: dict[str, str]) -> str:
    head = [
        "# Results from many GPUs: the paper's 8 devices and the H200",
        "",
        f"Regenerate: `{COMMAND}` (imports into a fresh database, then runs `progress devices`; "
        "`devices.json` is its `--format json`, `devices_fig12.svg` its `--plot`). Inputs: the artifact's "
        "`empirical_results/` (litmus/oopsla21; 11 runs: 8 GPUs, the RTX 4000 also with a cooperative "
        "launch and two intra-warp builds) and the H200 runs committed under `docs/results/gpu/`:",
        "",
    ]
    head += [f"- `{name}`: `gpu/{table}`, {what}" for name, table, _, what in H200 + LANES]
    head += ["", "## What the data says", ""]
    head += [f"- {line}" for line in conclusions(runs, diffs)]
    head += [
        "",
        "How to read it: a device *violates* a model when a test the model guarantees to terminate failed on "
        "it (docs/semantics.md section 7). A finite run can refute a weak model (a starvation the deadline "
        "outlasted) but not, in principle, a strong one: a strongly fair scheduler may take longer than any "
        'deadline to break a livelock, so read the strong columns as "livelocks of these tests outlasted the '
        'deadline". The lists below name the first 12 tests of each violation; `devices.json` has all of them.',
        "",
        "![Fig. 12](devices_fig12.svg)",
        "",
    ]
    table = progress("devices", "--db", str(db), "--format", "md", "--list-limit", "12")
    return "\n".join(head) + "\n" + table.replace(str(db), "progress-results.db")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "progress-results.db"
        build(db)
        raw = progress("devices", "--db", str(db), "--format", "json", "--plot", str(args.out / "devices_fig12.svg"))
        runs = {run["name"]: run for run in json.loads(raw)["runs"]}
        diffs = {
            "repeat": progress("devices", "--db", str(db), "--diff", "h200-cuda-1", "h200-cuda-2"),
            "api": progress("devices", "--db", str(db), "--diff", "h200-cuda-10it", "h200-vulkan-10it"),
        }
        (args.out / "devices.md").write_text(page(db, runs, diffs))
        (args.out / "devices.json").write_text(json.dumps(json.loads(raw), separators=(",", ":")) + "\n")
    print(f"wrote {args.out / 'devices.md'}, devices.json, devices_fig12.svg")


if __name__ == "__main__":
    main()
