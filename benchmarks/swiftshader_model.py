"""A model of SwiftShader's compute dispatch, run on the litmus tests: which
(test, heuristic) launches it predicts to fail (docs/results/web_swiftshader.md).

    python benchmarks/swiftshader_model.py [--samples 20] [--workers 2] [--out docs/results/web_swiftshader_model.json]

The model, from SwiftShader's src/Pipeline/ComputeProgram.cpp (run()) and its
marl scheduler:

- a dispatch of W workgroups is cut into min(16, W) tasks; task b runs
  workgroups b, b + 16, b + 32, ... one after another, each to its end (a
  shader without control barriers is one call per workgroup: no yield);
- the tasks go to K worker threads, each with a FIFO queue; a worker runs
  one task at a time, to its end; an idle worker takes the first task of its
  own queue, else steals the first of another's;
- the running workgroups (at most K) interleave freely (K threads on K cores);
- one invocation per workgroup (the shader's @workgroup_size(1)): lanes 1-3
  of SwiftShader's 4-wide SIMD are masked off and play no part.

Two placements of the tasks on the workers: "round-robin" (task b to worker
b mod K from a random first worker, every worker awake: marl's enqueue when
no worker is spinning) and "random" (each task to a random worker, each
worker waking up to WAKE steps late: marl's enqueue prefers workers that
recently began to spin, whose slots can be stale, and a sleeping worker
steals nothing until woken). The first should give the failures that come
every time, the second every failure that can come.

A workgroup that takes more than `budget` backward jumps times out and the
launch fails, as the runner's shader does (progress/back/wgsl_source.py);
the budget (2,000 steps) is far above any wait on a running workgroup (a
few steps) and stands for the runner's 50 ms. A sample draws the
interleaving (and the placement) at random; `predict` counts the failing
samples.

Prints, per placement and heuristic, the model's cells against the browser's
(docs/results/web_suite.json: every iteration failed / some / none), and the
model's failures on tests that OBE/weak and HSA/weak guarantee by CADP's
verdicts (litmus/oopsla21/cadp_verdicts.csv): none for OBE if the
model is an OBE scheduler, as it claims.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from progress.core.program import Program  # noqa: E402
from progress.gpu.heuristics import auto_instances, geometry, slot  # noqa: E402

BATCHES = 16
"""ComputeProgram::run's batchCount: tasks per dispatch."""

WORKERS = 2
"""marl worker threads: min(logical CPUs, 16) by default; this machine has 2 (the probe measures it)."""

BUDGET = 2000
WAKE = 4 * BUDGET
"""Under placement "random", a worker starts up to this many steps late: past
the budget, as a sleeping worker woken late by a loaded OS can be."""


@dataclass(frozen=True)
class Dispatch:
    heuristic: str
    instances: int
    workers: int = WORKERS
    batches: int = BATCHES
    placement: str = "round-robin"  # or "random": each task to a random worker, workers start late


def run_once(program: Program, d: Dispatch, rng: random.Random, budget: int = BUDGET) -> bool:
    """One launch under the model: True if some workgroup timed out."""
    g = geometry(d.heuristic, len(program.threads), d.instances)
    tasks = [list(range(b, g.workgroups, d.batches)) for b in range(min(d.batches, g.workgroups))]
    first = rng.randrange(d.workers)
    queues: list[deque[int]] = [deque() for _ in range(d.workers)]
    for b in range(len(tasks)):
        queues[rng.randrange(d.workers) if d.placement == "random" else (first + b) % d.workers].append(b)
    # "random": a worker wakes after up to WAKE steps of the others (marl: a sleeping worker)
    late = [rng.randrange(WAKE) if d.placement == "random" else 0 for _ in range(d.workers)]
    steps = 0
    locations = {name: i for i, name in enumerate(program.locations)}
    init = program.initial_memory
    memory = [[init[name] for name in program.locations] for _ in range(g.instances)]
    # per worker: [task, position in task, pc, spins] or None
    running: list[list[int] | None] = [None] * d.workers

    def take(k: int) -> None:
        queue = queues[k] if queues[k] else max(queues, key=len)
        running[k] = [queue.popleft(), 0, 0, 0] if queue else None

    for k in range(d.workers):
        take(k)
    while True:
        steps += 1
        busy = [k for k in range(d.workers) if running[k] is not None and late[k] < steps]
        if not busy:
            if any(running[k] is not None for k in range(d.workers)):
                continue
            return False
        k = rng.choice(busy)
        state = running[k]
        assert state is not None
        task, position, pc, spins = state
        instance, thread = slot(g, tasks[task][position])
        code = program.threads[thread]
        ins = code[pc]
        cells = memory[instance]
        cell = locations[ins.loc]
        old = cells[cell]
        if ins.xchg:
            cells[cell] = ins.val
        nxt = ins.target if old == ins.cmp else pc + 1
        if nxt <= pc:
            spins += 1
            if spins > budget:
                return True
        if nxt >= len(code):
            position += 1
            if position == len(tasks[task]):
                take(k)
                continue
            pc, spins = 0, 0
        else:
            pc = nxt
        running[k] = [task, position, pc, spins]


