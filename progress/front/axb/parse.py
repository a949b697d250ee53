"""Parse `.axb` text into a Program (docs/semantics.md section 2).

Two front ends produce the same raw items: a line recognizer for files laid
out one item per line (the usual layout, no lark needed), and the
grammar-driven lark parser in `grammar.py` for everything else, including
every syntax error. A differential property test keeps them equal. The
semantic checks (thread order, empty threads, targets, repeats) are here,
shared by both. Every rejection is an InputError naming file:line:col.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from progress.core.program import Instr, Program, Span
from progress.front.axb.lexicon import BLANK, COMMENT, END, INIT, INSTRUCTION, MAX_VALUE, TEST, THREAD, is_reserved
from progress.source import bounded_int, end_position, error_at, shown_number, source_lines

Item = tuple[Any, ...]
"""A raw item (see `_build`): its words are lark Tokens or `_Word`s, which carry line and column."""

_LINE = re.compile(
    rf"{BLANK}*(?:{TEST}|{INIT}|{THREAD}|(?P<axb>){INSTRUCTION})?"
    rf"{BLANK}*(?:{COMMENT})?$"
)
"""One line holding at most one item; the empty group `axb` marks where an instruction starts."""


class _Word(str):
    """A word with its 1-based position, shaped like the lark tokens `_build` reads."""

    line: int
    column: int

    @classmethod
    def at(cls, text: str, line: int, column: int) -> _Word:
        word = cls(text)
        word.line, word.column = line, column
        return word


def parse_program(text: str, path: str = "<string>", name: str | None = None) -> Program:
    """Parse `.axb` text; `name` (default: the `test` line, else the file stem)."""
    lines = source_lines(text)
    items = _line_items(lines)
    if items is None:
        from progress.front.axb.grammar import parse_items  # lark: only for other layouts and errors

        items = parse_items(text, lines, path)
    return _build(items, lines, path, name)


def _line_items(lines: list[str]) -> list[Item] | None:
    """The raw items of a file laid out one item per line, or None to let the
    grammar-driven parser decide (any other layout, any doubt, any error)."""
    items: list[Item] = []
    for number, line in enumerate(lines, 1):
        found = _LINE.match(line)
        if found is None:
            return None
        kind = found.lastgroup
        if kind is None:
            continue
        in_threads = bool(items) and isinstance(items[-1][1], list)
        if kind in ("test", "value") and in_threads:
            return None  # headers after a thread: the grammar reports it
        if kind == "test":
            if is_reserved(found["test"]):
                return None
            items.append(("test", _Word.at(found["test"], number, found.start("test") + 1)))
        elif kind == "value":
            value = bounded_int(found["value"])
            if is_reserved(found["init"]) or value > MAX_VALUE:
                return None
            items.append(("init", _Word.at(found["init"], number, found.start("init") + 1), value))
        elif kind == "thread":
            items.append((_Word.at(found["thread"], number, found.start("thread") + 1), []))
        else:
            instr = _instr_item(found, number)
            if instr is None or not in_threads:
                return None
            items[-1][1].append(instr)
    return items


def _instr_item(found: re.Match[str], number: int) -> Item | None:
    cmp, val = bounded_int(found["cmp"]), bounded_int(found["val"])
    if is_reserved(found["loc"]) or cmp > MAX_VALUE or val > MAX_VALUE:
        return None
    target = found["target"]
    where = (number, found.start("target") + 1)
    return (
        Span(number, found.start("axb") + 1),
        found["loc"],
        cmp,
        ("END" if target == END else "INT", target, where),
        found["xchg"] == "true",
        val,
    )


def _build(items: list[Item], lines: list[str], path: str, name: str | None) -> Program:
    test_name: str | None = None
    init: dict[str, int] = {}
    threads: list[Item] = []
    for item in items:
        if isinstance(item, tuple) and item[0] == "test":
            token = item[1]
            if test_name is not None:
                raise error_at(
                    "repeated 'test' line (a file holds one test)", token.line, token.column - 5, lines, path
                )
            test_name = str(token)
        elif isinstance(item, tuple) and item[0] == "init":
            _, loc, value = item
            if str(loc) in init:
                raise error_at(f"repeated 'init' of location '{loc}'", loc.line, loc.column, lines, path)
            init[str(loc)] = value
        else:
            threads.append(item)
    if not threads:
        last, _ = end_position(lines)
        raise error_at("the test has no threads (expected 'thread 0')", last, 1, lines, path)
    built = [_build_thread(index, thread, lines, path) for index, thread in enumerate(threads)]
    stem = Path(path).stem if path and not path.startswith("<") else "test"
    return Program(
        name=name or test_name or stem,
        threads=tuple(code for code, _ in built),
        init=tuple(sorted(init.items())),
        spans=tuple(Span(t[0].line, t[0].column) for t in threads),
        instr_spans=tuple(spans for _, spans in built),
    )


def _build_thread(index: int, thread: Item, lines: list[str], path: str) -> tuple[tuple[Instr, ...], tuple[Span, ...]]:
    keyword_id, instrs = thread
    if bounded_int(keyword_id) != index:
        raise error_at(
            f"expected 'thread {index}' here (threads are numbered 0, 1, 2... in order), "
            f"found thread {shown_number(keyword_id)}",
            keyword_id.line,
            keyword_id.column,
            lines,
            path,
        )
    if not instrs:
        raise error_at(
            f"thread {index} is empty (a thread needs at least one instruction)",
            keyword_id.line,
            keyword_id.column,
            lines,
            path,
        )
    n = len(instrs)
    result, spans = [], []
    for span, loc, cmp, (kind, text, (line, column)), xchg, val in instrs:
        target = n if kind == "END" else bounded_int(text)
        if target > n:
            raise error_at(
                f"target {shown_number(text)} is out of range: thread {index} has {n} instruction(s), "
                f"so targets are 0..{n} or 'end'",
                line,
                column,
                lines,
                path,
            )
        result.append(Instr(loc, cmp, target, xchg, val))
        spans.append(span)
    return tuple(result), tuple(spans)
