"""The kernels' runs on several devices side by side (docs/results/gpu/kernels/report.md).

    python benchmarks/kernel_devices.py docs/results/gpu/kernels/{h200_kernels,lavapipe,lavapipe_t1,swiftshader}.json

Prints, per kernel and launch shape, each device's cell (P or F (k/N)), then
per kernel the violations, judged again from the recorded verdicts and cells
by `progress.gpu.kernel_report.judgement` (so that runs made before a change
of its rules are read by today's), as Markdown.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from progress.gpu.kernel_report import VIOLATION, judgement


def violations(record: dict) -> list[str]:
    """Per shape, the models violated ("fair" when weak and strong both are)."""
    found = []
    for shape, outcome in record["shapes"].items():
        labels = [
            label
            for label, terminates in record["verdicts"].items()
            if judgement(label.split("/")[0], terminates, shape, outcome["cell"] != "P") == VIOLATION
        ]
        models = {label.split("/")[0] for label in labels}
        named = [
            m
            if {f"{m}/weak", f"{m}/strong"} <= set(labels)
            else "/".join([m, *sorted(label.split("/")[1] for label in labels if label.startswith(m + "/"))])
            for m in sorted(models)
        ]
        if named:
            found.append(f"{shape}: {', '.join(named)}")
    return found


def main(paths: list[str]) -> None:
    runs = {Path(p).stem: json.loads(Path(p).read_text()) for p in paths}
    names = list(runs)
    print("| device | driver | LP_NUM_THREADS | iterations | deadline | occupiers |")
    print("|---|---|---|---|---|---|")
    for name, run in runs.items():
        print(
            f"| {name}: {run['device']} | {run['driver']} | {run['LP_NUM_THREADS']} | {run['iterations']} "
            f"| {run['deadline_s'] * 1000:g} ms | {run['occupiers']} |"
        )
    print()
    records = {n: {k["kernel"]: k for k in run["kernels"] if "shapes" in k} for n, run in runs.items()}
    kernels = sorted({k for found in records.values() for k in found})
    shapes = next(iter(runs.values()))["shapes"]
    print("| kernel | " + " | ".join(f"{s}: {' / '.join(names)}" for s in shapes) + " |")
    print("|---|" + "---|" * len(shapes))
    for kernel in kernels:
        cells = []
        for shape in shapes:
            cells.append(" / ".join(_cell(records[n].get(kernel), shape) for n in names))
        print(f"| {kernel} | " + " | ".join(cells) + " |")
    print()
    print("| kernel | " + " | ".join(f"violations on {n}" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for kernel in kernels:
        found = [_violations(records[n].get(kernel)) for n in names]
        print(f"| {kernel} | " + " | ".join(found) + " |")


def _cell(record: dict | None, shape: str) -> str:
    return "-" if record is None or shape not in record["shapes"] else record["shapes"][shape]["cell"]


def _violations(record: dict | None) -> str:
    return "not run" if record is None else "; ".join(violations(record)) or "none"


if __name__ == "__main__":
    main(sys.argv[1:])
