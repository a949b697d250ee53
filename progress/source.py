"""Source text helpers shared by the parsers: lines, positions, errors."""

from __future__ import annotations

from .errors import InputError, SourcePosition


def source_lines(text: str) -> list[str]:
    """Source lines as the scanners count them: only "\\n" ends a line."""
    return [line.rstrip("\r") for line in text.split("\n")]


def end_position(lines: list[str]) -> tuple[int, int]:
    """Just after the last non-blank line (where "unexpected end of input" points)."""
    for number in range(len(lines), 0, -1):
        if lines[number - 1].strip():
            return number, len(lines[number - 1].rstrip()) + 1
    return 1, 1


def error_at(message: str, line: int, column: int, lines: list[str], path: str) -> InputError:
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return InputError(message, SourcePosition(path, line, max(column, 1), text))
