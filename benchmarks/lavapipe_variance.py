"""Why packed runs on lavapipe vary: one `progress run` under several lavapipe thread counts and layouts, rerun.

    python benchmarks/lavapipe_variance.py [--suite DIR] [--iterations 20] [--arms t1,t1,t2,t2,...] [--out DIR]

Not a speed benchmark: an experiment on docs/results/gpu/interp/lavapipe_variance.md's question.
Each arm is one `progress run SUITE --backend wgpu` (nice'd, one at a time) with
LP_NUM_THREADS and options of `ARMS`; an arm named twice runs twice (a
rerun is the test of determinism). Arms with a `chunked` layout force it
(`interleave`: each test's workgroups spread over the pack, the layout the
first runs had; `concat`: one test after another) by setting
`progress.gpu.pack.CPU_LAYOUTS` in the child process: an experiment, not an
option of `progress run`; the others run progress as it is.

Writes into --out, per run k of an arm: `ARM.k.csv`, `ARM.k.json`,
`ARM.k.jsonl.xz`, and `runs.json`: per run the arm, command, load
average before and after (1/5/15 min), elapsed_s, failed tests per
heuristic, cut threads, the CSV's sha256, the cells and failed-instance
counts that differ from the first run of the reference arm (--reference),
and, for the suite's packs under the interleaved and the CPU layouts
(`lane_cuts_2`, `lane_cuts_2_cpu`), which tests a boundary between two
lavapipe threads' chunks cuts (lp_cs_tpool hands each of T threads a
contiguous chunk of floor(W/T) workgroups, the last W mod T one at a time).
`--arms ''` only recomputes these and the comparisons.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ARMS = {
    "t1": {"LP_NUM_THREADS": "1", "chunked": "interleave"},
    "t2": {"LP_NUM_THREADS": "2", "chunked": "interleave"},
    "t2_concat": {"LP_NUM_THREADS": "2", "chunked": "concat"},
    "t2_pack64": {"LP_NUM_THREADS": "2", "chunked": "interleave", "args": ["--pack", "64"]},
    "t1_100us": {"LP_NUM_THREADS": "1", "chunked": "interleave", "args": ["--deadline", "100us"]},
    "t1_cpu": {"LP_NUM_THREADS": "1"},
    "t2_cpu": {"LP_NUM_THREADS": "2"},
    "default_cpu": {"LP_NUM_THREADS": None},
    "default_pertest": {"LP_NUM_THREADS": None, "codegen": "per-test"},
}
"""LP_NUM_THREADS (None: unset, lavapipe's default of one per CPU) and the chunked
pack layout forced on the CPU adapter (`pack.CPU_LAYOUTS`; absent: progress's own)."""
ENTRY = (
    "import sys\n"
    "if sys.argv[1] != 'default':\n"
    "    import progress.gpu.pack as pack\n"
    "    pack.CPU_LAYOUTS['chunked'] = sys.argv[1]\n"
    "    pack.LAYOUTS['chunked'] = sys.argv[1]\n"
    "from progress.cli import main\n"
    "main(sys.argv[2:])\n"
)


def run(arm: str, k: int, suite: Path, iterations: int, out: Path) -> dict:
    spec = ARMS[arm]
    codegen = spec.get("codegen", "interp")
    with tempfile.TemporaryDirectory() as scratch:
        csv = Path(scratch) / "r.csv"
        command = ["run", str(suite), "--backend", "wgpu", "--codegen", codegen, "--iterations", str(iterations)]
        command += [*spec.get("args", []), "-o", str(csv)]
        env = {k: v for k, v in os.environ.items() if k != "LP_NUM_THREADS"}
        if spec["LP_NUM_THREADS"] is not None:
            env["LP_NUM_THREADS"] = spec["LP_NUM_THREADS"]
        before = os.getloadavg()
        layout = spec.get("chunked", "default")
        subprocess.run(
            ["nice", sys.executable, "-c", ENTRY, layout, *command], env=env, check=True, stderr=subprocess.DEVNULL
        )
        after = os.getloadavg()
        name = f"{arm}.{k}"
        shutil.copy(csv, out / f"{name}.csv")
        shutil.copy(csv.with_suffix(".json"), out / f"{name}.json")
        with lzma.open(out / f"{name}.jsonl.xz", "wt") as packed:
            packed.write(csv.with_suffix(".jsonl").read_text())
        meta = json.loads(csv.with_suffix(".json").read_text())
    return {
        "run": name,
        "arm": arm,
        "env": {"LP_NUM_THREADS": spec["LP_NUM_THREADS"]},
        "chunked_layout": meta.get("layouts", {}).get("chunked"),
        "command": "progress " + " ".join(command[:-1] + [f"{name}.csv"]),
        "load_before": [round(x, 2) for x in before],
        "load_after": [round(x, 2) for x in after],
        "elapsed_s": meta["elapsed_s"],
        "compile_s": meta.get("compile_seconds"),
        "failed_tests": meta["failed_tests"],
        "cut_threads": meta.get("cut_threads"),
        "csv_sha256": hashlib.sha256((out / f"{name}.csv").read_bytes()).hexdigest(),
    }


def cells(path: Path) -> dict[str, list[str]]:
    lines = path.read_text().splitlines()[1:]
    return {line.split(",")[0]: line.split(",")[1:] for line in lines}


def detail(path: Path) -> dict[tuple[str, str], list[int]]:
    with lzma.open(path, "rt") as lines:
        rows = [json.loads(line) for line in lines]
    return {(r["test"], r["heuristic"]): r["failed_instances"] for r in rows}


def compare(out: Path, run: dict, reference: str) -> None:
    heuristics = ("plain", "rr", "chunked")
    mine, theirs = cells(out / f"{run['run']}.csv"), cells(out / f"{reference}.csv")
    run["cells_differing_from_" + reference] = {
        h: sorted(t for t in mine if mine[t][i] != theirs[t][i]) for i, h in enumerate(heuristics)
    }
    a, b = detail(out / f"{run['run']}.jsonl.xz"), detail(out / f"{reference}.jsonl.xz")
    run["failed_instances_differing_from_" + reference] = {
        h: sum(1 for (t, hh), v in a.items() if hh == h and v != b[(t, hh)]) for h in heuristics
    }


def lane_cuts(suite: Path, iterations: int, lanes: int, layouts: dict[str, str]) -> dict:
    """Per heuristic: the tests whose workgroups a lane boundary cuts, with `lanes` lavapipe threads,
    in the packs `progress run --codegen interp` makes (auto instances on a CPU adapter), laid out as `layouts`."""
    sys.path.insert(0, str(REPO))
    from progress.front.axb.parse import parse_program
    from progress.gpu.encode import encode
    from progress.gpu.heuristics import HEURISTICS, auto_instances
    from progress.gpu.pack import Pack, slot
    from progress.gpu.packed import plan
    from progress.gpu.runner import Settings
    from progress.gpu.wgpu_backend import CPU_WORKGROUPS
    from progress.gpu.wgpu_interp import WgpuInterp

    class Planner:
        name = "plan"
        pack_workgroups = WgpuInterp.pack_workgroups

        def auto_instances(self, threads: int) -> int:
            return auto_instances(threads, CPU_WORKGROUPS)

    files = sorted(suite.rglob("*.axb"))
    keys = [str(f.relative_to(suite)) for f in files]
    words = [encode(parse_program(f.read_text(), f.name)) for f in files]
    settings = Settings(HEURISTICS, iterations=iterations)
    out: dict = {"lanes": lanes, "layouts": layouts, "packs": [], "cut": {h: [] for h in HEURISTICS}}
    for batch in plan(Planner(), words, settings, Planner.pack_workgroups):
        n = words[batch[0]].threads
        for h in HEURISTICS:
            m = 1 if h == "plain" else Planner().auto_instances(n)
            pack = Pack(h, n, m, len(batch), layouts[h])
            total = pack.workgroups
            chunk = total // lanes
            seen: dict[int, set[int]] = {}
            for w in range(total):
                lane = w // chunk if w < lanes * chunk else -1  # the remainder goes one at a time, to any lane
                seen.setdefault(slot(pack, w)[0], set()).add(lane)
            cut = {t for t, where in seen.items() if len(where) > 1 or -1 in where}
            out["packs"].append({"heuristic": h, "threads": n, "tests": len(batch), "workgroups": total})
            out["cut"][h] += sorted(keys[batch[t]] for t in cut)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=REPO / "litmus" / "oopsla21")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--arms", default="t1,t1,t2,t2,t2,t2_concat,t2_concat")
    parser.add_argument("--reference", default="t1.1")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results" / "gpu" / "interp" / "lavapipe_variance")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    index = args.out / "runs.json"
    state = json.loads(index.read_text()) if index.exists() else {"runs": []}
    from progress.gpu.pack import CPU_LAYOUTS, LAYOUTS

    state["lane_cuts_2"] = lane_cuts(args.suite, args.iterations, 2, {**LAYOUTS, "chunked": "interleave"})
    state["lane_cuts_2_cpu"] = lane_cuts(args.suite, args.iterations, 2, CPU_LAYOUTS)
    for arm in filter(None, args.arms.split(",")):
        k = 1 + sum(1 for r in state["runs"] if r["arm"] == arm)
        entry = run(arm, k, args.suite, args.iterations, args.out)
        state["runs"].append(entry)
        print(json.dumps({key: entry[key] for key in ("run", "load_before", "elapsed_s", "failed_tests")}))
        index.write_text(json.dumps(state, indent=1) + "\n")
    for entry in state["runs"]:
        reference = args.out / f"{args.reference}.csv"
        if reference.exists() and entry["run"] != args.reference and "codegen" not in ARMS[entry["arm"]]:
            compare(args.out, entry, args.reference)
    index.write_text(json.dumps(state, indent=1) + "\n")


if __name__ == "__main__":
    main()
