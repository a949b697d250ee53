"""Launches at the limits (issue 29): up to 1024 invocations per workgroup
and 64 workgroups are checked, bounded by states and memory, not by a count
of invocations; past the limits, a clear refusal."""

from __future__ import annotations

import pytest
from kernel_helpers import compile_glsl, system

from progress.core.analyze import check_system, queries_for
from progress.core.registry import all_models, find_model
from progress.errors import InputError
from progress.report.render import kernel_lasso_text

LAST_SPINS = """#version 450
layout(local_size_x = 1024) in;
layout(std430, binding = 0) buffer Data { uint count; uint flag; };
void main() {
    if (gl_LocalInvocationIndex == 1023u && gl_WorkGroupID.x == 63u) {
        atomicAdd(count, 1u);
        while (atomicAdd(flag, 0u) == 0u) { }
    }
}
"""


def test_64_workgroups_of_1024_invocations_are_checked(tmp_path):
    """65,536 invocations: only the last one acts; it spins on a flag no one sets, so
    every verdict fails, and the lasso names that invocation by its workgroup and index."""
    kernel = system(compile_glsl(LAST_SPINS, tmp_path / "last"), 64)
    assert len(kernel.groups) == 64 * 1024 and kernel.groups[-1] == 63
    report = check_system(kernel, queries_for([find_model("unfair"), find_model("OBE")]))
    assert [v.terminates for v in report.verdicts] == [False, False, False]
    assert report.verdicts[0].states == 2  # the start, then the spin's own state
    text = kernel_lasso_text(report.verdicts[0].witness)
    assert "workgroup 63 invocation 1023" in text and "last.comp:7" in text


def test_one_workgroup_of_1024_that_returns_at_once(tmp_path):
    source = LAST_SPINS.replace("63u", "0u").replace("while (atomicAdd(flag, 0u) == 0u) { }", "")
    report = check_system(system(compile_glsl(source, tmp_path / "one"), 1), queries_for(all_models()))
    assert {v.terminates for v in report.verdicts} == {True}
    assert max(v.states for v in report.verdicts) == 2


@pytest.mark.parametrize(
    "size, workgroups, message",
    [
        ("local_size_x = 1024", 65, "--workgroups 65: at most 64 workgroups can be checked"),
        ("local_size_x = 33, local_size_y = 32", 1, "the workgroup size is 1056 invocations; at most 1024 per"),
    ],
)
def test_past_the_limits_a_clear_refusal(tmp_path, size, workgroups, message):
    source = LAST_SPINS.replace("local_size_x = 1024", size)
    with pytest.raises(InputError, match=message):
        system(compile_glsl(source, tmp_path / "past"), workgroups)
