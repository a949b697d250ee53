"""Compile small GLSL kernels for the kernel tests, and replay kernel lassos.

`compile_glsl` goes through the SPIR-V front end's `load_kernel`
(glslang, the decoder, source lines, the subset check). `replay` checks that a lasso is made of real transitions of the
system: an oracle independent of how the lasso was found.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from progress.core.analyze import check_system, queries_for
from progress.core.registry import all_models
from progress.core.witness import Lasso
from progress.front.spirv.ir import Module
from progress.front.spirv.kernel import KernelSystem, Launch
from progress.front.spirv.load import load_kernel

KERNELS = Path(__file__).parent / "data" / "kernel_check"

# Each workgroup writes its own cell, then (after a flag both raise) the other's:
# a probe that stops before the flag guesses every cell owned by its first writer.
LATE_SHARING = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint cell[2]; uint flag; };
void main() {
    uint me = gl_WorkGroupID.x;
    for (uint i = 0u; i < 4u; i++) { cell[me] = cell[me] + 1u; }
    atomicAdd(flag, 1u);
    while (atomicAdd(flag, 0u) < 2u) { }
    cell[1u - me] = cell[1u - me] + 5u;
}
"""


def compile_glsl(source: Path | str, out: Path, optimize: bool = False) -> Module:
    """The module of a GLSL file (or of GLSL text, written to `out`.comp),
    through the SPIR-V front end: compiled, decoded, with its source lines."""
    if isinstance(source, str):
        path = out.with_suffix(".comp")
        path.write_text(source)
        source = path
    return load_kernel(source.read_bytes(), source.name, "glsl", optimized=optimize).module


def system(module: Module, workgroups: int, buffers: dict[str, int] | None = None, init=()) -> KernelSystem:
    digest = hashlib.sha256(repr(module.instructions).encode()).hexdigest()[:16]
    return KernelSystem(module, Launch(workgroups, buffers or {}, tuple(init)), "kernel", "kernel.comp", digest)


def verdicts(kernel: KernelSystem, **options) -> dict[str, bool | None]:
    """`unfair`, `fair/weak`, ... -> terminates, all 11."""
    report = check_system(kernel, queries_for(all_models()), **options)
    return {v.model if v.fairness == "none" else f"{v.model}/{v.fairness}": v.terminates for v in report.verdicts}


def parse_expect(line: str) -> dict[str, bool]:
    """`unfair F | fair/weak P | ...` as verdicts."""
    cells = [cell.split() for cell in line.split("|")]
    return {name: flag == "P" for name, flag in cells}


def replay(kernel: KernelSystem, lasso: Lasso) -> None:
    """Every step of `lasso` is a transition of `kernel` by an enabled unit with
    F among the enabled units; the loop closes, or the end is a deadlock."""
    state = kernel.initial
    loop_state = state
    for index, step in enumerate(lasso.steps):
        if index == lasso.loop_start:
            loop_state = state
        assert step.memory == kernel.cells(state), f"step {index}: memory differs"
        assert step.pcs == kernel.positions(state), f"step {index}: positions differ"
        moves = dict(kernel.successors(state))
        assert step.thread in moves, f"step {index}: unit {step.thread} is not enabled"
        assert set(step.fair) <= set(moves), f"step {index}: F holds a unit that is not enabled"
        assert step.note == kernel.note(state, step.thread)
        state = moves[step.thread]
    if lasso.kind == "deadlock":
        assert not kernel.successors(state) and not kernel.finished(state)
        assert lasso.end == kernel.cells(state)
    else:
        assert state == loop_state, "the loop does not come back to the state it starts in"
