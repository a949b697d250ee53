"""Source text helpers shared by the parsers: lines, positions, errors."""

from __future__ import annotations

from progress.errors import InputError, SourcePosition


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


CAP = 10**12
"""Larger than every limit a number in a test is checked against (values,
targets, thread ids, locations), and small enough to convert."""


def bounded_int(digits: str) -> int:
    """The value of a string of decimal digits, or CAP when it is larger:
    every range check then refuses it as too large, and a number of any
    length (Python refuses to convert more than 4300 digits) never raises."""
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= 12 else CAP


def shown_number(digits: str) -> str:
    """A number as written, shortened when long enough to flood a message."""
    return digits if len(digits) <= 24 else f"{digits[:10]}...({len(digits)} digits)"
