"""Run the suite's `long` tests (agreement runs of about 8 s or more, deselected
from the default suite to keep it under 3 minutes on 2 cores) and record the
outcome in docs/results/long_tests.md.

    python3 benchmarks/long_tests.py [--out docs/results/long_tests.md]

Exit status: pytest's (0 only when every long test passed).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results" / "long_tests.md")
    args = parser.parse_args()
    head = ["git", "rev-parse", "--short", "HEAD"]
    commit = subprocess.run(head, cwd=REPO, capture_output=True, text=True).stdout.strip()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "long", "--durations=0"]
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    seconds = time.monotonic() - started
    lines = done.stdout.splitlines()
    summary = next((line for line in reversed(lines) if " passed" in line or " failed" in line), "(no summary)")
    durations = [line for line in lines if re.match(r"\d+\.\d+s (call|setup|teardown) ", line)]
    report = [
        "# The long tests (`pytest -m long`)",
        "",
        "Agreement runs of about 8 s or more, deselected from the default suite",
        "(pyproject.toml's addopts) to keep it under 3 minutes on 2 cores, run here:",
        "",
        "    python3 benchmarks/long_tests.py",
        "",
        f"Commit {commit}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"load average at the end {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs: "
        f"**{summary.strip('= ')}** in {seconds:.1f} s wall (exit {done.returncode}).",
        "",
        "```",
        *durations,
        "```",
        "",
    ]
    args.out.write_text("\n".join(report))
    sys.stdout.write(done.stdout[-4000:])
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
