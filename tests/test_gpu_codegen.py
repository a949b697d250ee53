"""Generated CUDA and C source: golden files, and compilers accept it.

Golden files live in tests/golden/gpu/; regenerate them with
PROGRESS_UPDATE_GOLDEN=1 after an intended change, and review the diff.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from progress.back import c_source, cuda_source
from progress.back.codegen import body, initial_cells
from progress.front.axb.parse import parse_program

HERE = Path(__file__).parent
GOLDEN = HERE / "golden" / "gpu"
INPUTS = {
    "mutex": HERE.parent / "litmus" / "paper" / "mutex.axb",
    "pc_decreasing": HERE / "data" / "gpu" / "pc_decreasing.axb",
    "pc_increasing": HERE / "data" / "gpu" / "pc_increasing.axb",
}


def _program(name):
    path = INPUTS[name]
    return parse_program(path.read_text(), str(path), name=name)


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("PROGRESS_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with PROGRESS_UPDATE_GOLDEN=1"
    assert text == path.read_text()


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_cuda_kernel_matches_golden(name):
    _check_golden(f"{name}.cu", cuda_source.kernel(_program(name), 0))


def test_cuda_module_matches_golden():
    _check_golden("module.cu", cuda_source.module([_program(n) for n in sorted(INPUTS)]))


def test_cuda_lane_kernel_matches_golden():
    _check_golden("pc_decreasing_lane.cu", cuda_source.kernel(_program("pc_decreasing"), 0, "lane"))


def test_c_program_matches_golden():
    _check_golden("pc_decreasing.c", c_source.program_source(_program("pc_decreasing")))


def test_body_follows_axb_semantics():
    text = parse_program(
        "thread 0\n  AXB(x, 0, 2, false, 0)\n  AXB(y, 0, 2, true, 5)\n"
        "  AXB(x, 1, 0, true, 1)\nthread 1\n  AXB(x, 0, end, true, 1)\n",
        "t.axb",
    )
    code = body(text)
    assert "if (AXB_LOAD(&mem[0]) == 0) goto T0_2;" in code  # forward jump: no deadline check
    assert "(void)AXB_XCHG(&mem[1], 5);" in code  # a store: both branches meet
    assert "if (AXB_XCHG(&mem[0], 1) == 1) { PROGRESS_SPIN(); goto T0_0; }" in code  # backward: checked
    assert "(void)AXB_XCHG(&mem[0], 1);" in code  # thread 1's store to `end`
    assert code.count("PROGRESS_SPIN()") == 1


def test_initial_cells_follow_init():
    program = parse_program("init y = 3\nthread 0\n  AXB(x, 0, end, true, 1)\n  AXB(y, 3, 0, false, 0)\n", "t.axb")
    assert initial_cells(program) == (0, 3)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_nvcc_compiles_the_whole_suite_module(oopsla_dir, tmp_path):
    programs = [parse_program(p.read_text(), str(p)) for p in sorted(oopsla_dir.rglob("*.axb"))[:60]]
    source = tmp_path / "suite.cu"
    source.write_text(cuda_source.module(programs))
    result = subprocess.run(
        ["nvcc", "-arch=sm_90", "-ptx", "-Werror", "all-warnings", "-o", str(tmp_path / "suite.ptx"), str(source)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "suite.ptx").read_text().count(".entry progress_test_") == 60
