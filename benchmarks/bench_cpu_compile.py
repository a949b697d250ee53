"""How long the CPU backend's first `progress run` compiles (issue 8 section 5):
one compiler at a time (the old behaviour) against one per core, cold cache
each time, on the first --tests tests of the OOPSLA'21 suite.

    python benchmarks/bench_cpu_compile.py [--tests 60] [--out docs/results]

Writes cpu_compile.md and cpu_compile.json into --out. Both arms compile the
same sources into fresh private cache directories in the same process, so
the ratio is measured in one run on one machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

from progress.cli.inputs import expand, load
from progress.gpu.cpu import CpuBackend

REPO = Path(__file__).resolve().parents[1]
OOPSLA = REPO / "litmus" / "oopsla21"


def compile_all(programs, workers: int) -> float:
    with tempfile.TemporaryDirectory() as scratch:
        engine = CpuBackend(cache_dir=Path(scratch) / "cache", workers=workers)
        start = time.perf_counter()
        engine.prepare(programs)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=60)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results")
    args = parser.parse_args()
    programs = [load(path) for path in expand([str(OOPSLA)])[: args.tests]]
    cores = os.cpu_count() or 1
    busy = os.getloadavg()[0]
    serial = compile_all(programs, 1)
    parallel = compile_all(programs, cores)
    result = {
        "tests": len(programs),
        "cores": cores,
        "serial_s": round(serial, 2),
        "parallel_s": round(parallel, 2),
        "speedup": round(serial / parallel, 2),
        "per_test_serial_ms": round(1000 * serial / len(programs), 1),
        "machine": f"{platform.machine()} {platform.python_version()}",
        "load_average_1min_at_start": round(busy, 2),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cpu_compile.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "cpu_compile.md").write_text(
        "# CPU backend: compiling the tests of a first run\n\n"
        f"`python benchmarks/bench_cpu_compile.py --tests {len(programs)}` (cold cache, both arms in one run):\n\n"
        "| compilers at once | seconds | per test |\n|---|---:|---:|\n"
        f"| 1 (before) | {serial:.2f} | {1000 * serial / len(programs):.0f} ms |\n"
        f"| {cores} (one per core) | {parallel:.2f} | {1000 * parallel / len(programs):.0f} ms |\n\n"
        f"Speed-up {serial / parallel:.2f}x on {cores} cores ({result['machine']}), with a load average of "
        f"{busy:.1f} at the start (other jobs on the machine: a load above the core count leaves little for "
        "the second compiler, so this ratio is a lower bound of what an idle machine gives). The whole suite "
        "(483 tests) compiles in about 483 x the per-test time; `progress run` shows it as "
        "`compiling N tests`.\n"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
