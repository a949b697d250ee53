"""The line recognizer and the grammar-driven (lark) parser agree exactly:
same Program (spans included) or the same rendered error, on generated
layouts and on mutations of them."""

from __future__ import annotations

from conftest import long_twin
from hypothesis import given, settings
from hypothesis import strategies as st

from progress.errors import InputError
from progress.front.axb.grammar import parse_items
from progress.front.axb.parse import _build, _line_items, parse_program
from progress.source import source_lines

SPACE = st.sampled_from(["", " ", "  ", "\t"])
CLEAN_NAME = st.sampled_from(["m", "x", "flag", "l0", "_t", "axb2"])
NAME = st.one_of(CLEAN_NAME, st.sampled_from(["end", "thread", "AXB", "aXb", "true"]))
CLEAN_NUMBER = st.sampled_from(["0", "1", "2", "3", "10", "2147483647"])
NUMBER = st.one_of(CLEAN_NUMBER, st.just("2147483648"))
BOOL = st.sampled_from(["true", "false"])


@st.composite
def instruction_line(draw, clean=False):
    s = draw(SPACE)
    name, number = (CLEAN_NAME, CLEAN_NUMBER) if clean else (NAME, NUMBER)
    axb = draw(st.sampled_from(["AXB", "axb", "Axb"]))
    parts = [
        draw(name),
        draw(number),
        draw(st.sampled_from(["0", "1", "2", "5", "end"])),
        draw(BOOL if clean else st.one_of(BOOL, st.just("True"))),
        draw(number),
    ]
    inner = ",".join(f"{draw(SPACE)}{p}{draw(SPACE)}" for p in parts)
    comment = draw(st.sampled_from(["", "  # note", "#x"]))
    return f"{s}{axb}{draw(SPACE)}({inner}){comment}"


@st.composite
def axb_text(draw, clean=False):
    name, number = (CLEAN_NAME, CLEAN_NUMBER) if clean else (NAME, NUMBER)
    lines = []
    if draw(st.booleans()):
        lines.append(f"test{draw(st.sampled_from([' ', chr(9)]))}{draw(name)}")
    for _ in range(draw(st.integers(0, 2))):
        lines.append(f"init {draw(name)}{draw(SPACE)}={draw(SPACE)}{draw(number)}")
    for tid in range(draw(st.integers(0, 3))):
        lines.append(f"{draw(SPACE)}thread {draw(st.sampled_from([str(tid), str(tid), str(tid + 1)]))}")
        lines += [draw(instruction_line(clean)) for _ in range(draw(st.integers(0, 3)))]
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "# comment", "   "])))
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines) + draw(st.sampled_from(["", "\n"]))


def outcome(parse):
    try:
        program = parse()
    except InputError as error:
        return ("error", error.render())
    return ("program", program, program.spans, program.instr_spans)


def by_grammar(text):
    lines = source_lines(text)
    return _build(parse_items(text, lines, "t.axb"), lines, "t.axb", None)


@st.composite
def mutated(draw):
    text = draw(axb_text())
    if not text:
        return text
    at = draw(st.integers(0, len(text) - 1))
    insert = draw(st.sampled_from(["", "x", " ", "\n", "(", ",", "9", "#", "thread 1\n", "end"]))
    cut = draw(st.integers(0, 3))
    return text[:at] + insert + text[at + cut :]


def _line_recognizer_agrees_with_the_grammar(text):
    assert outcome(lambda: parse_program(text, "t.axb")) == outcome(lambda: by_grammar(text))


test_line_recognizer_agrees_with_the_grammar, test_line_recognizer_agrees_with_the_grammar_in_full = long_twin(
    _line_recognizer_agrees_with_the_grammar,
    (st.one_of(axb_text(), mutated()),),
    100,
    400,
    derandomize=True,
    deadline=None,
)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(axb_text(clean=True))
def test_the_line_recognizer_takes_the_usual_layout(text):
    """It is used whenever every line holds one item, so the agreement above
    is not vacuous."""
    assert _line_items(source_lines(text)) is not None, text
