"""axb.lark's terminals and lexicon.py say the same thing: lark's own lexer,
built from axb.lark alone, splits any text into the same tokens (type,
text, line, column) as the scanner that grammar.py builds from lexicon.py,
and stops at the same bad character."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from conftest import long_twin
from hypothesis import given, settings
from hypothesis import strategies as st
from lark import Lark
from lark.exceptions import UnexpectedCharacters

from progress.front.axb import grammar, lexicon

LARK_FILE = Path(grammar.__file__).with_name("axb.lark")

WORDS = [
    *sorted(lexicon.KEYWORDS),
    *["AXB", "axb", "Axb", "aXb", "axbx", "axb_", "AXB2", "End", "TRUE", "Thread", "end5", "truex", "test_"],
    *["m", "l0", "_", "_9", "x1y"],
]
PIECES = [
    *WORDS,
    *["0", "7", "007", "2147483648", "9" * 40, "5abc"],
    *list(lexicon.PUNCTUATION),
    *[" ", "\t", "\n", "\r", "\r\n", "\f", "  \n"],
    *["#", "# note", "#\tx(,", "#\r", "#é"],
    *["$", "é", "\v", "\u00a0", "\x00", "\u202e", "-", ";", "１", "\ufeff"],
    *["AXB(m, 0, end, true, 1)", "axb( x ,1,2,false,0 )", "AXB(end, 0, 1, true, 0)", "Axb(axb, 0, 1, true, 0)"],
    *["AXB\t(m,0,\tend,true,1)", "AXB(m,0,1,true,0)x", "AXB(m, 0, endx, true, 1)", "AXB(m, 00, 1, true, 9)"],
]


@cache
def lark_lexer() -> Lark:
    return Lark(LARK_FILE.read_text(), parser="lalr", lexer="basic")


def by_lark(text: str) -> tuple[list[tuple[str, str, int, int]], tuple[int, int] | None]:
    """lark's tokens of the text and where it found a bad character (or None)."""
    tokens: list[tuple[str, str, int, int]] = []
    try:
        for token in lark_lexer().lex(text):
            tokens.append((token.type, str(token), token.line, token.column))
    except UnexpectedCharacters as bad:
        return tokens, (bad.line, bad.column)
    return tokens, None


def by_scanner(text: str) -> tuple[list[tuple[str, str, int, int]], tuple[int, int] | None]:
    """The scanner's tokens, a whole instruction (INSTR) split back into its
    words, and where it found a bad character (or None)."""
    tokens: list[tuple[str, str, int, int]] = []
    try:
        for token in grammar._AxbLexer(None).lex(text):
            if token.type == "INSTR":
                tokens += split_instruction(str(token), token.line, token.column)
            else:
                tokens.append((token.type, str(token), token.line, token.column))
    except grammar._BadCharacter as bad:
        return tokens, (bad.line, bad.column)
    return tokens, None


def split_instruction(text: str, line: int, column: int) -> list[tuple[str, str, int, int]]:
    """An INSTR token's words: exactly an instruction whose location is no reserved word."""
    words, bad = by_lark(text)
    assert bad is None
    kinds = [kind for kind, *_ in words]
    assert kinds[:3] == ["AXB", "LPAR", "NAME"] and kinds[4:] == ["INT", "COMMA", kinds[6], "COMMA", "BOOL"] + [
        "COMMA",
        "INT",
        "RPAR",
    ], words
    assert kinds[3] == "COMMA" and kinds[6] in ("INT", "END") and not lexicon.is_reserved(words[2][1]), words
    return [(kind, word, line, column + at - 1) for kind, word, _, at in words]


def _lark_and_the_scanner_split_text_alike(text):
    assert by_scanner(text) == by_lark(text)


test_lark_and_the_scanner_split_text_alike, test_lark_and_the_scanner_split_text_alike_in_full = long_twin(
    _lark_and_the_scanner_split_text_alike,
    (st.lists(st.sampled_from(PIECES), max_size=30).map("".join),),
    400,
    1500,
    derandomize=True,
    deadline=None,
)


@settings(max_examples=500, derandomize=True, deadline=None)
@given(st.text(alphabet=st.sampled_from(sorted(set("".join(PIECES)))), max_size=60))
def test_lark_and_the_scanner_split_any_characters_alike(text):
    assert by_scanner(text) == by_lark(text)


def test_the_scanner_fuses_whole_instructions():
    """So the INSTR branch above is exercised, and a reserved location is not fused."""
    kinds = [token.type for token in grammar._AxbLexer(None).lex("AXB(m, 0, end, true, 1) AXB(axb, 0, 1, true, 0)")]
    assert kinds[0] == "INSTR" and kinds[1:4] == ["AXB", "LPAR", "AXB"]


@pytest.mark.parametrize("terminal, pattern", [("NAME", lexicon.NAME), ("INT", lexicon.INT)])
def test_the_shared_terminals_are_written_alike(terminal, pattern):
    """(COMMENT too, but lark turns its escapes into the characters; the splitting above covers it.)"""
    (found,) = [t for t in lark_lexer().terminals if t.name == terminal]
    assert found.pattern.value == pattern
