"""Workgroup symmetry (docs/semantics.md section 14, `progress.core.group_symmetry`,
`kernel_reduce.decide_groups`): on random GLSL kernels that rank workgroups by
tickets, locks and flags, never by their ids, and on litmus/kernels/, every
verdict of `check_system(reduce=True)` compiled (the quotient by workgroup
permutations for unfair, fair and OBE, with section 13's quiet steps or
section 12's symmetry within workgroups) is the unreduced Python checker's,
and every lasso replays on the unreduced system with F and the loop's
condition recomputed there (test_kernel_reduce.validate). A symmetry applied
where it is wrong (a kernel that reads its workgroup id, HSA) is caught."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import agreement_settings, long_twin
from hypothesis import assume
from hypothesis import strategies as st
from kernel_helpers import compile_glsl, system
from test_kernel_reduce import QUERIES, validate

from progress.core import group_symmetry, kernel_reduce
from progress.core.analyze import check_system
from progress.models import hsa

KERNELS = Path(__file__).resolve().parents[1] / "litmus" / "kernels"
BOUND = 200_000


def _verdicts(report) -> list[bool | None]:
    return [v.terminates for v in report.verdicts]


def _grouped(kernel_of, monkeypatch=None) -> tuple[object, bool]:
    """The reduced compiled report and whether section 14's quotient decided some query."""
    used = []
    original = kernel_reduce.decide_groups

    def spy(*args, **kwargs):
        found = original(*args, **kwargs)
        used.append(found is not None)
        return found

    kernel_reduce.decide_groups = spy  # type: ignore[assignment]
    try:
        kernel = kernel_of()
        report = check_system(kernel, QUERIES, max_states=BOUND, reduce=True, engine="compiled")
    finally:
        kernel_reduce.decide_groups = original  # type: ignore[assignment]
    return (kernel, report), any(used)


def _agree(kernel_of) -> bool | None:
    """Reduced (compiled, section 14 where it applies) = unreduced; every lasso
    validates. Whether 14 applied; None when the unreduced check hits BOUND."""
    plain = check_system(kernel_of(), QUERIES, max_states=BOUND, engine="python")
    if any(v.terminates is None for v in plain.verdicts):
        return None
    (kernel, reduced), used = _grouped(kernel_of)
    assert _verdicts(reduced) == _verdicts(plain)  # type: ignore[attr-defined]
    for verdict in reduced.verdicts:  # type: ignore[attr-defined]
        if verdict.witness is not None:
            validate(kernel, verdict.witness, verdict.model, verdict.fairness)
    return used


# --- random kernels that never read their workgroup id --------------------------

ACTIONS = (
    "uint t = atomicAdd(next, 1u); while (atomicAdd(serving, 0u) != t) { } count = count + 1u; atomicAdd(serving, 1u);",
    "while (atomicCompSwap(lock, 0u, 1u) != 0u) { } count = count + 1u; atomicExchange(lock, 0u);",
    "if (atomicExchange(lock, 1u) == 0u) { count = count + 1u; atomicExchange(lock, 0u); }",
    "atomicExchange(flag, 1u);",
    "while (atomicAdd(flag, 0u) == 0u) { }",
    "atomicAdd(count, 1u);",
    "while (atomicAdd(count, 0u) < 2u) { }",
    "barrier();",
    "slot[gl_LocalInvocationID.x] = atomicAdd(count, 0u);",
    "if (slot[0] == 0u) { return; }",
    "uint k = atomicAdd(next, 1u) & 3u; tiles[k] = 1u; while (atomicAdd(tiles[(k + 1u) & 3u], 0u) == 0u) { }",
)


@st.composite
def kernels(draw) -> tuple[str, int]:
    local = draw(st.integers(1, 2))
    groups = draw(st.integers(2, 3 if local == 1 else 2))
    bodies = []
    for role in ("leader", "others", "after"):
        picks = draw(st.lists(st.sampled_from(ACTIONS), min_size=0 if role == "after" else 1, max_size=2))
        bodies.append("\n    ".join("{ " + p + " }" for p in picks))
    source = f"""#version 450
layout(local_size_x = {local}) in;
layout(std430, binding = 0) buffer Data {{ uint next; uint serving; uint lock; uint flag; uint count; uint tiles[4]; }};
shared uint slot[2];
void main() {{
    if (gl_LocalInvocationID.x == 0u) {{
    {bodies[0]}
    }} else {{
    {bodies[1]}
    }}
    {bodies[2]}
}}
"""
    return source, groups


def _random(tmp_path_factory, case):
    source, groups = case
    module = compile_glsl(source, tmp_path_factory.mktemp("groups") / "k")
    used = _agree(lambda: system(module, groups))
    assume(used is not None)  # the unreduced checker stopped at BOUND: nothing to compare with
    assert used, "section 14 applies to a kernel that never reads its workgroup id"


