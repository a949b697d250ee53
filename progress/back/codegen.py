"""Program -> the body of a kernel, in the C dialect that CUDA and C share.

A test thread becomes a run of labelled statements, one per instruction, and
control flow is `goto`, so the generated code follows the AXB semantics
(docs/semantics.md section 1) one instruction at a time:

    T<t>_<i>:  old = mem[loc] atomically (exchanging `val` in if xchg);
               if old == cmp goto T<t>_<target>;   else fall through

A jump to an earlier or the same instruction is the only way a thread can
loop, so every such jump first runs `PROGRESS_SPIN()`, which checks the
deadline and leaves the thread (recording a time-out) once it has passed.

The body uses only these names, which each backend defines:
`AXB_LOAD(p)` (a value-preserving atomic read-modify-write), `AXB_XCHG(p, v)`
(atomic exchange), `PROGRESS_SPIN()`, the per-instance memory `mem` and the
test thread id `thread`. The CUDA wrapper is in `cuda_source`, the C one in
`c_source`.
"""

from __future__ import annotations

from progress.core.program import Instr, Program


def location_index(program: Program) -> dict[str, int]:
    """Each location's cell inside an instance's region (order of first use)."""
    return {loc: index for index, loc in enumerate(program.locations)}


def initial_cells(program: Program) -> tuple[int, ...]:
    """An instance's memory before the test starts, cell by cell."""
    memory = program.initial_memory
    return tuple(memory[loc] for loc in program.locations)


def body(program: Program) -> str:
    """Every thread of `program` as goto-structured statements (4-space indent)."""
    cells = location_index(program)
    lines = ["switch (thread) {"]
    lines += [f"case {t}: goto T{t}_0;" for t in range(len(program.threads))]
    lines += ["default: return;", "}"]
    for t, thread in enumerate(program.threads):
        used = {0} | {ins.target for i, ins in enumerate(thread) if ins.target != i + 1}
        for i, ins in enumerate(thread):
            comment = f"/* {ins.text(len(thread))} */"
            lines.append(f"T{t}_{i}:  {comment}" if i in used else comment)
            lines.append("  " + _statement(t, i, ins, cells[ins.loc]))
        lines.append(f"T{t}_{len(thread)}:" if len(thread) in used else f"/* thread {t} ends */")
        lines.append("  return;")
    return "\n".join("    " + line if line else line for line in lines)


def _statement(t: int, i: int, ins: Instr, cell: int) -> str:
    access = f"AXB_XCHG(&mem[{cell}], {ins.val})" if ins.xchg else f"AXB_LOAD(&mem[{cell}])"
    if ins.target == i + 1:
        return f"(void){access};"
    jump = f"goto T{t}_{ins.target};"
    if ins.target <= i:
        jump = "{ PROGRESS_SPIN(); " + jump + " }"
    return f"if ({access} == {ins.cmp}) {jump}"
