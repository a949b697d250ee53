"""Dat3M's SPIR-V termination tests, as published (tests/data/dat3m/), with their
headers (`; @Input:`, `; @Config:`) read as launch settings, checked against the
results Dat3M's own test expects wherever Dat3M's progress hierarchy is one of our
models (tests/dat3m_rows.py); and Dat3M's header on a kernel of our own."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from dat3m_rows import DAT3M, INVALID, OURS, ROWS, TOOLCHAIN_LIMITS

from progress.cli.kernel import KernelResult, check_kernel, given_settings, kernel_system, terminal_memories
from progress.core.analyze import queries_for
from progress.core.registry import all_models
from progress.errors import InputError
from progress.front.dat3m_header import assembly_settings, dat3m_settings
from progress.front.header import LaunchSettings

LAUNCH = Path(__file__).parent / "data" / "launch"


@cache
def checked(name: str) -> KernelResult | InputError:
    try:
        return check_kernel(
            DAT3M / name, LaunchSettings(), queries_for(all_models()), max_states=None, time_limit=None, witnesses=False
        )
    except InputError as error:
        return error


COMPARABLE = [row for row in ROWS if row[1] in OURS]


@pytest.mark.parametrize("name, hierarchy, expected", COMPARABLE, ids=lambda x: str(x))
def test_our_verdict_is_dat3ms_where_the_hierarchy_is_one_of_our_models(name, hierarchy, expected):
    result = checked(name)
    if isinstance(result, InputError):
        message = result.render()
        if name in INVALID:
            assert "requires one of these capabilities: VulkanMemoryModel" in message
            return
        limit = next((limit for limit in TOOLCHAIN_LIMITS if limit in message), None)
        if limit is not None:
            pytest.xfail(f"the SPIR-V toolchain cannot assemble it: {limit}")
        raise result
    verdicts = {(v.model, v.fairness): v.terminates for v in result.checked[0].report.verdicts}
    model = OURS[hierarchy]
    assert verdicts[(model, "weak")] == verdicts[(model, "strong")] == (expected == "PASS")


def test_the_rows_and_the_files():
    assert len(ROWS) == 23 and len(COMPARABLE) == 12
    assert sorted({row[0] for row in ROWS}) == sorted(p.name for p in DAT3M.iterdir() if p.suffix != ".md")


@pytest.mark.parametrize("name", sorted({row[0] for row in ROWS}))
def test_every_header_reads_as_launch_settings(name):
    """@Config T, S, W: W workgroups of T x S invocations; @Input: the variables' contents."""
    text = (DAT3M / name).read_text()
    settings = assembly_settings(text, name)
    config = next(line for line in text.splitlines() if line.startswith("; @Config:"))
    per_subgroup, subgroups, workgroups = (int(x) for x in config.split(":")[1].split(","))
    assert settings.workgroups == workgroups and settings.subgroup_size == per_subgroup
    assert settings.local_size == (per_subgroup * subgroups, 1, 1)
    inputs = [line.split(":", 1)[1].split("=")[0].strip() for line in text.splitlines() if line.startswith("; @Input:")]
    assert [item.name for item in settings.inputs] == inputs


def test_dat3m_header_on_a_kernel_of_ours():
    """A runtime array's length from its @Input, a Workgroup array's contents in every
    workgroup, the grid from @Config (1, 2, 2): sum ends 5 + 6 + 7 + 2 * 9."""
    system = kernel_system(LAUNCH / "dat3m_style.spvasm", LaunchSettings())
    assert (system.per_group, len(system.groups)) == (2, 4)
    assert terminal_memories(system, None, None) == {
        (
            ("%sum.m0[0]", 36),
            ("%data.m0[0]", 5),
            ("%data.m0[1]", 6),
            ("%data.m0[2]", 7),
            ("wg0:%seen[0]", 9),
            ("wg0:%seen[1]", 1),
            ("wg1:%seen[0]", 9),
            ("wg1:%seen[1]", 1),
        )
    }
    # the command line still wins: a longer data buffer, another initial value
    given = given_settings(None, ["%data=4"], ["%data.m0[3]=100"], None, None)
    (final,) = terminal_memories(kernel_system(LAUNCH / "dat3m_style.spvasm", given), None, None)
    assert dict(final)["%sum.m0[0]"] == 36 + 100


