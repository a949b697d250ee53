"""Line markers: where each WGSL statement starts, made visible to naga's SPIR-V.

naga's SPIR-V writer, as naga-wasm runs it, emits no OpLine and no OpSource
(its debug info needs an option the package does not expose), only OpName.
So before naga runs, each statement of each function body gets a marker
statement in front of it on the same line, `progress_line = K;` (a store of
the constant K to a `var<private>` the source does not otherwise use), and
`positions[K]` is that statement's (line, column). `else if C {...}` becomes
`else { MARK if C {...} }` (naga reads both as a reject block holding an if),
so the condition of an `else if` has a line of its own. A store of a
constant to a variable nobody reads changes no value the kernel computes;
`progress.front.wgsl.compile` turns each store back into an OpLine and
removes the variable, so the module checked is naga's for the source as
written. No newline is inserted: every line keeps its number (columns after
a marker shift, which is why naga's errors are taken from the source as
written).

Statements are found by WGSL's grammar at the level of braces and
semicolons: a function body is a statement list; `if`, `switch`, `loop`,
`for`, `while`, `continuing` and `{` open nested lists; anything else runs
to its `;`. `Unmarkable` is raised on a shape this does not know (the
caller then compiles the source unmarked). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from progress.front.wgsl.tokens import Token, tokens

MARKER_BASE = "progress_line"
"""The marker variable's name, `_` appended until the source does not use it."""

MAX_DEPTH = 200
"""Blocks nested deeper are not marked (naga itself stops at 127)."""
_NESTED = frozenset({"loop", "for", "while", "continuing"})


class Unmarkable(Exception):
    """The source has a shape the statement finder does not know."""


@dataclass(frozen=True)
class Marked:
    """The marked source, the marker variable's name, the (line, column)
    of the statement each marker value stands for, and of each function's
    `fn` by the function's name (where its prologue is shown: what naga
    writes before the first statement, such as the zero-initialisation of
    workgroup memory WGSL requires)."""

    source: str
    variable: str
    positions: tuple[tuple[int, int], ...]
    functions: Mapping[str, tuple[int, int]]
    insertions: tuple[tuple[int, str], ...] = ()
    """(offset in the source, text put there), in order: what was added."""


def marked_source(source: str) -> Marked:
    """`source` with a marker before each statement (see the module's contract)."""
    found = tokens(source)
    names = {token.text for token in found}
    variable = MARKER_BASE
    while variable in names:
        variable += "_"
    finder = _Finder(found, variable)
    finder.module()
    insertions = sorted(finder.insertions, key=lambda item: item[0])
    pieces, last = [], 0
    for offset, text in insertions:
        pieces += [source[last:offset], text]
        last = offset
    pieces += [source[last:], f"\nvar<private> {variable}: u32;\n"]
    functions = MappingProxyType(finder.functions)
    return Marked("".join(pieces), variable, tuple(finder.positions), functions, tuple(insertions))


class _Finder:
    """Walks the tokens once, recording (offset, text) insertions."""

    def __init__(self, found: list[Token], variable: str):
        self.tokens = found
        self.variable = variable
        self.insertions: list[tuple[int, str]] = []
        self.positions: list[tuple[int, int]] = []
        self.functions: dict[str, tuple[int, int]] = {}
        self.depth = 0

    def text(self, at: int) -> str:
        if at >= len(self.tokens):
            raise Unmarkable("the source ends inside a function")
        return self.tokens[at].text

    def module(self) -> None:
        at = 0
        while at < len(self.tokens):
            word = self.tokens[at].text
            if word == "fn":
                token = self.tokens[at]
                self.functions.setdefault(self.text(at + 1), (token.line, token.column))
                at = self.block(self.brace(at))
            elif word == "{":
                at = self.skip_braces(at)
            else:
                at += 1

    def skip_braces(self, at: int) -> int:
        depth = 0
        while True:
            word = self.text(at)
            depth += (word == "{") - (word == "}")
            at += 1
            if depth == 0:
                return at

    def brace(self, at: int) -> int:
        """The index of the first `{` from `at` outside parentheses and brackets."""
        depth = 0
        while True:
            word = self.text(at)
            if word in "([":
                depth += 1
            elif word in ")]":
                depth -= 1
            elif depth == 0 and word == "{":
                return at
            elif depth == 0 and word in (";", "}"):
                raise Unmarkable(f"line {self.tokens[at].line}: no block where one was expected")
            at += 1

    def block(self, at: int) -> int:
        """Marks the statements of the list opened at `at`; the index after its `}`."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unmarkable(f"line {self.tokens[at].line}: blocks nest deeper than {MAX_DEPTH}")
        at += 1
        while self.text(at) != "}":
            at = self.statement(at)
        self.depth -= 1
        return at + 1

    def statement(self, at: int, prefix: str = "") -> int:
        if self.text(at) == ";":
            return at + 1
        self.mark(at, prefix)
        while self.text(at) == "@":
            at = self.attribute_end(at)
        word = self.text(at)
        if word == "{":
            return self.block(at)
        if word == "if":
            return self.if_chain(at)
        if word == "switch":
            return self.switch_body(self.brace(at))
        if word in _NESTED:
            return self.block(self.brace(at))
        return self.simple(at)

    def mark(self, at: int, prefix: str) -> None:
        token = self.tokens[at]
        self.insertions.append((token.offset, f"{prefix}{self.variable} = {len(self.positions)}u;"))
        self.positions.append((token.line, token.column))

    def attribute_end(self, at: int) -> int:
        at += 2  # `@` and the name
        if self.text(at) != "(":
            return at
        depth = 0
        while True:
            word = self.text(at)
            depth += (word == "(") - (word == ")")
            at += 1
            if depth == 0:
                return at

    def if_chain(self, at: int) -> int:
        at = self.block(self.brace(at))
        closes = 0
        while self.text(at) == "else":
            if self.text(at + 1) != "if":
                at = self.block(at + 1)
                break
            self.mark(at + 1, "{")
            closes += 1
            at = self.block(self.brace(at + 1))
        if closes:
            last = self.tokens[at - 1]
            self.insertions.append((last.offset + 1, "}" * closes))
        return at

    def switch_body(self, at: int) -> int:
        at += 1
        while self.text(at) != "}":
            if self.text(at) not in ("case", "default"):
                raise Unmarkable(f"line {self.tokens[at].line}: a switch clause should start here")
            at = self.block(self.brace(at))
        return at + 1

    def simple(self, at: int) -> int:
        depth = 0
        while True:
            word = self.text(at)
            if word in "([":
                depth += 1
            elif word in ")]":
                depth -= 1
            elif depth == 0 and word == ";":
                return at + 1
            elif word in ("{", "}"):
                raise Unmarkable(f"line {self.tokens[at].line}: a statement runs into a brace")
            at += 1
