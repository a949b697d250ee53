"""The corpus's kernels written as public projects write them (includes of a
common header, defines with defaults, a specialization-constant workgroup size,
`.comp.glsl` names, HLSL through Slang), checked unedited: each has the verdicts
of the plain kernel it restates (the oracle: that kernel, reasoned in its own
file) and the final memory its source computes, worked out here by hand."""

from __future__ import annotations

from conftest import REPO

from progress.cli.kernel import check_kernel, kernel_system, terminal_memories
from progress.core.analyze import queries_for
from progress.core.registry import all_models
from progress.front.header import LaunchSettings

KERNELS = REPO / "litmus" / "kernels"


def verdicts(name: str, given: LaunchSettings | None = None) -> dict[tuple[str, str], bool | None]:
    result = check_kernel(
        KERNELS / name,
        given or LaunchSettings(),
        queries_for(all_models()),
        max_states=None,
        time_limit=None,
        witnesses=False,
    )
    return {(v.model, v.fairness): v.terminates for v in result.checked[0].report.verdicts}


def memories(name: str, given: LaunchSettings | None = None) -> list[dict[str, int]]:
    system = kernel_system(KERNELS / name, given or LaunchSettings())
    return [dict(m) for m in terminal_memories(system, None, None)]


def test_the_included_lookback_is_lookback_dynamic():
    """include_lookback.comp.glsl: a quoted include relative to the file, an angled one
    through the header's -I, -D ITEMS_PER_INVOCATION=2, local_size_x_id at --local-size 2."""
    assert verdicts("include_lookback.comp.glsl") == verdicts("lookback_dynamic.comp")


def test_the_included_lookback_computes_the_scan():
    """Lane 0 sums ITEMS x 1, lane 1 ITEMS x 2: each tile's sum is 3 x ITEMS, and
    tile t's inclusive prefix (t + 1) x 3 x ITEMS, whoever took which tile."""
    for items, given in ((2, LaunchSettings()), (5, LaunchSettings(defines=(("ITEMS_PER_INVOCATION", "5"),)))):
        (final,) = memories("include_lookback.comp.glsl", given)
        assert [final[f"prefixes[{t}]"] for t in range(3)] == [(t + 1) * 3 * items for t in range(3)]
        assert [final[f"flags[{t}]"] for t in range(3)] == [2, 2, 2]
        assert final["next_tile"] == 3


def test_the_included_ticket_lock_is_hlsl_ticket_lock():
    """hlsl_include_ticket_lock.hlsl (Slang, #include <...> through -I, #pragma once,
    -D INCREMENT=2) at hlsl_ticket_lock.hlsl's launch has its verdicts."""
    launch = LaunchSettings(workgroups=3, buffers={"tickets": 2, "counter": 2})
    assert verdicts("hlsl_include_ticket_lock.hlsl", launch) == verdicts("hlsl_ticket_lock.hlsl")


def test_the_included_ticket_lock_adds_the_defined_increment():
    (final,) = memories("hlsl_include_ticket_lock.hlsl")  # the header: 2 workgroups, -D INCREMENT=2
    assert final == {"tickets[0]": 2, "tickets[1]": 2, "counter[0]": 2 * 2}
    (final,) = memories("hlsl_include_ticket_lock.hlsl", LaunchSettings(defines=(("INCREMENT", "5"),)))
    assert final["counter[0]"] == 2 * 5
