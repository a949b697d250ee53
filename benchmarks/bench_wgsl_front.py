"""What reading a WGSL kernel costs, against its GLSL (HLSL, assembly) twin
in the same run (issue 31).

    python benchmarks/bench_wgsl_front.py [--repeat 5] [--out docs/results]

For every kernel of litmus/kernels/ and its twin in litmus/wgsl/:
`load_kernel` cold (a fresh cache directory: the compiler and spirv-val run)
and warm (cache hits), medians of --repeat runs in this process; for the
WGSL one also its parts: marking the statements, naga under Node, and the
rewrite of naga's module (loop bounds, lines). Writes wgsl_front.md and
wgsl_front.json into --out.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from run_meta import run_meta

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "litmus" / "kernels"
KINDS = {".comp": "glsl", ".glsl": "glsl", ".hlsl": "hlsl", ".spvasm": "spvasm", ".wgsl": "wgsl"}


def median_ms(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 1)


def load_costs(path: Path, repeat: int) -> tuple[float, float]:
    from progress.front.spirv.load import load_kernel

    data, kind = path.read_bytes(), KINDS[path.suffix]

    def cold() -> None:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["XDG_CACHE_HOME"] = cache
            load_kernel(data, path.name, kind)

    cold_ms = median_ms(cold, repeat)
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp()
    load_kernel(data, path.name, kind)
    return cold_ms, median_ms(lambda: load_kernel(data, path.name, kind), repeat)


def wgsl_parts(path: Path, repeat: int) -> dict:
    from progress.front.wgsl import compile as wgsl_compile
    from progress.front.wgsl import naga
    from progress.front.wgsl.marks import marked_source

    text = path.read_text()
    marked = marked_source(text)
    binary = naga._run(marked.source, naga.DEFAULT_LIMITS)
    return {
        "marks_ms": median_ms(lambda: marked_source(text), repeat),
        "naga_ms": median_ms(lambda: naga._run(marked.source, naga.DEFAULT_LIMITS), repeat),
        "rewrite_ms": median_ms(lambda: wgsl_compile._rewritten(binary, path.name, marked), repeat),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    meta = run_meta("bench_wgsl_front.py")
    rows = []
    for twin in sorted((REPO / "litmus" / "wgsl").glob("*.wgsl")):
        original = next(p for p in KERNELS.iterdir() if p.name.split(".")[0] == twin.stem and p.suffix in KINDS)
        row = {"kernel": twin.stem, "twin": original.name}
        row["twin_cold_ms"], row["twin_warm_ms"] = load_costs(original, args.repeat)
        row["wgsl_cold_ms"], row["wgsl_warm_ms"] = load_costs(twin, args.repeat)
        row.update(wgsl_parts(twin, args.repeat))
        rows.append(row)
        print(row, flush=True)
    result = {"meta": meta, "rows": rows, "repeat": args.repeat}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "wgsl_front.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "wgsl_front.md").write_text(report(result))
    print(report(result))
    return 0


def report(result: dict) -> str:
    meta, rows = result["meta"], result["rows"]
    total = {key: sum(row[key] for row in rows) for key in rows[0] if key.endswith("_ms")}
    lines = [
        "# WGSL front end: what reading a kernel through naga costs",
        "",
        f"`{meta['command']}` ({meta['date']}, {meta['machine']}, Python {meta['python']}, "
        f"{meta['cpus']} CPUs, load average {meta['load_average'][0]:.1f} at the start; medians of "
        f"{result['repeat']} runs in one process). Raw numbers: wgsl_front.json. Each WGSL kernel against "
        "its twin in litmus/kernels/, the same run.",
        "",
        "| kernel | twin | twin cold (ms) | WGSL cold (ms) | cold ratio | twin warm (ms) | WGSL warm (ms) "
        "| marks (ms) | naga under Node (ms) | rewrite (ms) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows + [{"kernel": "**all**", "twin": "", **total}]:
        lines.append(
            f"| {row['kernel']} | {row['twin']} | {row['twin_cold_ms']:.1f} | {row['wgsl_cold_ms']:.1f} "
            f"| {row['wgsl_cold_ms'] / row['twin_cold_ms']:.2f}x | {row['twin_warm_ms']:.1f} "
            f"| {row['wgsl_warm_ms']:.1f} | {row['marks_ms']:.1f} | {row['naga_ms']:.1f} | {row['rewrite_ms']:.1f} |"
        )
    lines += [
        "",
        "Reading: cold, a WGSL kernel costs one Node process (start-up and instantiating naga's 2 MB of "
        "WebAssembly: most of the naga column) where a GLSL one costs one glslangValidator process; both "
        "then run spirv-val. Warm, both are cache hits and the decoder. Marking the statements and "
        "rewriting naga's module (loop bounds, lines, runtime array types) are milliseconds. The machine "
        "is shared: see the load average above.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
