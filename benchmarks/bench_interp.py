"""Tests per second of `progress run` with each codegen (issue 19), in one call on one device.

    python benchmarks/bench_interp.py [--suite DIR] [--backend cuda] [--iterations 20] [--out DIR]

Runs `progress run SUITE --codegen per-test` and then `--codegen interp`
(each into a fresh directory), reads each run's `elapsed_s` (the run, not
the start-up) and compile time from its JSON, and writes `bench_interp.json`
into --out: tests, failures per heuristic and tests/s per codegen, and
their ratio. On the H200 (docs/results/gpu/interp/report.md, call B ran the
same two commands): per-test 1.57 tests/s, interp 62 tests/s, 39.6x.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(suite: Path, backend: str, codegen: str, iterations: int) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "r.csv"
        command = ["run", str(suite), "--backend", backend, "--codegen", codegen]
        command += ["--iterations", str(iterations), "-o", str(out)]
        entry = "import sys; from progress.cli import main; main(sys.argv[1:])"
        subprocess.run([sys.executable, "-c", entry, *command], check=True)
        meta = json.loads(out.with_suffix(".json").read_text())
    return {
        "codegen": codegen,
        "tests": meta["tests"],
        "elapsed_s": meta["elapsed_s"],
        "compile_s": meta.get("compile_seconds"),
        "failed_tests": meta["failed_tests"],
        "tests_per_s": round(meta["tests"] / meta["elapsed_s"], 2) if meta["elapsed_s"] else None,
        "device": meta.get("device"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=REPO / "litmus" / "oopsla21")
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results" / "gpu" / "interp")
    args = parser.parse_args()
    arms = [run(args.suite, args.backend, codegen, args.iterations) for codegen in ("per-test", "interp")]
    result = {"arms": arms, "speedup": round(arms[0]["elapsed_s"] / arms[1]["elapsed_s"], 1)}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_interp.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
