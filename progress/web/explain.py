"""A test in words, for its page: what each instruction does, which models
guarantee its termination, and what a GPU failing it would show. Pure:
a Program and its verdicts in, plain sentences out.

An instruction `AXB(loc, cmp, target, xchg, val)` reads `loc` (writing `val`
when `xchg`), then jumps to `target` if the old value was `cmp`, else goes
on; the common shapes get their common names (docs/axb.md's idioms).
"""

from __future__ import annotations

from collections.abc import Sequence

from progress.core.analyze import TestReport
from progress.core.program import Instr, Program
from progress.models.base import ProgressModel
from progress.web.points import in_order, point_label


def instruction_words(instr: Instr, index: int, length: int) -> str:
    """What instruction `index` of a thread of `length` instructions does."""
    loc, cmp, val = instr.loc, instr.cmp, instr.val
    where = "the end" if instr.target == length else f"instruction {instr.target}"
    if instr.target == index + 1:
        return f"stores {val} to {loc}" if instr.xchg else f"reads {loc} and goes on"
    if instr.target == index:
        if instr.xchg:
            return f"swaps {val} into {loc}, again and again while the old value was {cmp} (a spin lock's acquire)"
        return f"waits while {loc} is {cmp} (a spin-wait)"
    if instr.target < index:
        jump = f"goes back to {where}"
    else:
        jump = f"jumps to {where}"
    action = f"swaps {val} into {loc}" if instr.xchg else f"reads {loc}"
    return f"{action}; if the old value was {cmp} it {jump}, else it goes on"


def program_words(program: Program) -> list[str]:
    """One sentence per thread: its instructions in order."""
    sentences = []
    start = ", ".join(f"{loc} = {value}" for loc, value in program.init)
    sentences.append(
        f"{len(program.threads)} threads share {', '.join(program.locations) or 'no location'}, "
        + (f"which start as {start} (the others at 0)." if start else "all starting at 0.")
    )
    for number, thread in enumerate(program.threads):
        steps = [f"({i}) {instruction_words(instr, i, len(thread))}" for i, instr in enumerate(thread)]
        sentences.append(f"Thread {number}: " + "; ".join(steps) + "; then it ends.")
    return sentences


def verdict_words(report: TestReport, models: Sequence[ProgressModel]) -> tuple[list[str], list[str]]:
    """The points (`HSA/weak`) under which the test is guaranteed to terminate,
    and those under which it may not, in the pages' order."""
    ordered = in_order(report.verdicts, lambda v: (v.model, v.fairness), models)
    passes = [point_label(v.model, v.fairness) for v in ordered if v.terminates is True]
    fails = [point_label(v.model, v.fairness) for v in ordered if v.terminates is False]
    return passes, fails
