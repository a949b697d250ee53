"""Benchmark: is the AXB path as fast after a change? `progress check` of the
483 published tests from two source trees, a base revision and the working
tree, in alternating fresh processes (the editable install bypassed, so each
run imports its own tree), and checks that both print the same bytes.

    python3 benchmarks/bench_axb_path.py [--base 1a25f97] [--runs 15] [--suite litmus/oopsla21]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNNER = """import sys
root = sys.argv.pop(1)
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, root)
import progress
assert progress.__file__.startswith(root), progress.__file__
from progress.cli import main
main()
"""


def tree(folder: Path, base: str | None) -> Path:
    """The package laid out as installed (models/ and synth/ inside progress/)."""
    if base is None:
        for part in ("progress", "models", "synth"):
            shutil.copytree(REPO / part, folder / part)
    else:
        folder.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", base, "progress", "models", "synth"], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    shutil.copytree(folder / "models", folder / "progress" / "models")
    shutil.copytree(folder / "synth", folder / "progress" / "synth")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="1a25f97")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--suite", default=str(REPO / "litmus" / "oopsla21"))
    args = parser.parse_args()
    groups = [str(Path(args.suite) / g) for g in ("2t2i", "2t3i", "2t4i", "3t3i", "3t4i")]
    with tempfile.TemporaryDirectory() as tmp:
        roots = {"base": tree(Path(tmp) / "base", args.base), "new": tree(Path(tmp) / "new", None)}
        times: dict[str, list[float]] = {"base": [], "new": []}
        digests: dict[str, set[str]] = {"base": set(), "new": set()}
        for _ in range(args.runs):
            for name, root in roots.items():
                start = time.perf_counter()
                done = subprocess.run([sys.executable, "-c", RUNNER, str(root), "check", *groups], capture_output=True)
                times[name].append(time.perf_counter() - start)
                digests[name].add(hashlib.sha256(done.stdout).hexdigest())
    for name in times:
        median, best = statistics.median(times[name]), min(times[name])
        print(f"{name}: median {median:.3f} s, min {best:.3f} s, outputs {sorted(digests[name])}")
    print(
        f"new/base: median {statistics.median(times['new']) / statistics.median(times['base']):.3f}, "
        f"min {min(times['new']) / min(times['base']):.3f}; load {os.getloadavg()}"
    )
    print("same bytes:", digests["base"] == digests["new"] and len(digests["new"]) == 1)


if __name__ == "__main__":
    main()
