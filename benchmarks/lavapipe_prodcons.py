"""Why a lavapipe run of prodcons_queue.comp finished with a sum no terminal state has
(docs/results/gpu/kernels/lavapipe_prodcons.md).

    python benchmarks/lavapipe_prodcons.py [--launches 40] [--budgets 40000,60000,65000,65518]

Launches the instrumented probe benchmarks/kernel_probes/prodcons_debug.comp (the
kernel with the consumer's reads, tails and wait turns recorded) one iteration at a
time, alone, on the wgpu adapter here (lavapipe: run with LP_NUM_THREADS unset, two
CPUs), at each budget, and prints per budget how many launches finished and the
consumer's records of the finished ones.
"""

from __future__ import annotations

import argparse
import collections
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from progress.cli.kernel_run import prepared  # noqa: E402
from progress.front.header import LaunchSettings  # noqa: E402
from progress.gpu.kernel_run import Shape  # noqa: E402
from progress.gpu.wgpu_kernel import WgpuKernel  # noqa: E402

PROBE = REPO / "benchmarks" / "kernel_probes" / "prodcons_debug.comp"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=40)
    parser.add_argument("--budgets", default="40000,60000,65000,65518")
    args = parser.parse_args()
    engine = WgpuKernel()
    _, launch, _ = prepared(str(PROBE), LaunchSettings())
    pipeline = engine.kernel_pipeline(launch)
    print(f"device: {engine.metadata().get('device')}, driver {engine.metadata().get('driver')}")
    print("| budget | launches | finished | consumer's records of the finished (sum; reads; tails; waits) x count |")
    print("|---|---|---|---|")
    for budget in (int(b) for b in args.budgets.split(",")):
        seen: collections.Counter = collections.Counter()
        finished = 0
        for _ in range(args.launches):
            outcome = engine.run_kernel(launch, pipeline, Shape("alone"), 1, budget, 60.0)
            if outcome.buffers is not None:
                finished += 1
                words = struct.unpack("<10I", outcome.buffers[1])
                seen[f"{words[0]}; {list(words[1:4])}; {list(words[4:7])}; {list(words[7:10])}"] += 1
        shown = ", ".join(f"{k} x{n}" for k, n in sorted(seen.items()))
        print(f"| {budget} | {args.launches} | {finished} | {shown} |")


if __name__ == "__main__":
    main()
