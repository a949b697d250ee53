"""What every benchmark records beside its numbers: the machine, Python, cores,
load, date and the command that reproduces it."""

from __future__ import annotations

import os
import platform
import sys
import time


def run_meta(script: str) -> dict:
    """The run's facts; `script` is the benchmark's file name under benchmarks/."""
    return {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": " ".join(["python", f"benchmarks/{script}", *sys.argv[1:]]),
    }
