"""Source lines for a module assembled from SPIR-V assembly text.

`spirv-as` writes one binary instruction for each instruction of the text,
in order, and no line information; so the n-th instruction's line is the
line the n-th instruction of the text starts on (blank lines, `;` comments
and the continuation lines of a string that spans lines start none).
Instructions that already have a source line (the text's own OpLine) keep
it. Pure.
"""

from __future__ import annotations

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
    """`module` with the assembly's lines as sources (unchanged when the
    text's instructions and the module's do not pair up one to one)."""
    starts = instruction_starts(text)
    if len(starts) != len(module.instructions):
        return module
    paired = tuple(
        inst if inst.source is not None else replace(inst, source=SourceLine(name, line, column, shown))
        for inst, (line, column, shown) in zip(module.instructions, starts)
    )
    return replace(module, instructions=paired)