test_random_kernels_agree, test_random_kernels_agree_in_full = long_twin(
    _random, (kernels(),), suite=8, full=60, **agreement_settings()
)


# --- the litmus kernels ------------------------------------------------------------

SMALL = ("ticket_lock.comp", "tas_spinlock.comp", "lookback_fallback.comp", "mutual_wait.comp")


def _litmus(name: str) -> bool:
    from progress.cli.kernel import given_settings, kernel_system

    path = KERNELS / name
    return bool(_agree(lambda: kernel_system(path, given_settings(None, (), (), None, False))))


@pytest.mark.parametrize("name", SMALL)
def test_litmus_kernels_agree(name):
    _litmus(name)


@pytest.mark.long
@pytest.mark.parametrize("name", sorted(p.name for p in KERNELS.iterdir() if p.name not in SMALL))
def test_every_litmus_kernel_agrees(name):
    _litmus(name)


# --- wrong symmetries are caught ---------------------------------------------------

READS_ID = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint flag; uint count; };
void main() {
    atomicAdd(count, 1u);
    if (gl_WorkGroupID.x == 0u) {
        while (atomicAdd(flag, 0u) == 0u) { }
    } else {
        atomicExchange(flag, 1u);
    }
}
"""


def _wrong(kernel_of) -> bool:
    """Whether the reduced check disagrees with the unreduced one or a lasso fails validation."""
    plain = check_system(kernel_of(), QUERIES, max_states=BOUND, engine="python")
    try:
        kernel = kernel_of()
        reduced = check_system(kernel, QUERIES, max_states=BOUND, reduce=True, engine="compiled")
        if _verdicts(reduced) != _verdicts(plain):
            return True
        for verdict in reduced.verdicts:
            if verdict.witness is not None:
                validate(kernel, verdict.witness, verdict.model, verdict.fairness)
    except AssertionError:
        return True
    return False


def test_a_kernel_that_reads_its_workgroup_id_is_not_permuted(tmp_path, monkeypatch):
    """Section 14's condition rejects it (and the check agrees); forcing the
    symmetry on it anyway gives a wrong verdict or an invalid lasso."""
    module = compile_glsl(READS_ID, tmp_path / "k")
    assert system(module, 2).workgroup_cells() is None
    assert not _agree(lambda: system(module, 2))
    from progress.front.spirv.kernel import KernelSystem

    monkeypatch.setattr(KernelSystem, "workgroup_cells", lambda self: (self.layout.groups_at, self.layout.group_size))
    assert _wrong(lambda: system(module, 2))


TICKETS = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Lock { uint next; uint serving; uint count; };
void main() {
    uint ticket = atomicAdd(next, 1u);
    while (atomicAdd(serving, 0u) != ticket) { }
    count = count + 1u;
    atomicAdd(serving, 1u);
}
"""


def test_hsa_is_not_quotiented(tmp_path, monkeypatch):
    """HSA's F names the lowest workgroup: not kept by the quotient (section
    14.2). Treating it as symmetric gives a wrong verdict on a ticket lock."""
    module = compile_glsl(TICKETS, tmp_path / "k")
    assert _agree(lambda: system(module, 3))
    monkeypatch.setattr(group_symmetry, "SYMMETRIC", group_symmetry.SYMMETRIC | {hsa.MODEL})
    assert _wrong(lambda: system(module, 3))


LIVE_POINTER = """#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Data { uint count; };
shared uint slot[2];
void main() {
    slot[gl_LocalInvocationID.x] = atomicAdd(count, 1u);
}
"""


def test_pointers_into_workgroup_memory_do_not_name_the_workgroup(tmp_path):
    """A pointer into Workgroup memory kept across a visible action is relative
    to the workgroup's copy: each workgroup starts with the same local states,
    and the same step writes each workgroup's own cell."""
    kernel = system(compile_glsl(LIVE_POINTER, tmp_path / "k"), 2)
    n = kernel.n_cells
    assert kernel.initial[n : n + 2] == kernel.initial[n + 2 : n + 4]
    cells = {unit: kernel.access_cells(unit, kernel.initial[n + unit])[0] for unit in range(4)}
    assert cells[0] == cells[2]  # the count
    after = {unit: kernel.step_result(unit, kernel.initial[n + unit], (0,))[1] for unit in range(4)}
    assert after[1] == after[3]  # the pointer to slot[1] is live: the same local state in both workgroups
    names = {at: name for name, at in kernel.layout.names}
    assert [names[at] for at in kernel.access_cells(1, after[1])[0]] == ["wg0:slot[1]"]
    assert [names[at] for at in kernel.access_cells(3, after[3])[0]] == ["wg1:slot[1]"]
    assert _agree(lambda: system(compile_glsl(LIVE_POINTER, tmp_path / "k2"), 2))
