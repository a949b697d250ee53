"""The two paths agree (issue 18): an AXB test exported by `progress export
--format glsl`, compiled by glslang and checked as a SPIR-V kernel, gets the
AXB checker's 11 verdicts and, on the published tests, CADP's; with and
without `spirv-opt -O`. Unoptimized, the state counts are equal too: each AXB
step is one visible action of the kernel. The launch (workgroups, `--init`)
is read back from the exported file's own header.

In the suite: one published test per group (the lowest-numbered of those with
the group's largest state space) and random programs; all 483 x 2 are in
benchmarks/bench_kernels.py (docs/results/kernels_agreement.md)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import agreement_settings, long_twin
from hypothesis import strategies as st
from kernel_helpers import compile_glsl, system

from progress.back.glsl_source import shader
from progress.core.analyze import check_program, check_system, queries_for
from progress.core.program import Instr, Program
from progress.core.registry import all_models
from progress.front.axb.parse import parse_program
from progress.front.header import launch_settings

QUERIES = queries_for(all_models())
SAMPLE = ("2t2i/0.axb", "2t3i/0.axb", "2t4i/168.axb", "3t3i/6.axb", "3t4i/32.axb")


def kernel_verdicts(program: Program, where: Path, optimize: bool) -> tuple[list[bool | None], list[int]]:
    text = shader(program)
    launch = launch_settings(text, "exported.comp", "glsl")
    module = compile_glsl(text, where / "exported", optimize=optimize)
    report = check_system(system(module, launch.workgroups or 1, dict(launch.buffers), launch.init), QUERIES)
    return [v.terminates for v in report.verdicts], [v.states for v in report.verdicts]


def cadp(oopsla: Path, name: str) -> dict[tuple[str, str], bool]:
    with open(oopsla / "cadp_verdicts.csv", newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if r["test"] == name)
    return {tuple(key.split("/")): value == "P" for key, value in row.items() if key != "test"}


@pytest.mark.parametrize("optimize", [False, True], ids=["plain", "optimized"])
@pytest.mark.parametrize("name", SAMPLE)
def test_published_sample_agrees_with_axb_and_cadp(oopsla_dir, tmp_path, name, optimize):
    program = parse_program((oopsla_dir / name).read_text(), name)
    axb = check_program(program, QUERIES, witnesses=False)
    got, states = kernel_verdicts(program, tmp_path, optimize)
    assert got == [v.terminates for v in axb.verdicts]
    expected = cadp(oopsla_dir, name)
    for verdict, terminates in zip(axb.verdicts, got):
        assert expected.get((verdict.model, verdict.fairness), False) == terminates
    if not optimize:
        assert states == [v.states for v in axb.verdicts]


@st.composite
def programs(draw) -> Program:
    """Up to 3 threads of up to 3 instructions over up to 3 locations, values 0..2, any init."""
    locs = ("x", "y", "z")[: draw(st.integers(1, 3))]
    threads = []
    for _ in range(draw(st.integers(1, 3))):
        length = draw(st.integers(1, 3))
        thread = []
        for _ in range(length):
            xchg = draw(st.booleans())
            value = draw(st.integers(0, 2)) if xchg else 0
            loc, cmp, target = draw(st.sampled_from(locs)), draw(st.integers(0, 2)), draw(st.integers(0, length))
            thread.append(Instr(loc, cmp, target, xchg, value))
        threads.append(tuple(thread))
    init = tuple((loc, draw(st.integers(0, 2))) for loc in locs if draw(st.booleans()))
    return Program("random", tuple(threads), init)


def _random_programs_agree(tmp_path_factory, program, optimize):
    axb = check_program(program, QUERIES, witnesses=False)
    got, states = kernel_verdicts(program, tmp_path_factory.mktemp("glsl"), optimize)
    assert got == [v.terminates for v in axb.verdicts], program.to_axb()
    if not optimize:
        assert states == [v.states for v in axb.verdicts], program.to_axb()


test_random_programs_agree, test_random_programs_agree_in_full = long_twin(
    _random_programs_agree,
    (
        programs(),
        st.booleans(),
    ),
    suite=12,
    full=30,
    **agreement_settings(),
)