def test_the_assembly_names_survive_spirv_opt():
    """The optimized module no longer pairs with the assembly's lines, but spirv-opt keeps
    ids, so @Input's `%names` still find their variables."""
    given = given_settings(None, [], [], None, True)
    result = check_kernel(
        LAUNCH / "dat3m_style.spvasm",
        given,
        queries_for(all_models()),
        max_states=None,
        time_limit=None,
        witnesses=False,
    )
    assert result.failed is None and len(result.checked) == 2
    assert result.differences[-1] == (
        "dat3m_style: --optimize: the same verdicts and the same terminal memory states after spirv-opt -O"
    )


def test_subgroups_are_said_to_be_fair():
    result = check_kernel(
        LAUNCH / "dat3m_style.spvasm",
        LaunchSettings(),
        queries_for(all_models()),
        max_states=None,
        time_limit=None,
        witnesses=False,
    )
    assert result.differences[0].startswith("dat3m_style: 2 subgroups of 1 invocation per workgroup: subgroups")


@pytest.mark.parametrize(
    "header, message, column",
    [
        ("; @Config: 1, 1\n", "@Config wants T, S, W", 12),
        ("; @Config: 1, 1, 0\n", "@Config: W = 0 is outside 1..64", 18),
        ("; @Config: 1, 1, 1\n; @Config: 1, 1, 1\n", "@Config is given twice", 1),
        ("; @Config: 64, 64, 1\n", "T x S = 4096 invocations per workgroup is more than 1024", 12),
        ("; @Input: %a = {1, 2\n", "@Input: expected an integer, '{', '}' or ','", 21),
        ("; @Input: %a = {1 2}\n", "expected ',' or '}', not '2'", 19),
        ("; @Input: %a = 4294967296\n", "4294967296 is not a 32-bit integer", 16),
        ("; @Input: a = 1\n", "@Input wants %NAME = VALUE", 11),
        ("; @Input: %a = 1 %b = 2\n", "@Input items are separated by commas", 17),
        ("; @Input: %a = " + "{" * 40 + "1" + "}" * 40 + "\n", "values nested deeper than 16", 32),
    ],
)
def test_bad_dat3m_headers_are_positioned(header, message, column):
    with pytest.raises(InputError) as caught:
        dat3m_settings(header + "OpCapability Shader\n", "t.spvasm")
    error = caught.value
    assert message in error.message and error.position is not None and error.position.column == column


def test_both_spellings_of_one_setting_are_refused():
    with pytest.raises(InputError, match="gives --workgroups and @Config"):
        assembly_settings("; progress: --workgroups 2\n; @Config: 1, 1, 2\nOpCapability Shader\n", "t.spvasm")


@pytest.mark.parametrize(
    "inputs, message",
    [
        ("%ghost = {1}", "@Input %ghost: the kernel has no variable %ghost"),
        ("%data = {{}}", "expected a value, not '}'"),
        ("%data = 3", "3 where 1 value(s) are"),
        ("%seen = {1, 2, 3}", "where 2 value(s) are"),
        ("%sum = {{{1}}}", "{1} where a scalar is"),
    ],
)
def test_bad_inputs_name_the_variable(tmp_path, inputs, message):
    lines = (LAUNCH / "dat3m_style.spvasm").read_text().splitlines(keepends=True)
    text = f"; @Input: {inputs}\n" + "".join(lines[2:])  # in place of both @Input lines
    (tmp_path / "k.spvasm").write_text(text)
    with pytest.raises(InputError, match=re.escape(message)):
        kernel_system(tmp_path / "k.spvasm", LaunchSettings())
