"""The grammar-driven parser: lark's LALR parser over axb.lark (the only
user of lark). `parse.py` calls it for any text its line recognizer
declines, so lark is imported only when a file needs it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer

from progress.core.program import Span
from progress.errors import InputError, SourcePosition
from progress.front.axb.lexicon import (
    AXB_WORD,
    COMMENT,
    END,
    INSTRUCTION,
    INT,
    KEYWORDS,
    LINE_SPACE,
    MAX_VALUE,
    NAME,
    PUNCTUATION,
    is_reserved,
)
from progress.source import bounded_int, end_position, error_at, shown_number

_TOKEN_NAMES = {
    "AXB": "'AXB'",
    "NAME": "a name",
    "INT": "a number",
    "BOOL": "'true' or 'false'",
    "END": "'end'",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "EQUAL": "'='",
    "TEST": "'test'",
    "INIT": "'init'",
    "THREAD": "'thread'",
    "$END": "end of input",
    "INSTR": "'AXB'",
}


_SCAN = re.compile(
    rf"(?P<skip>{LINE_SPACE}+|{COMMENT})|(?P<nl>\n)|(?P<word>{NAME})"
    rf"|(?P<int>{INT})|(?P<punct>[{re.escape(PUNCTUATION)}])"
)
_INSTR = re.compile(INSTRUCTION)
_KEYWORDS = {word: "BOOL" if word in ("true", "false") else word.upper() for word in KEYWORDS}
"""Each keyword's terminal in axb.lark (lark names the terminal of a literal "test" TEST)."""
_PUNCT = {"(": "LPAR", ")": "RPAR", ",": "COMMA", "=": "EQUAL"}


class _BadCharacter(Exception):
    def __init__(self, line: int, column: int):
        super().__init__(line, column)
        self.line, self.column = line, column


class _AxbLexer(Lexer):
    """One-regex scanner producing the terminals of axb.lark (lark's generic
    lexer is several times slower on these small files)."""

    def __init__(self, lexer_conf):
        pass

    # lark wraps a custom lexer without `__future_interface__` and hands it the
    # whole text; its stubs only describe the newer (state, parser) signature
    def lex(self, text):  # type: ignore[override]
        line, line_start, pos, end = 1, 0, 0, len(text)
        match = _SCAN.match
        while pos < end:
            found = match(text, pos)
            if found is None:
                raise _BadCharacter(line, pos - line_start + 1)
            kind, value = found.lastgroup, found.group()
            if kind == "word":
                kind = "AXB" if value.lower() == AXB_WORD else _KEYWORDS.get(value, "NAME")
                if kind == "AXB":
                    whole = _INSTR.match(text, pos)
                    if whole is not None and not is_reserved(whole["loc"]):
                        yield Token("INSTR", whole.group(), pos, line, pos - line_start + 1)
                        pos = whole.end()
                        continue
            elif kind == "int":
                kind = "INT"
            elif kind == "punct":
                kind = _PUNCT[value]
            elif kind == "nl":
                line, line_start = line + 1, found.end()
                pos = found.end()
                continue
            else:
                pos = found.end()
                continue
            yield Token(kind, value, pos, line, pos - line_start + 1)
            pos = found.end()


class _Located(Exception):
    """Raised inside the transformer; carries a token so the caller can place it."""

    def __init__(self, message: str, token: Token):
        super().__init__(message)
        self.message = message
        self.token = token


def _at(token: Token) -> tuple[int, int]:
    """(line, column) of a token; lark types them optional, `_AxbLexer` always sets both."""
    assert token.line is not None and token.column is not None
    return token.line, token.column


def _number(token: Token) -> int:
    value = bounded_int(token)
    if value > MAX_VALUE:
        raise _Located(f"value {shown_number(token)} is too large for the checker (at most {MAX_VALUE})", token)
    return value


@v_args(inline=True)
class _ToProgram(Transformer):
    def test_decl(self, name: Token):
        return ("test", name)

    def init_decl(self, loc: Token, value: Token):
        return ("init", loc, _number(value))

    def target(self, token: Token):
        return token

    def instr(self, axb: Token, loc: Token, cmp: Token, target: Token, xchg: Token, val: Token):
        """(span, loc, cmp, target, xchg, val); the target is resolved per thread."""
        where = (target.line, target.column)
        return (
            Span(*_at(axb)),
            str(loc),
            _number(cmp),
            (target.type, str(target), where),
            xchg == "true",
            _number(val),
        )

    def instr_whole(self, token: Token):
        """The fast path: re-split a whole well-formed instruction."""
        found = _INSTR.match(token)
        assert found is not None  # `_AxbLexer` made this token from the same regex
        line, column = _at(token)
        loc, cmp, target, xchg, val = found.groups()

        def number(group: int, text: str) -> int:
            value = bounded_int(text)
            if value > MAX_VALUE:
                _number(Token("INT", text, 0, line, column + found.start(group)))
            return value

        where = (line, column + found.start("target"))
        return (
            Span(line, column),
            loc,
            number(2, cmp),
            ("END" if target == END else "INT", target, where),
            xchg == "true",
            number(5, val),
        )

    def thread(self, keyword_id: Token, *instrs):
        return (keyword_id, list(instrs))

    def start(self, *items):
        return list(items)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (Path(__file__).with_name("axb.lark")).read_text()
    # cache=True: lark keeps the LALR tables in a temp file (10x faster start-up)
    return Lark(
        grammar,
        parser="lalr",
        lexer=_AxbLexer,
        transformer=_ToProgram(),
        cache=True,
        propagate_positions=False,
        maybe_placeholders=False,
    )


def parse_items(text: str, lines: list[str], path: str) -> list:
    """The raw items of `.axb` text (see `parse._build`), or an InputError."""
    try:
        # the transformer runs inside the LALR parser: parse returns its result
        return cast("list[Any]", _parser().parse(text))
    except _Located as located:
        raise error_at(located.message, *_at(located.token), lines, path) from None
    except _BadCharacter as bad:
        shown = lines[bad.line - 1][bad.column - 1] if bad.line <= len(lines) else "?"
        raise error_at(f"unexpected character {shown!r}", bad.line, bad.column, lines, path) from None
    except UnexpectedInput as err:
        raise _syntax_error(err, lines, path) from None
    except LarkError as err:  # pragma: no cover - lark's other failures are grammar bugs
        raise InputError(f"cannot parse: {err}", SourcePosition(path, 1, 1, "")) from None


def _syntax_error(err: UnexpectedInput, lines: list[str], path: str) -> InputError:
    line = getattr(err, "line", -1)
    column = getattr(err, "column", -1)
    if isinstance(err, UnexpectedEOF) or line is None or line < 1:
        line, column = end_position(lines)
        return error_at("unexpected end of input", line, column, lines, path)
    if isinstance(err, UnexpectedCharacters):
        bad = lines[line - 1][column - 1] if line - 1 < len(lines) and column - 1 < len(lines[line - 1]) else "?"
        return error_at(f"unexpected character {bad!r}", line, column, lines, path)
    if isinstance(err, UnexpectedToken):
        found = err.token
        what = "end of input" if found.type == "$END" else repr(str(found))
        expected = sorted({_TOKEN_NAMES.get(t, t) for t in err.expected})
        return error_at(f"unexpected {what}; expected {_one_of(expected)}", line, column, lines, path)
    return error_at(str(err).splitlines()[0], line, column, lines, path)


def _one_of(options: list[str]) -> str:
    return options[0] if len(options) == 1 else "one of " + ", ".join(options)
