"""The kernel corpus: each file under litmus/kernels/ is a self-contained test.

Its header comment holds the launch (`// progress: --workgroups W ...`) and
all 11 expected verdicts (`// expect: ...`), each reasoned out in the file's
comments from docs/semantics.md sections 3, 4 and 8; `progress check
--expect-header` must meet every one, as `progress check` reads them (the
whole process: glslang or spirv-as, the SPIR-V decoder, the kernel checker).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, progress_command

KERNELS = REPO / "litmus" / "kernels"
SUFFIXES = (".comp", ".hlsl", ".spvasm")
FILES = sorted(f for f in KERNELS.iterdir() if f.suffix in SUFFIXES)
EXPECT = re.compile(r"^(?://|;)\s*expect:(.*)$", re.MULTILINE)
LAUNCH = re.compile(r"^(?://|;)\s*(?:progress:\s*--workgroups\s+|@Config:\s*\d+\s*,\s*\d+\s*,\s*)(\d+)", re.MULTILINE)
"""The launch's workgroups: `progress: --workgroups W`, or Dat3M's `@Config: T, S, W`."""
VERDICTS = {"unfair"} | {f"{m}/{f}" for m in ("fair", "HSA", "OBE", "HSA+OBE", "LOBE") for f in ("weak", "strong")}


def check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(progress_command() + ["check", *args], capture_output=True, text=True, timeout=600, cwd=REPO)


def test_corpus_has_the_idioms_the_issue_names():
    names = {f.name for f in FILES}
    for wanted in [
        "tas_spinlock.comp",
        "ttas_spinlock.comp",
        "ticket_lock.comp",
        "message_passing.comp",
        "prodcons_queue.comp",
        "grid_barrier.comp",
        "lookback_scan.comp",
        "occupancy_discovery.comp",
        "barrier_divergence.comp",
        "local_livelock.comp",
        "plain_spin.comp",
    ]:
        assert wanted in names
    assert sum(f.suffix == ".hlsl" for f in FILES) >= 2
    assert sum(f.suffix == ".spvasm" for f in FILES) >= 2


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_header_lists_all_eleven_verdicts_and_a_launch(path: Path):
    text = path.read_text()
    lines = EXPECT.findall(text)
    assert len(lines) == 1
    cells = [cell.split() for cell in lines[0].split("|")]
    assert sorted(cell[0] for cell in cells) == sorted(VERDICTS)
    assert all(len(cell) == 2 and cell[1] in "PF" for cell in cells)
    workgroups = LAUNCH.search(text)
    assert workgroups and 2 <= int(workgroups.group(1)) <= 8


def test_every_kernel_meets_its_header():
    done = check("--expect-header", str(KERNELS))
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    for path in FILES:
        assert f"{path.stem}: all 11 expected verdicts hold" in done.stdout + done.stderr


def test_docs_section_is_what_the_checker_says():
    """docs/kernels.md's corpus section (verdict tables and lassos) is generated; stale = fail."""
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "kernels_doc.py"), "--check"], timeout=600)
    assert done.returncode == 0, "docs/kernels.md is stale: run python benchmarks/kernels_doc.py"
