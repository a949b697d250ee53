"""Source lines for a module assembled from SPIR-V assembly text.

`spirv-as` writes one binary instruction for each instruction of the text,
in order, and no line information; so the n-th instruction's line is the
line the n-th instruction of the text starts on (blank lines, `;` comments
and the continuation lines of a string that spans lines start none). Its
variables' ids are renumbered too, so their `%names` in the text are kept as
the module's aliases.
Instructions that already have a source line (the text's own OpLine) keep
it. Pure.
"""

from __future__ import annotations

import re
from dataclasses import replace

from progress.front.spirv.ir import Module, SourceLine


def instruction_starts(text: str) -> list[tuple[int, int, str]]:
    """(line, column, stripped line text) where each instruction of the text starts."""
    starts: list[tuple[int, int, str]] = []
    in_string = False
    for number, line in enumerate(text.split("\n"), start=1):
        started_inside = in_string
        at, seen_code = 0, -1
        while at < len(line):
            char = line[at]
            if in_string:
                if char == "\\":
                    at += 1
                elif char == '"':
                    in_string = False
            elif char == ";":
                break
            elif char == '"':
                in_string = True
            if not started_inside and seen_code < 0 and not char.isspace():
                seen_code = at
            at += 1
        if not started_inside and seen_code >= 0:
            starts.append((number, seen_code + 1, line.strip()))
    return starts


def assembly_lines(module: Module, text: str, name: str) -> Module:
    """`module` with the assembly's lines as sources, and its variables' `%names`
    as aliases (unchanged when the text's instructions and the module's do not
    pair up one to one)."""
    starts = instruction_starts(text)
    if len(starts) != len(module.instructions):
        return module
    paired = tuple(
        inst if inst.source is not None else replace(inst, source=SourceLine(name, line, column, shown))
        for inst, (line, column, shown) in zip(module.instructions, starts)
    )
    aliases = tuple(
        (inst.result, found.group(1))
        for inst, (_, _, shown) in zip(module.instructions, starts)
        if inst.opcode == "OpVariable" and inst.result is not None and (found := _RESULT.match(shown))
    )
    return replace(module, instructions=paired, aliases=aliases)


_RESULT = re.compile(r"(%[A-Za-z0-9_.]+)\s*=")
"""An instruction's result as the assembly names it."""
