"""WGSL source as tokens with positions: enough to find statements, no more.

WGSL has no preprocessor and no string literals, so a token is an
identifier or keyword, a number, or one punctuation character; blanks,
`// line` comments and `/* block */` comments (which nest) are skipped.
Numbers are read loosely (digits, letters, `_` and `.` after a digit or a
leading `.digit`): naga reads them properly, this module only steps over
them. Lines are counted at "\\n" as everywhere in the project, columns in
characters from 1. An unterminated block comment ends the tokens (naga then
reports it). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Token:
    """`text` at character `offset`, on `line` (1-based) at `column` (1-based)."""

    text: str
    offset: int
    line: int
    column: int


def tokens(source: str) -> list[Token]:
    """The tokens of `source` (see the module's contract)."""
    found: list[Token] = []
    at, line, line_start, end = 0, 1, 0, len(source)
    while at < end:
        char = source[at]
        if char == "\n":
            at, line, line_start = at + 1, line + 1, at + 1
        elif char.isspace():
            at += 1
        elif source.startswith("//", at):
            newline = source.find("\n", at)
            at = end if newline < 0 else newline
        elif source.startswith("/*", at):
            closed, lines, last_newline = _block_comment_end(source, at)
            if closed < 0:
                break
            if lines:
                line, line_start = line + lines, last_newline + 1
            at = closed
        else:
            stop = _token_end(source, at)
            found.append(Token(source[at:stop], at, line, at - line_start + 1))
            at = stop
    return found


def _block_comment_end(source: str, at: int) -> tuple[int, int, int]:
    """(offset after the comment opened at `at` or -1, newlines inside, offset of the last one)."""
    depth, lines, last_newline, end = 0, 0, -1, len(source)
    while at < end:
        if source.startswith("/*", at):
            depth, at = depth + 1, at + 2
        elif source.startswith("*/", at):
            depth, at = depth - 1, at + 2
            if depth == 0:
                return at, lines, last_newline
        else:
            if source[at] == "\n":
                lines, last_newline = lines + 1, at
            at += 1
    return -1, lines, last_newline


def _token_end(source: str, at: int) -> int:
    char = source[at]
    if _word_char(char) and not char.isdigit():
        stop = at + 1
        while stop < len(source) and _word_char(source[stop]):
            stop += 1
        return stop
    if char.isdigit() or (char == "." and at + 1 < len(source) and source[at + 1].isdigit()):
        stop = at + 1
        while stop < len(source) and (_word_char(source[stop]) or source[stop] == "."):
            stop += 1
        return stop
    return at + 1


def _word_char(char: str) -> bool:
    return char == "_" or char.isalnum() or (ord(char) > 0x7F and not char.isspace())
