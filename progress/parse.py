"""Parse `.axb` text into a Program (SPEC section 2); the only user of lark.

Every rejection is an InputError naming file:line:col. The grammar lives in
axb.lark beside this module.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.lexer import Lexer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .errors import InputError, SourcePosition
from .program import MAX_VALUE, Instr, Program, Span

_TOKEN_NAMES = {
    "AXB": "'AXB'", "NAME": "a name", "INT": "a number", "BOOL": "'true' or 'false'",
    "END": "'end'", "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "EQUAL": "'='",
    "TEST": "'test'", "INIT": "'init'", "THREAD": "'thread'", "$END": "end of input",
    "INSTR": "'AXB'",
}


_SCAN = re.compile(r"(?P<skip>[ \t\r\f]+|#[^\r\n]*)|(?P<nl>\n)|(?P<word>[A-Za-z_][A-Za-z0-9_]*)"
                   r"|(?P<int>[0-9]+)|(?P<punct>[(),=])")
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_INSTR = re.compile(rf"[aA][xX][bB][ \t]*\([ \t]*({_NAME})[ \t]*,[ \t]*([0-9]+)[ \t]*,[ \t]*(end|[0-9]+)[ \t]*,"
                    rf"[ \t]*(true|false)[ \t]*,[ \t]*([0-9]+)[ \t]*\)")
_KEYWORDS = {"end": "END", "true": "BOOL", "false": "BOOL", "test": "TEST", "init": "INIT", "thread": "THREAD"}
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

    def lex(self, text):  # lark hands a custom lexer the whole text
        line, line_start, pos, end = 1, 0, 0, len(text)
        match = _SCAN.match
        while pos < end:
            found = match(text, pos)
            if found is None:
                raise _BadCharacter(line, pos - line_start + 1)
            kind, value = found.lastgroup, found.group()
            if kind == "word":
                kind = "AXB" if value.lower() == "axb" else _KEYWORDS.get(value, "NAME")
                if kind == "AXB":
                    whole = _INSTR.match(text, pos)
                    if whole is not None and whole.group(1) not in _KEYWORDS:
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


def _number(token: Token) -> int:
    value = int(token)
    if value > MAX_VALUE:
        raise _Located(f"value {value} is too large for the checker (at most {MAX_VALUE})", token)
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
        return (Span(axb.line, axb.column), str(loc), _number(cmp), (target.type, str(target), where),
                xchg == "true", _number(val))

    def instr_whole(self, token: Token):
        """The fast path: re-split a whole well-formed instruction."""
        found = _INSTR.match(token)
        loc, cmp, target, xchg, val = found.groups()

        def number(group: int, text: str) -> int:
            value = int(text)
            if value > MAX_VALUE:
                _number(Token("INT", text, 0, token.line, token.column + found.start(group)))
            return value

        where = (token.line, token.column + found.start(3))
        return (Span(token.line, token.column), loc, number(2, cmp),
                ("END" if target == "end" else "INT", target, where), xchg == "true", number(5, val))

    def thread(self, keyword_id: Token, *instrs):
        return (keyword_id, list(instrs))

    def start(self, *items):
        return list(items)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (Path(__file__).with_name("axb.lark")).read_text()
    # cache=True: lark keeps the LALR tables in a temp file (10x faster start-up)
    return Lark(grammar, parser="lalr", lexer=_AxbLexer, transformer=_ToProgram(), cache=True,
                propagate_positions=False, maybe_placeholders=False)


def parse_program(text: str, path: str = "<string>", name: str | None = None) -> Program:
    """Parse `.axb` text; `name` (default: the `test` line, else the file stem)."""
    lines = _lines(text)
    try:
        items = _parser().parse(text)  # the transformer runs inside the LALR parser
    except _Located as located:
        raise _error(located.message, located.token.line, located.token.column, lines, path) from None
    except _BadCharacter as bad:
        shown = lines[bad.line - 1][bad.column - 1] if bad.line <= len(lines) else "?"
        raise _error(f"unexpected character {shown!r}", bad.line, bad.column, lines, path) from None
    except UnexpectedInput as err:
        raise _syntax_error(err, lines, path) from None
    except LarkError as err:  # pragma: no cover - lark's other failures are grammar bugs
        raise InputError(f"cannot parse: {err}", SourcePosition(path, 1, 1, "")) from None
    return _build(items, lines, path, name)


def _build(items: list, lines: list[str], path: str, name: str | None) -> Program:
    test_name, init, threads = None, {}, []
    for item in items:
        if isinstance(item, tuple) and item[0] == "test":
            token = item[1]
            if test_name is not None:
                raise _error("repeated 'test' line (a file holds one test)", token.line, token.column - 5, lines, path)
            test_name = str(token)
        elif isinstance(item, tuple) and item[0] == "init":
            _, loc, value = item
            if str(loc) in init:
                raise _error(f"repeated 'init' of location '{loc}'", loc.line, loc.column, lines, path)
            init[str(loc)] = value
        else:
            threads.append(item)
    if not threads:
        last, _ = _end_position(lines)
        raise _error("the test has no threads (expected 'thread 0')", last, 1, lines, path)
    built = [_build_thread(index, thread, lines, path) for index, thread in enumerate(threads)]
    stem = Path(path).stem if path and not path.startswith("<") else "test"
    return Program(
        name=name or test_name or stem,
        threads=tuple(code for code, _ in built),
        init=tuple(sorted(init.items())),
        spans=tuple(Span(t[0].line, t[0].column) for t in threads),
        instr_spans=tuple(spans for _, spans in built),
    )


def _build_thread(index: int, thread, lines, path) -> tuple[tuple[Instr, ...], tuple[Span, ...]]:
    keyword_id, instrs = thread
    if int(keyword_id) != index:
        raise _error(f"expected 'thread {index}' here (threads are numbered 0, 1, 2... in order), "
                     f"found thread {int(keyword_id)}", keyword_id.line, keyword_id.column, lines, path)
    if not instrs:
        raise _error(f"thread {index} is empty (a thread needs at least one instruction)",
                     keyword_id.line, keyword_id.column, lines, path)
    n = len(instrs)
    result, spans = [], []
    for span, loc, cmp, (kind, text, (line, column)), xchg, val in instrs:
        target = n if kind == "END" else int(text)
        if target > n:
            raise _error(f"target {target} is out of range: thread {index} has {n} instruction(s), "
                         f"so targets are 0..{n} or 'end'", line, column, lines, path)
        result.append(Instr(loc, cmp, target, xchg, val))
        spans.append(span)
    return tuple(result), tuple(spans)


def _syntax_error(err: UnexpectedInput, lines: list[str], path: str) -> InputError:
    line = getattr(err, "line", -1)
    column = getattr(err, "column", -1)
    if isinstance(err, UnexpectedEOF) or line is None or line < 1:
        line, column = _end_position(lines)
        return _error("unexpected end of input", line, column, lines, path)
    if isinstance(err, UnexpectedCharacters):
        bad = lines[line - 1][column - 1] if line - 1 < len(lines) and column - 1 < len(lines[line - 1]) else "?"
        return _error(f"unexpected character {bad!r}", line, column, lines, path)
    if isinstance(err, UnexpectedToken):
        found = err.token
        what = "end of input" if found.type == "$END" else repr(str(found))
        expected = sorted({_TOKEN_NAMES.get(t, t) for t in err.expected})
        return _error(f"unexpected {what}; expected {_one_of(expected)}", line, column, lines, path)
    return _error(str(err).splitlines()[0], line, column, lines, path)


def _lines(text: str) -> list[str]:
    """Source lines as the scanner counts them: only "\\n" ends a line."""
    return [line.rstrip("\r") for line in text.split("\n")]


def _end_position(lines: list[str]) -> tuple[int, int]:
    """Just after the last non-blank line (where "unexpected end of input" points)."""
    for number in range(len(lines), 0, -1):
        if lines[number - 1].strip():
            return number, len(lines[number - 1].rstrip()) + 1
    return 1, 1


def _one_of(options: list[str]) -> str:
    return options[0] if len(options) == 1 else "one of " + ", ".join(options)


def _error(message: str, line: int, column: int, lines: list[str], path: str) -> InputError:
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return InputError(message, SourcePosition(path, line, max(column, 1), text))
