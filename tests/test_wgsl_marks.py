"""WGSL statements found and marked (progress/front/wgsl/marks.py, tokens.py).

The oracle for the statement finder is the generator: it writes random WGSL
function bodies token by token, with random blanks and comments between the
tokens, and records where each statement starts; the finder must mark
exactly those places. naga then must accept every marked program (so the
markers are legal WGSL wherever they go) and compile it to the same code as
the program as written (test_wgsl_lines.py compares the modules).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from progress.front.wgsl.marks import MARKER_BASE, Unmarkable, marked_source
from progress.front.wgsl.naga import translate
from progress.front.wgsl.tokens import tokens

PRELUDE = "@group(0) @binding(0) var<storage, read_write> a: atomic<u32>;\n"


class Writer:
    """Token by token, with the blanks between them drawn; remembers statement starts."""

    def __init__(self, draw):
        self.draw = draw
        self.parts: list[str] = []
        self.line, self.column = 1, 1
        self.starts: list[tuple[int, int]] = []
        self.names = 0

    def blank(self) -> None:
        self.text(
            self.draw(
                st.sampled_from([" ", "\n", "  ", " /* c */ ", " // c\n", "\t", "\n\n    ", " /* a /* b */\n */ "])
            )
        )

    def token(self, text: str, start: bool = False) -> None:
        if start:
            self.starts.append((self.line, self.column))
        self.text(text)
        self.blank()

    def text(self, text: str) -> None:
        self.parts.append(text)
        for char in text:
            self.line, self.column = (self.line + 1, 1) if char == "\n" else (self.line, self.column + 1)

    def fresh(self, stem: str) -> str:
        self.names += 1
        return f"{stem}{self.names}"


def statement(w: Writer, depth: int, in_loop: bool) -> None:
    kinds = ["assign", "let", "call", "increment", "phony", "empty"]
    if depth < 3:
        kinds += ["if", "loop", "for", "while", "switch", "block"]
    if in_loop:
        kinds.append("break")
    kind = w.draw(st.sampled_from(kinds))
    if kind == "empty":
        w.token(";")
        return
    simple = {
        "assign": ["x", "=", "x", "+", "1u", ";"],
        "let": ["let", w.fresh("v"), "=", "x", "*", "(", "3u", "+", "x", ")", ";"],
        "call": ["atomicAdd", "(", "&", "a", ",", "1u", ")", ";"],
        "increment": ["x", "++", ";"],
        "phony": ["_", "=", "x", ";"],
        "break": ["break", ";"],
    }
    if kind in simple:
        first, *rest = simple[kind]
        w.token(first, start=True)
        for part in rest:
            w.token(part)
        return
    compound(w, kind, depth, in_loop)


def compound(w: Writer, kind: str, depth: int, in_loop: bool) -> None:
    if kind == "if":
        w.token("if", start=True)
        w.token("(x > 3u)")
        block(w, depth, in_loop)
        for _ in range(w.draw(st.integers(0, 2))):
            w.token("else")
            w.token("if", start=True)  # an `else if` is marked as a statement of its own
            w.token("x == 2u")
            block(w, depth, in_loop)
        if w.draw(st.booleans()):
            w.token("else")
            block(w, depth, in_loop)
    elif kind == "loop":
        w.token("loop", start=True)
        w.token("{")
        body(w, depth + 1, True)
        if w.draw(st.booleans()):
            w.token("continuing", start=True)
            w.token("{")
            body(w, depth + 1, False)
            if w.draw(st.booleans()):
                w.token("break", start=True)
                for part in ["if", "x", ">", "9u", ";"]:
                    w.token(part)
            w.token("}")
        w.token("}")
    elif kind == "for":
        name = w.fresh("i")
        w.token("for", start=True)
        for part in ["(", "var", name, "=", "0u", ";", name, "<", "3u", ";", name, "++", ")"]:
            w.token(part)
        block(w, depth, True)
    elif kind == "while":
        w.token("while", start=True)
        w.token("(x < 5u)")
        block(w, depth, True)
    elif kind == "switch":
        w.token("switch", start=True)
        w.token("x")
        w.token("{")
        for part in (["case", "1u", ",", "2u", ":"], ["default"]):
            for token in part:
                w.token(token)
            block(w, depth, in_loop)
        w.token("}")
    else:
        w.token("{", start=True)
        body(w, depth + 1, in_loop)
        w.token("}")


def block(w: Writer, depth: int, in_loop: bool) -> None:
    w.token("{")
    body(w, depth + 1, in_loop)
    w.token("}")


def body(w: Writer, depth: int, in_loop: bool) -> None:
    for _ in range(w.draw(st.integers(0, 3))):
        statement(w, depth, in_loop)


@st.composite
def programs(draw, functions: int = 1):
    """(WGSL source, statement starts): `functions` functions of random statements."""
    w = Writer(draw)
    w.text(PRELUDE)
    for number in range(functions):
        for part in ["fn", f"f{number}", "(", ")", "{"]:
            w.token(part)
        w.token("var", start=True)
        for part in ["x", ":", "u32", "=", "0u", ";"]:
            w.token(part)
        body(w, 0, False)
        w.token("}")
    return "".join(w.parts), w.starts


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(functions=2))
def test_every_statement_and_only_statements_are_marked(program):
    source, starts = program
    marked = marked_source(source)
    assert list(marked.positions) == starts
    assert marked.source.endswith(f"\nvar<private> {marked.variable}: u32;\n")
    mark = rf"\{{?{marked.variable} = (\d+)u;|\}}+"
    assert all(re.fullmatch(mark, text) for _, text in marked.insertions)  # no newline: every line keeps its number
    values = [int(m.group(1)) for _, text in marked.insertions if (m := re.fullmatch(mark, text)) and m.group(1)]
    assert values == list(range(len(starts)))
    rebuilt, last = [], 0
    for offset, text in marked.insertions:
        rebuilt += [source[last:offset], text]
        last = offset
    assert "".join(rebuilt) + source[last:] + f"\nvar<private> {marked.variable}: u32;\n" == marked.source


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(functions=12))
def test_naga_accepts_every_marked_program(program):
    source, starts = program
    marked = marked_source(source)
    translate(source)  # the generator writes valid WGSL
    translate(marked.source)
    assert len(marked.positions) == len(starts)


def test_else_if_chains_are_wrapped_and_closed_on_their_line():
    source = "fn f() {\n  var x = 1u;\n  if x == 1u { x = 2u; } else if x == 2u { x = 3u; } else { x = 4u; }\n}\n"
    marked = marked_source(source)
    line = marked.source.split("\n")[2]
    assert line == (
        "  progress_line = 1u;if x == 1u { progress_line = 2u;x = 2u; } else {progress_line = 3u;if x == 2u "
        "{ progress_line = 4u;x = 3u; } else { progress_line = 5u;x = 4u; }}"
    )
    assert marked.positions == ((2, 3), (3, 3), (3, 16), (3, 31), (3, 44), (3, 61))
    assert marked.functions == {"f": (1, 1)}


def test_attributes_continuing_and_comments():
    source = (
        "fn g() {\n"
        "  var x = 0u; /* one /* nested\n */ comment */ x += 1u;\n"
        "  loop { x++; continuing { break if x > 3u; } }\n"
        "  @diagnostic(off, derivative_uniformity) { x = 1u; }\n"  # WGSL allows it; naga 30 does not yet
        "}\n"
    )
    marked = marked_source(source)
    assert marked.positions == ((2, 3), (3, 16), (4, 3), (4, 10), (4, 15), (4, 28), (5, 3), (5, 45))
    assert marked.source.split("\n")[4].startswith("  progress_line = 6u;@diagnostic(off, derivative_uniformity) {")


def test_the_marker_name_avoids_the_sources_own_names():
    source = f"var<private> {MARKER_BASE}: u32;\nfn f() {{ {MARKER_BASE} = 1u; }}\n"
    marked = marked_source(source)
    assert marked.variable == MARKER_BASE + "_"
    assert f"{MARKER_BASE}_ = 0u;{MARKER_BASE} = 1u;" in marked.source


@pytest.mark.parametrize(
    "source",
    [
        "fn f() { if x { ",  # ends inside a function
        "fn f() { x = 1u }",  # a statement runs into a brace
        "fn f() { switch x { 1u: {} } }",  # a clause without case/default
        "fn f() { if x ; }",  # no block after `if`
        "fn f() {" + "{" * 300 + "}" * 300 + "}",  # nesting past MAX_DEPTH (Python's recursion would end first)
    ],
)
def test_shapes_the_finder_does_not_know_are_refused(source):
    with pytest.raises(Unmarkable):
        marked_source(source)


def test_tokens_count_lines_through_comments_and_stop_at_an_unterminated_one():
    found = tokens("a /* x\ny /* z */\n */ b // c\n  é3 .5e3 0x1Fu /* open")
    assert [(t.text, t.line, t.column) for t in found] == [
        ("a", 1, 1),
        ("b", 3, 5),
        ("é3", 4, 3),
        (".5e3", 4, 6),
        ("0x1Fu", 4, 11),
    ]
