"""Benchmark: a test-and-set spin lock and a ticket lock as SPIR-V kernels, at
2..8 workgroups of 1, 2 or 4 invocations: states, time to all 11 verdicts,
peak memory (issue 18: the 8-workgroup spin lock under 10 s and 1 GB).

Each configuration runs in a fresh process (so its peak resident memory is
its own): compile with glslangValidator, decode, then time `check_system`
with every registered model and both fairnesses, lassos included. States is
the largest product LTS of the 11 verdicts (what `progress check` prints).
A configuration stopped by the state bound or the time limit says so.
Writes docs/results/kernel_locks.json and prints a Markdown table.

    python3 benchmarks/bench_kernel_locks.py [--max-states 3000000] [--time-limit 120]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

KERNELS = {
    "spin lock": """#version 450
layout(local_size_x = LOCAL) in;
layout(std430, binding = 0) buffer Lock { uint lock; uint count; };
void main() {
    while (atomicExchange(lock, 1u) == 1u) { }
    count = count + 1u;
    atomicExchange(lock, 0u);
}
""",
    "ticket lock": """#version 450
layout(local_size_x = LOCAL) in;
layout(std430, binding = 0) buffer Lock { uint next; uint serving; uint count; };
void main() {
    uint ticket = atomicAdd(next, 1u);
    while (atomicAdd(serving, 0u) != ticket) { }
    count = count + 1u;
    atomicAdd(serving, 1u);
}
""",
}
CONFIGS = [(w, i) for i in (1, 2, 4) for w in (2, 4, 8) if w * i <= 16]

CHILD = """
import json, resource, sys, time
from progress.core.analyze import check_system, queries_for
from progress.core.registry import all_models
from progress.front.spirv.decode import decode
from progress.front.spirv.kernel import KernelSystem, Launch
path, workgroups, max_states, time_limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
module = decode(open(path, "rb").read(), path)
start = time.perf_counter()
system = KernelSystem(module, Launch(workgroups, {}), "lock", path, "0" * 16)
report = check_system(system, queries_for(all_models()), max_states=max_states, time_limit=time_limit)
seconds = time.perf_counter() - start
print(json.dumps({
    "seconds": round(seconds, 3),
    "states": max(v.states for v in report.verdicts),
    "transitions": max(v.transitions for v in report.verdicts),
    "verdicts": "".join("?" if v.terminates is None else "P" if v.terminates else "F" for v in report.verdicts),
    "stopped": next((v.reason for v in report.verdicts if v.reason), None),
    "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
}))
"""


def run(kernel: str, workgroups: int, local: int, folder: Path, args: argparse.Namespace) -> dict:
    source = folder / f"{kernel.replace(' ', '_')}_{local}.comp"
    binary = source.with_suffix(".spv")
    if not binary.exists():
        source.write_text(KERNELS[kernel].replace("LOCAL", str(local)))
        subprocess.run(
            ["glslangValidator", "-V", "-g", str(source), "-o", str(binary)], check=True, capture_output=True
        )
    command = [sys.executable, "-c", CHILD, str(binary), str(workgroups), str(args.max_states), str(args.time_limit)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    return {"kernel": kernel, "workgroups": workgroups, "invocations": local, **result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-states", type=int, default=3_000_000)
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--out", default=str(REPO / "docs" / "results" / "kernel_locks.json"))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kernel in KERNELS:
            for workgroups, local in CONFIGS:
                rows.append(run(kernel, workgroups, local, Path(tmp), args))
                print(json.dumps(rows[-1]), file=sys.stderr)
    meta = {
        "command": "python3 benchmarks/bench_kernel_locks.py " + " ".join(sys.argv[1:]),
        "load": os.getloadavg(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    Path(args.out).write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    print("| kernel | workgroups | invocations each | states | transitions | seconds | peak MiB | verdicts |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        states = f"{r['states']}" + (f" ({r['stopped']})" if r["stopped"] else "")
        print(
            f"| {r['kernel']} | {r['workgroups']} | {r['invocations']} | {states} | {r['transitions']} "
            f"| {r['seconds']} | {r['peak_mib']} | `{r['verdicts']}` |"
        )


if __name__ == "__main__":
    main()
