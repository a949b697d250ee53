"""The OOPSLA'21 artifact's text form of a test, read and written.

    THREAD0
    atomic_exch_branch(0,0,1,END)

    atomic_chk_branch(1,0,0)


    THREAD1
    atomic_store(0,1)

Conversion (data/oopsla21/README.md): `atomic_exch_branch(l, c, x, t)` is
`AXB(ml, c, t, true, x)`; `atomic_chk_branch(l, c, t)` is `AXB(ml, c, t,
false, 0)`; `atomic_store(l, v)` at index i is `AXB(ml, 0, i+1, true, v)`;
target `END` is the thread's end. Pure: text in, Program or text out.
"""

from __future__ import annotations

import re

from progress.core.program import MAX_VALUE, Instr, Program
from progress.errors import InputError, SourcePosition
from progress.source import bounded_int, shown_number

_THREAD = re.compile(r"^\s*THREAD\s*(\d+)\s*$", re.IGNORECASE)
_INSTR = re.compile(r"^\s*(atomic_exch_branch|atomic_chk_branch|atomic_store)\s*\((.*)\)\s*;?\s*$")
_ARITY = {"atomic_exch_branch": 4, "atomic_chk_branch": 3, "atomic_store": 2}
END = "END"


def parse_artifact(text: str, path: str, name: str) -> Program:
    """The Program the artifact text describes; InputError (file:line:col) otherwise."""
    threads: list[list[tuple[str, list[str], SourcePosition]]] = []
    headers: list[SourcePosition] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "//")):
            continue
        position = SourcePosition(path, number, len(line) - len(line.lstrip()) + 1, line)
        header = _THREAD.match(line)
        if header:
            if bounded_int(header.group(1)) != len(threads):
                raise InputError(
                    f"expected THREAD{len(threads)}, found THREAD{shown_number(header.group(1))}", position
                )
            threads.append([])
            headers.append(position)
            continue
        instr = _INSTR.match(line)
        if instr is None:
            raise InputError(
                "expected THREAD<n>, atomic_exch_branch(l, c, x, t), atomic_chk_branch(l, c, t) or atomic_store(l, v)",
                position,
            )
        if not threads:
            raise InputError("instruction before the first THREAD line", position)
        args = [a.strip() for a in instr.group(2).split(",")]
        if len(args) != _ARITY[instr.group(1)]:
            raise InputError(f"{instr.group(1)} takes {_ARITY[instr.group(1)]} arguments, not {len(args)}", position)
        threads[-1].append((instr.group(1), args, position))
    if not threads:
        raise InputError("no THREAD in the file", SourcePosition(path, 1, 1, text.splitlines()[0] if text else ""))
    return Program(name, tuple(_thread(t, body, header) for t, (body, header) in enumerate(zip(threads, headers))))


def _thread(tid: int, body: list[tuple[str, list[str], SourcePosition]], header: SourcePosition) -> tuple[Instr, ...]:
    if not body:
        raise InputError(f"THREAD{tid} has no instructions", header)
    return tuple(_instr(op, args, index, len(body), position) for index, (op, args, position) in enumerate(body))


def _instr(op: str, args: list[str], index: int, length: int, position: SourcePosition) -> Instr:
    def number(text: str, what: str, end_ok: bool = False) -> int:
        if end_ok and text.upper() == END:
            return length
        if not text.isdigit():
            raise InputError(
                f"{what} must be a non-negative integer{' or END' if end_ok else ''}, not {text!r}", position
            )
        value = bounded_int(text)
        limit = length if end_ok else MAX_VALUE
        if value > limit:
            raise InputError(f"{what} {shown_number(text)} is out of range (at most {limit})", position)
        return value

    loc = f"m{number(args[0], 'location')}"
    if op == "atomic_store":
        return Instr(loc, 0, index + 1, True, number(args[1], "value"))
    if op == "atomic_chk_branch":
        return Instr(loc, number(args[1], "compare value"), number(args[2], "target", True), False, 0)
    return Instr(
        loc, number(args[1], "compare value"), number(args[3], "target", True), True, number(args[2], "exchange value")
    )


def to_artifact(program: Program) -> str:
    """The artifact text of `program`: locations `m<k>` keep their number k,
    other names are numbered in order of first use. ValueError if the program
    sets an initial value (the artifact has none)."""
    if any(value != 0 for _, value in program.init):
        raise ValueError(f"{program.name}: the artifact's text form has no initial values")
    index = location_numbers(program.locations)
    blocks = []
    for tid, thread in enumerate(program.threads):
        lines = [_instr_text(ins, i, len(thread), index[ins.loc]) for i, ins in enumerate(thread)]
        blocks.append(f"THREAD{tid}\n" + "\n\n".join(lines) + "\n\n\n")
    return "".join(blocks)


def location_numbers(locations: tuple[str, ...]) -> dict[str, int]:
    if all(re.fullmatch(r"m\d{1,9}", loc) for loc in locations):
        return {loc: int(loc[1:]) for loc in locations}
    return {loc: i for i, loc in enumerate(locations)}


def _instr_text(ins: Instr, index: int, length: int, loc: int) -> str:
    target = END if ins.target == length else str(ins.target)
    if ins.xchg and ins.is_store(index) and ins.cmp == 0:
        return f"atomic_store({loc},{ins.val})"  # the branch goes to index + 1 either way
    if ins.xchg:
        return f"atomic_exch_branch({loc},{ins.cmp},{ins.val},{target})"
    return f"atomic_chk_branch({loc},{ins.cmp},{target})"  # val is unused without exchange
