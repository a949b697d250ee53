"""The words of `.axb` (docs/axb.md, "Grammar"), written once.

What a number, a target, a truth value, a comment and a blank are, and the
patterns of the four items a line can hold (`test`, `init`, `thread`, an
instruction). Every reader builds from these: the scanner that feeds lark
(`grammar.py`), the line recognizer (`parse.py`) and the fast readers
(`quickparse.py`, `bulkread.py`). `axb.lark` states the same terminals for
lark; tests/test_axb_lexicon.py checks that lark's own lexer, built from
them, splits text exactly as the scanner does. What a Program admits (a
name, the reserved words, the largest value) is the core's, in
`progress.core.program`, and is re-exported here.
"""

from __future__ import annotations

from progress.core.program import KEYWORDS, MAX_VALUE, NAME, is_reserved

__all__ = ["KEYWORDS", "MAX_VALUE", "NAME", "is_reserved"]

AXB = r"[aA][xX][bB]"
"""The instruction's keyword, in any case (every other keyword is lower case)."""

AXB_WORD = "axb"
"""The instruction's keyword as a word, lowered."""

INT = r"[0-9]+"
"""A number: decimal digits, leading zeros allowed, any length (`progress.source.bounded_int` reads it)."""

END = "end"
"""The target that names the end of the thread (its length)."""

BOOL = r"true|false"
TARGET = rf"{END}|{INT}"

COMMENT_MARK = "#"
COMMENT = rf"{COMMENT_MARK}[^\r\n]*"
"""A comment: `#` up to the end of the line or a carriage return."""

BLANKS = " \t"
"""What separates the words of an item written on one line (what the line readers take)."""

BLANK = f"[{BLANKS}]"

LINE_SPACE = r"[ \t\f\r]"
"""Whitespace that does not end a line; with `\\n`, the grammar's whitespace (lark's `common.WS`)."""

PUNCTUATION = "(),="


def _spaced(*words: str) -> str:
    """A pattern of these words on one line, blanks allowed between them."""
    return f"{BLANK}*".join(words)


INSTRUCTION = _spaced(
    AXB,
    r"\(",
    f"(?P<loc>{NAME})",
    ",",
    f"(?P<cmp>{INT})",
    ",",
    f"(?P<target>{TARGET})",
    ",",
    f"(?P<xchg>{BOOL})",
    ",",
    f"(?P<val>{INT})",
    r"\)",
)
"""An instruction on one line; its groups, in order: loc, cmp, target, xchg, val."""

TEST = rf"test{BLANK}+(?P<test>{NAME})"
INIT = _spaced(rf"init{BLANK}+(?P<init>{NAME})", "=", f"(?P<value>{INT})")
THREAD = rf"thread{BLANK}+(?P<thread>{INT})"
"""The header items and a thread's first line, on one line (groups: test; init, value; thread)."""
