"""Where a kernel's macros are written, for the guard (`kept.py`).

Slang gives the code a macro expands to the lines of the macro's `#define`
(glslang gives it the line that uses the macro): AnKi's `LOCK(spinlock)`,
used at line 78, has its `InterlockedCompareExchange` at line 10 in Slang's
module. `definitions(sources)` reads every `#define NAME` of the files (its
continuation lines included); `spans(table, text)` gives the (file, first line,
last line) of the definitions of the macros `text` uses, and of the macros
those use, transitively. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Macro:
    """One `#define`: its file, its lines (1-based, continuations included) and its body."""

    file: str
    first: int
    last: int
    body: str


def definitions(sources: Mapping[str, str]) -> dict[str, list[Macro]]:
    """Macro name -> its definitions in `sources` (file name -> text)."""
    table: dict[str, list[Macro]] = {}
    for file, text in sources.items():
        lines = text.split("\n")
        at = 0
        while at < len(lines):
            found = _DEFINE.match(lines[at])
            end = at
            while found and lines[end].rstrip().endswith("\\") and end + 1 < len(lines):
                end += 1
            if found:
                body = "\n".join(lines[at : end + 1])[found.end() :]
                table.setdefault(found.group(1), []).append(Macro(file, at + 1, end + 1, body))
            at = end + 1
    return table


def spans(table: Mapping[str, list[Macro]], text: str) -> list[tuple[str, int, int]]:
    """The (file, first, last) lines of the definitions of the macros `text` uses, transitively."""
    seen: set[str] = set()
    pending = [text]
    found: list[tuple[str, int, int]] = []
    while pending:
        for name in sorted(set(_IDENTIFIER.findall(pending.pop())) & table.keys() - seen):
            seen.add(name)
            for macro in table[name]:
                found.append((macro.file, macro.first, macro.last))
                pending.append(macro.body)
    return found
