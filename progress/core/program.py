"""Programs: the immutable result of parsing a test (docs/semantics.md section 1).

Spans record where a node came from; they are ignored by equality, so two
programs are equal iff they mean the same test under the same names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

MAX_VALUE = 2**31 - 1
"""Largest value or init a test may use: GPU memory cells are 32-bit signed."""

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
"""A test or location name in `.axb`: letters, digits and `_`, not starting with a digit."""

KEYWORDS = frozenset({"end", "true", "false", "test", "init", "thread"})
"""Words that cannot name a test or a location (nor can `axb`, in any case)."""


def is_reserved(word: str) -> bool:
    """Whether a word is kept from naming a test or a location: a keyword, or `axb` in any case."""
    return word in KEYWORDS or word.lower() == "axb"


def is_name(word: str) -> bool:
    """Whether `word` can be written as a test or location name in `.axb`."""
    return re.fullmatch(NAME, word) is not None and not is_reserved(word)


class Span(NamedTuple):
    line: int
    column: int


class Instr(NamedTuple):
    """AXB(loc, cmp, target, xchg, val): atomically `old = mem[loc]`; if
    `xchg` store `val`; jump to `target` if `old == cmp`, else fall through.
    Where it was written is kept in `Program.instr_spans`."""

    loc: str
    cmp: int
    target: int
    xchg: bool
    val: int

    def is_store(self, index: int) -> bool:
        """A store in docs/semantics.md section 6's sense: the branch goes where pc+1 goes."""
        return self.target == index + 1

    def text(self, thread_length: int) -> str:
        target = "end" if self.target == thread_length else str(self.target)
        xchg = "true" if self.xchg else "false"
        return f"AXB({self.loc}, {self.cmp}, {target}, {xchg}, {self.val})"


@dataclass(frozen=True)
class Program:
    """N threads of AXB instructions over locations that start at `init` or 0.

    `spans` (one per thread) and `instr_spans` (one per instruction) say where
    the parser found them; equality ignores them."""

    name: str
    threads: tuple[tuple[Instr, ...], ...]
    init: tuple[tuple[str, int], ...] = ()
    spans: tuple[Span | None, ...] = field(default=(), compare=False, repr=False)
    instr_spans: tuple[tuple[Span, ...], ...] = field(default=(), compare=False, repr=False)

    @cached_property
    def locations(self) -> tuple[str, ...]:
        """Locations in order of first use (thread 0 first), then init-only."""
        seen: dict[str, None] = {}
        for thread in self.threads:
            for ins in thread:
                seen.setdefault(ins.loc, None)
        for loc, _ in self.init:
            seen.setdefault(loc, None)
        return tuple(seen)

    @property
    def initial_memory(self) -> dict[str, int]:
        memory = {loc: 0 for loc in self.locations}
        memory.update(self.init)
        return memory

    @property
    def instruction_count(self) -> int:
        return sum(len(t) for t in self.threads)

    def to_axb(self) -> str:
        """The program as `.axb` text that parses back to an equal program.
        A name `.axb` cannot spell (`0`, the stem of `0.axb`) gets no `test`
        line, so the text still reads, and a file named after it (`0.axb`)
        names the test the same again."""
        lines = [f"test {self.name}" if is_name(self.name) else f"# test {_comment(self.name)} (named by its file)"]
        lines += [f"init {loc} = {value}" for loc, value in self.init]
        for tid, thread in enumerate(self.threads):
            lines.append(f"thread {tid}")
            lines += [f"  {ins.text(len(thread))}" for ins in thread]
        return "\n".join(lines) + "\n"


def _comment(text: str) -> str:
    """`text` fit for one comment line (no line breaks or control characters)."""
    return "".join(char if char.isprintable() else "?" for char in text)
