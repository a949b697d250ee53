"""`progress export --format glsl`: AXB tests as GLSL compute shaders.

Oracle: Khronos' own compiler. Every exported shader must compile with
`glslangValidator -V` (Debian glslang-tools) and validate with `spirv-val`,
and the SPIR-V it gives must lay memory out as the exporter documents (one
32-bit uint per location, stride 4, offset 0, set 0, binding 0). Compiling
costs about 80 ms a shader, so the suite compiles a sample of the published
tests (the first, the last and every twentieth of each group) and random
programs; benchmarks/bench_kernels.py compiles all 483.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import progress_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from progress.back.glsl_source import shader
from progress.cli import cli
from progress.core.program import Instr, Program
from progress.front.axb.parse import parse_program

GROUPS = ("2t2i", "2t3i", "2t4i", "3t3i", "3t4i")


def compile_glsl(text: str, where: Path) -> str:
    """The disassembly of `text` compiled by glslang and validated by spirv-val; fails the test otherwise."""
    assert shutil.which("glslangValidator"), "glslang-tools is not installed (.ci/system-deps installs it)"
    source, binary = where / "t.comp", where / "t.spv"
    source.write_text(text)
    done = subprocess.run(
        ["glslangValidator", "-V", "--target-env", "vulkan1.1", str(source), "-o", str(binary)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stdout, done.stdout
    valid = subprocess.run(["spirv-val", "--target-env", "vulkan1.1", str(binary)], capture_output=True, text=True)
    assert valid.returncode == 0, valid.stdout + valid.stderr
    return subprocess.run(["spirv-dis", str(binary)], capture_output=True, text=True, check=True).stdout


def sample(oopsla: Path) -> list[Path]:
    chosen = []
    for group in GROUPS:
        files = sorted((oopsla / group).glob("*.axb"), key=lambda f: int(f.stem))
        chosen += files[::20] + [files[-1]]
    return chosen


def invoke(*args):
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def run(*args) -> subprocess.CompletedProcess[str]:
    """The command as users run it: through the catch site that turns errors into exit codes."""
    return subprocess.run(progress_command() + list(map(str, args)), capture_output=True, text=True, timeout=60)


@pytest.mark.long
def test_sample_of_the_published_suite_compiles(oopsla_dir, tmp_path):
    files = sample(oopsla_dir)
    assert len(files) >= 30
    for path in files:
        program = parse_program(path.read_text(), str(path))
        compile_glsl(shader(program), tmp_path)


def test_memory_layout_is_as_documented(tmp_path):
    program = Program("t", ((Instr("x", 0, 1, True, 1), Instr("y", 1, 1, False, 0)), (Instr("y", 0, 1, True, 2),)))
    text = shader(program)
    assert "//   mem[0]: x\n//   mem[1]: y\n" in text
    assembly = compile_glsl(text, tmp_path)
    assert re.search(r"OpDecorate %_arr_uint_uint_2 ArrayStride 4\b", assembly)
    assert re.search(r"OpMemberDecorate %Memory 0 Offset 0\b", assembly)
    assert re.search(r'OpMemberName %Memory 0 "mem"', assembly)
    assert re.search(r"OpDecorate %\w+ DescriptorSet 0\b", assembly)
    assert re.search(r"OpDecorate %\w+ Binding 0\b", assembly)
    assert "OpExecutionMode %main LocalSize 1 1 1" in assembly
    assert len(re.findall(r"OpAtomicExchange", assembly)) == 2
    assert len(re.findall(r"OpAtomicOr", assembly)) == 1


def test_header_carries_launch_init_and_expectations():
    program = Program("t", ((Instr("x", 0, 1, True, 1),), (Instr("y", 1, 0, False, 0),)), (("y", 7), ("z", 2)))
    lines = shader(program, "unfair F | fair/weak P").splitlines()
    assert lines[0] == "// progress: --workgroups 2 --init mem[1]=7 --init mem[2]=2"
    assert lines[1] == "// expect: unfair F | fair/weak P"
    assert "    uint mem[3];" in lines
    assert not shader(program).splitlines()[1].startswith("// expect:")


def test_each_instruction_is_one_atomic_and_a_branch():
    mutex = (Instr("m", 1, 0, True, 1), Instr("m", 0, 2, True, 0))
    program = Program("t", (mutex, (Instr("m", 1, 0, False, 0), Instr("m", 0, 2, True, 0))))
    text = shader(program)
    assert "pc = atomicExchange(mem[0], 1u) == 1u ? 0u : 1u;  // AXB(m, 1, 0, true, 1)" in text
    assert "atomicExchange(mem[0], 0u);  // AXB(m, 0, end, true, 0)\n                pc = 2u;" in text
    assert "pc = atomicOr(mem[0], 0u) == 1u ? 0u : 1u;  // AXB(m, 1, 0, false, 0)" in text
    assert text.count("while (pc != ") == 2
    assert "if (gl_WorkGroupID.x == 0u)" in text and "} else if (gl_WorkGroupID.x == 1u)" in text


def test_cli_exports_the_suite_deterministically(oopsla_dir, tmp_path):
    for out in ("a", "b"):
        result = invoke("export", "--format", "glsl", oopsla_dir, "-o", tmp_path / out)
        assert result.exit_code == 0, result.output
    first = sorted((tmp_path / "a").rglob("*.comp"))
    assert len(first) == 483
    for path in first:
        twin = tmp_path / "b" / path.relative_to(tmp_path / "a")
        assert path.read_bytes() == twin.read_bytes()
    assert (tmp_path / "a" / "2t2i" / "0.comp").read_text().startswith("// progress: --workgroups 2\n")


def test_cli_carries_the_expect_line_over(repo):
    result = invoke("export", "--format", "glsl", repo / "litmus" / "paper" / "mutex.axb")
    assert result.exit_code == 0
    expect = "// expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P"
    assert result.stdout.splitlines()[1].startswith(expect)


def test_cli_refuses_a_broken_expect_line_with_its_position(tmp_path):
    source = tmp_path / "t.axb"
    source.write_text("# expect: unfair X\nthread 0\n  AXB(x, 0, end, true, 1)\n")
    done = run("export", "--format", "glsl", source, "-o", tmp_path / "t.comp")
    assert done.returncode == 2
    assert f"{source}:1:" in done.stderr and "cannot read the expectation" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "t.comp").exists()


LOCS = ("x", "y", "int", "main", "pc", "mem", "gl_x", "a__b")


@st.composite
def programs(draw) -> Program:
    """Small programs, location names that are GLSL keywords or reserved included, values up to 2^31-1."""
    locs = draw(st.lists(st.sampled_from(LOCS), min_size=1, max_size=3, unique=True))
    threads = []
    for _ in range(draw(st.integers(1, 4))):
        length = draw(st.integers(1, 3))
        thread = []
        for _ in range(length):
            xchg = draw(st.booleans())
            value = draw(st.sampled_from((0, 1, 2**31 - 1))) if xchg else 0
            loc, cmp, target = draw(st.sampled_from(locs)), draw(st.integers(0, 2)), draw(st.integers(0, length))
            thread.append(Instr(loc, cmp, target, xchg, value))
        threads.append(tuple(thread))
    init = tuple((loc, draw(st.integers(0, 2**31 - 1))) for loc in locs if draw(st.booleans()))
    return Program("random", tuple(threads), init)


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(programs())
def test_random_programs_compile(tmp_path, program):
    text = shader(program)
    assert text == shader(program)
    compile_glsl(text, tmp_path)


@pytest.mark.parametrize("name", ["0", "a\x1bb"])
def test_odd_test_names_stay_inside_one_comment(name):
    text = shader(Program(name, ((Instr("x", 0, 1, True, 1),),)))
    assert all(line.startswith("//") for line in text.splitlines()[:4])
    assert "\x1b" not in text
