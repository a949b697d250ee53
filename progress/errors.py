"""The project's one error hierarchy.

Each error knows its exit status and how to render itself; the CLI is the one
place that catches them. Exit statuses: 0 guaranteed to terminate / all
expectations met, 1 may not terminate / mismatch, 2 bad input or usage,
3 inconclusive (state bound or time limit).
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_INCONCLUSIVE = 3


class ProgressError(Exception):
    """Base class: every error the project raises on purpose."""

    exit_code = EXIT_USAGE

    def render(self) -> str:
        return f"error: {self}"


@dataclass(frozen=True)
class SourcePosition:
    """A 1-based line and column in a named source; `text` is the whole line."""

    path: str
    line: int
    column: int
    text: str = ""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


class InputError(ProgressError):
    """Bad input, with the position it was found at (exit 2)."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, position: SourcePosition | None = None):
        super().__init__(message)
        self.message = message
        self.position = position

    def render(self) -> str:
        if self.position is None:
            return f"error: {self.message}"
        pos = self.position
        lines = [f"{pos}: error: {self.message}"]
        if pos.text:
            shown = pos.text.rstrip("\n").expandtabs(1)
            lines.append(f"    {shown}")
            lines.append("    " + " " * (max(pos.column, 1) - 1) + "^")
        return "\n".join(lines)


class UsageError(ProgressError):
    """A bad command line or option value (exit 2)."""

    exit_code = EXIT_USAGE


class Inconclusive(ProgressError):
    """A search stopped by a bound before it could decide (exit 3)."""

    exit_code = EXIT_INCONCLUSIVE

    def __init__(self, reason: str, states: int = 0):
        super().__init__(reason)
        self.reason = reason
        self.states = states