def predict(program: Program, d: Dispatch, samples: int = 20, seed: int = 0) -> int:
    """How many of `samples` launches fail under the model."""
    rng = random.Random(seed)
    return sum(run_once(program, d, rng) for _ in range(samples))


def cell_class(cell: str, iterations: int) -> str:
    if cell == "P":
        return "none"
    return "every" if cell == f"F ({iterations}/{iterations})" else "some"


def serialized_two_thread(results: dict, iterations: int, oopsla: Path) -> dict:
    """Plain launches of the 2-thread tests against running their 2 workgroups one after the other on one
    worker (the model with 1 worker), in id order or reversed (thread 1 first): the browser's failures
    (the probe sees the 2 workgroups of a dispatch not overlap now and then, in either order)."""
    from progress.front.axb.parse import parse_program

    found: dict[str, Any] = {"iterations_per_test": iterations}
    for kind in ("in_order", "reversed_only", "neither"):
        found[kind] = {"tests": 0, "observed_failing": 0, "observed_failed_iterations": 0, "failing": []}
    for key, cells in sorted(results.items()):
        path = oopsla / key
        program = parse_program(path.read_text(), str(path))
        if len(program.threads) != 2:
            continue
        k = 0 if cells["plain"] == "P" else int(cells["plain"][3:].split("/")[0])
        one = Dispatch("plain", 1, workers=1)
        if predict(program, one, samples=1):
            kind = "in_order"
        elif predict(replace(program, threads=program.threads[::-1]), one, samples=1):
            kind = "reversed_only"
        else:
            kind = "neither"
        row = found[kind]
        row["tests"] += 1
        row["observed_failing"] += k > 0
        row["observed_failed_iterations"] += k
        if k and kind != "in_order":
            row["failing"].append(key)
    return found


def main() -> None:
    import csv

    from progress.front.axb.parse import parse_program

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--workers", type=int, default=WORKERS)
    parser.add_argument("--suite", type=Path, default=REPO / "docs" / "results" / "web_suite.json")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    observed = json.loads(args.suite.read_text())["submitted"]
    iterations = observed["settings"]["iterations"]
    oopsla = REPO / "litmus" / "oopsla21"
    with (oopsla / "cadp_verdicts.csv").open() as f:
        cadp = {r["test"]: r for r in csv.DictReader(f)}
    placements = ("round-robin", "random")
    table: Counter[tuple[str, str, str, str]] = Counter()
    rows = []
    against: dict[str, list[str]] = {f"{p} {m}": [] for p in placements for m in ("OBE/weak", "HSA/weak")}
    for key, cells in sorted(observed["results"].items()):
        path = oopsla / key
        program = parse_program(path.read_text(), str(path))
        n = len(program.threads)
        row: dict = {"test": key}
        for heuristic, cell in cells.items():
            seen = cell_class(cell, iterations)
            row[heuristic] = {"observed": cell}
            for placement in placements:
                d = Dispatch(heuristic, auto_instances(n, 64), args.workers, placement=placement)
                failed = predict(program, d, args.samples)
                predicted = "none" if failed == 0 else ("every" if failed == args.samples else "some")
                table[(placement, heuristic, predicted, seen)] += 1
                row[heuristic][placement] = failed
                for model in ("OBE/weak", "HSA/weak"):
                    if failed and cadp[key][model] == "P":
                        against[f"{placement} {model}"].append(f"{key} {heuristic}")
        rows.append(row)
    classes = ("every", "some", "none")
    print(f"model: {args.workers} workers, {BATCHES} tasks, {args.samples} samples; observed: {args.suite.name}")
    for placement in placements:
        for heuristic in ("plain", "rr", "chunked"):
            print(f"\n{placement} placement, {heuristic}: rows = the model fails in every / some / no sample,")
            print("columns = the browser failed every / some / no iteration")
            print("model \\ observed   " + "  ".join(f"{c:>6s}" for c in classes))
            for p in classes:
                print(f"{p:18s} " + "  ".join(f"{table[(placement, heuristic, p, s)]:6d}" for s in classes))
    serial = serialized_two_thread(observed["results"], iterations, oopsla)
    print("\nplain, 2-thread tests, by the order of one worker that makes them fail:")
    for kind in ("in_order", "reversed_only", "neither"):
        row = serial[kind]
        print(
            f"  {kind}: {row['tests']} tests; the browser failed {row['observed_failing']} at least once, "
            f"{row['observed_failed_iterations']} of {row['tests'] * iterations} iterations {row['failing']}"
        )
    print()
    for name, found in against.items():
        print(f"{name}: the model fails {len(found)} launches of tests it guarantees (CADP)", found[:6])
    if args.out:
        record = {
            "command": " ".join(["python", "benchmarks/swiftshader_model.py", *sys.argv[1:]]),
            "workers": args.workers,
            "batches": BATCHES,
            "samples": args.samples,
            "table": {" ".join(k): v for k, v in sorted(table.items())},
            "model_fails_guaranteed": against,
            "plain_two_thread_serialized": serial,
            "rows": rows,
        }
        args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
