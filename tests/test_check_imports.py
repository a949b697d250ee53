"""The check path imports nothing it does not need: no z3, CUDA, plotting,
graph drawing, Dask or rich, and no lark for files in the usual layout."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from progress.cli import main
try:
    main(["check", *sys.argv[1:], "--format", "json"])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

HEAVY = ("z3", "cupy", "matplotlib", "networkx", "dask", "distributed", "rich", "graphviz", "numpy", "numba", "lark")


def loaded_modules(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in json.loads(done.stderr.strip().splitlines()[-1])}


def test_checking_the_suite_imports_no_heavy_dependency(oopsla_dir):
    loaded = loaded_modules(str(oopsla_dir))
    assert "progress" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_lark_is_imported_only_for_other_layouts(tmp_path):
    (tmp_path / "one_line.axb").write_text("thread 0 AXB(x, 0, end, true, 1)\n")
    assert "lark" in loaded_modules(str(tmp_path / "one_line.axb"))
