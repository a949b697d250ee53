"""The kernel corpus: each file under litmus/kernels/ is a self-contained test.

Its header comment holds the launch (`// progress: --workgroups W ...`) and
all 11 expected verdicts (`// expect: ...`), each reasoned out in the file's
comments from docs/semantics.md sections 3, 4 and 8; `progress check
--expect-header` must meet every one, as `progress check` reads them (the
whole process: glslang, spirv-as or naga, the SPIR-V decoder, the kernel
checker). Every kernel has a WGSL twin in litmus/wgsl/ (WebGPU's
idioms for the same program) with the same launch and the same 11 verdicts.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, progress_command

KERNELS = REPO / "litmus" / "kernels"
SUFFIXES = (".comp", ".glsl", ".hlsl", ".spvasm")
FILES = sorted(f for f in KERNELS.iterdir() if f.suffix in SUFFIXES)
"""Kernels (`.glsl` is GLSL too, as `name.comp.glsl` public projects write it)."""
WGSL = sorted((REPO / "litmus" / "wgsl").glob("*.wgsl"))
EXPECT = re.compile(r"^(?://|;)\s*expect:(.*)$", re.MULTILINE)
SETTINGS = re.compile(r"^(?://|;)\s*progress:(.*)$", re.MULTILINE)
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
        "clspv_message_passing.spvasm",  # other compilers' SPIR-V: clspv's (OpenCL C), DXC's (HLSL)
        "dxc_ticket_lock.spvasm",
        "engine_ticket_lock.comp.glsl",  # includes (litmus/include/), a macro, the .comp.glsl name
        "slang_cas_lock.spvasm",  # Slang's own SPIR-V
        "include_lookback.comp.glsl",  # includes (quoted, angled), -D, local_size_x_id, a .comp.glsl name
        "hlsl_include_ticket_lock.hlsl",  # HLSL through Slang with an include and a define
    ]:
        assert wanted in names
    assert sum(f.suffix == ".hlsl" for f in FILES) >= 2
    assert sum(f.suffix == ".spvasm" for f in FILES) >= 2


@pytest.mark.parametrize("path", FILES + WGSL, ids=lambda p: p.relative_to(REPO / "litmus").as_posix())
def test_header_lists_all_eleven_verdicts_and_a_launch(path: Path):
    text = path.read_text()
    lines = EXPECT.findall(text)
    assert len(lines) == 1
    cells = [cell.split() for cell in lines[0].split("|")]
    plain = [cell for cell in cells if cell[0].count("/") < 2]  # W/S/L[/fairness]: a scoped (lane) verdict besides
    assert sorted(cell[0] for cell in plain) == sorted(VERDICTS)
    assert all(len(cell) == 2 and cell[1] in "PF" for cell in cells)
    workgroups = LAUNCH.search(text)
    assert workgroups and 2 <= int(workgroups.group(1)) <= 8


def kernel_name(path: Path) -> str:
    """The kernel's name: the file's name without its suffixes (`lock.comp.glsl`: `lock`)."""
    return path.name.split(".")[0]


COMPILER_OPTIONS = re.compile(r"\s*-[DI]\s*\S+")
"""-D NAME[=VALUE] and -I DIR: how a GLSL or HLSL file is compiled, not its launch (WGSL has neither)."""


def launch(lines: list[str]) -> list[str]:
    """`progress:` lines without their compiler options."""
    return [COMPILER_OPTIONS.sub("", line).strip() for line in lines]


WITHOUT_TWIN = {
    "buffer_reference_phases": "WGSL has no buffer references, no 64-bit integers (verdicts: grid_barrier's)",
    "wide_ticket_lock": "WGSL has no 64-bit integers (verdicts: ticket_lock's)",
}
"""Kernels whose idiom WGSL cannot write (their verdicts are those of a kernel that has a twin)."""


def test_every_kernel_has_a_wgsl_twin_with_its_launch_and_verdicts():
    twins = {path.stem: path for path in WGSL}
    assert sorted(twins) == sorted(kernel_name(path) for path in FILES if kernel_name(path) not in WITHOUT_TWIN)
    for path in FILES:
        if kernel_name(path) in WITHOUT_TWIN:
            continue
        text, twin = path.read_text(), twins[kernel_name(path)].read_text()
        assert EXPECT.findall(text) == EXPECT.findall(twin), path.name
        if SETTINGS.findall(text):  # the same launch line
            assert launch(SETTINGS.findall(text)) == launch(SETTINGS.findall(twin)), path.name
        else:  # Dat3M's @Config: the same workgroups, the rest in the twin's progress: line
            assert LAUNCH.findall(text) == LAUNCH.findall(twin), path.name


@pytest.mark.long
def test_every_kernel_meets_its_header():
    """Each kernel and its WGSL twin meet their header, by name. In the suite,
    test_expect.py's corpus test runs the same `progress check --expect-header`
    over all of litmus/ (these two folders included): exit 0, and as many
    `all N expected verdicts hold` lines and expectations as the files hold."""
    done = check("--expect-header", str(KERNELS), str(REPO / "litmus" / "wgsl"))  # and the WGSL twins
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    for path in FILES:
        cells = EXPECT.findall(path.read_text())[0].count("|") + 1
        assert lines.count(f"{kernel_name(path)}: all {cells} expected verdicts hold") == 2, path.name


@pytest.mark.long
def test_docs_section_is_what_the_checker_says():
    """docs/kernels.md's corpus section (verdict tables and lassos) is generated; stale = fail."""
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "kernels_doc.py"), "--check"], timeout=600)
    assert done.returncode == 0, "docs/kernels.md is stale: run python benchmarks/kernels_doc.py"
