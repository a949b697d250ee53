"""A fast path for reading many tests: `quick_program(text, path)` returns
the Program that `parse_program(text, path)` returns, for files in the plain
one-item-per-line layout (what `synth --export` and `export` write), or None
for anything else, which the caller then gives to `parse_program` (so every
error is still reported by it, with its position).

It accepts only what it is sure about: no carriage return anywhere, no
comment after an item, threads numbered in order, no empty thread, targets
in range, no repeated `test` or `init`, no keyword as a name, values within
MAX_VALUE. The Program it returns has no spans (they matter only for error
messages); `quick_parts` gives the same as plain tuples, for readers that
need no Program at all. tests/test_quickparse.py checks it against `parse_program` on
every published test, on exports and on generated and mutated layouts.
"""

from __future__ import annotations

import re
from pathlib import Path

from progress.core.program import Instr, Program
from progress.front.axb.lexicon import (
    BLANKS,
    COMMENT_MARK,
    END,
    INIT,
    INSTRUCTION,
    MAX_VALUE,
    TEST,
    THREAD,
    is_reserved,
)
from progress.source import bounded_int

_AXB = re.compile(INSTRUCTION)
_THREAD = re.compile(THREAD)
_TEST = re.compile(TEST)
_INIT = re.compile(INIT)


def quick_program(text: str, path: str) -> Program | None:
    """parse_program(text, path) for the plain layout, else None (module docstring)."""
    parts = quick_parts(text, path)
    if parts is None:
        return None
    name, threads, init = parts
    return Program(name, tuple(tuple(Instr(*ins) for ins in code) for code in threads), init)


def quick_parts(
    text: str, path: str
) -> tuple[str, tuple[tuple[tuple[str, int, int, bool, int], ...], ...], tuple[tuple[str, int], ...]] | None:
    """(name, threads, init) of `quick_program(text, path)` as plain tuples
    (no Instr or Program is built), or None."""
    if "\r" in text:
        return None
    header: list[str] = []
    threads: list[list[tuple[str, ...]]] = []
    current: list[tuple[str, ...]] | None = None
    axb, thread_line = _AXB.fullmatch, _THREAD.fullmatch
    blanks, comment = BLANKS, COMMENT_MARK
    for line in text.split("\n"):
        item = line.strip(blanks)
        if not item or item[0] == comment:
            continue
        found = axb(item)
        if found is not None:
            if current is None:
                return None
            current.append(found.groups())
            continue
        found = thread_line(item)
        if found is not None:
            if bounded_int(found[1]) != len(threads):
                return None
            current = []
            threads.append(current)
            continue
        if threads:
            return None  # a header after a thread, or anything else
        header.append(item)
    read = read_header(header)
    if read is None or not threads:
        return None
    name, init = read
    built = []
    for code in threads:
        instrs = thread_instructions(code)
        if instrs is None:
            return None
        built.append(instrs)
    if name is None:
        name = Path(path).stem if path and not path.startswith("<") else "test"
    return name, tuple(built), init


def read_header(items: list[str]) -> tuple[str | None, tuple[tuple[str, int], ...]] | None:
    """(test name or None, init sorted by location) of a file's header items (its
    `test` and `init` lines, stripped), or None for anything else, a second name,
    a location given twice, a value out of range or a reserved name."""
    name = None
    init: dict[str, int] = {}
    for item in items:
        found = _TEST.fullmatch(item)
        if found is not None:
            if name is not None or is_reserved(found[1]):
                return None
            name = found[1]
            continue
        found = _INIT.fullmatch(item)
        if found is None:
            return None
        loc, value = found[1], bounded_int(found[2])
        if loc in init or is_reserved(loc) or value > MAX_VALUE:
            return None
        init[loc] = value
    return name, tuple(sorted(init.items()))


def thread_instructions(code: list[tuple[str, ...]]) -> tuple[tuple[str, int, int, bool, int], ...] | None:
    """One thread's (loc, cmp, target, xchg, val) from its AXB lines' regex groups
    (target `end` = the thread's length), or None for an empty thread, a value or
    target out of range, or a reserved name (the full parser then reports it)."""
    n = len(code)
    if not n:
        return None
    instructions = []
    for loc, cmp_text, target_text, xchg, val_text in code:
        cmp, val = bounded_int(cmp_text), bounded_int(val_text)
        target = n if target_text == END else bounded_int(target_text)
        if target > n or cmp > MAX_VALUE or val > MAX_VALUE or is_reserved(loc):
            return None
        instructions.append((loc, cmp, target, xchg == "true", val))
    return tuple(instructions)
