"""The project's one error hierarchy.

Each error knows its exit status and how to render itself; the CLI is the one
place that catches them. Exit statuses: 0 guaranteed to terminate / all
expectations met, 1 may not terminate / mismatch, 2 bad input or usage,
3 inconclusive (state bound or time limit); 70 an internal error (a bug,
caught by the CLI's last-resort handler, never a verdict).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_INCONCLUSIVE = 3
EXIT_INTERNAL = 70  # EX_SOFTWARE: an unexpected exception, a bug; never 0-3


class ProgressError(Exception):
    """Base class: every error the project raises on purpose."""

    exit_code = EXIT_USAGE

    def render(self) -> str:
        return f"error: {printable(str(self))}"


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
            return f"error: {printable(self.message)}"
        pos = self.position
        lines = [f"{printable(str(pos))}: error: {printable(self.message)}"]
        if pos.text:
            text = pos.text.rstrip("\n").expandtabs(1)
            lines.append(f"    {printable(text, newlines=False)}")
            before = printable(text[: max(pos.column, 1) - 1], newlines=False)
            lines.append("    " + " " * len(before) + "^")
        return "\n".join(lines)


class InputErrors(InputError):
    """Several problems of one input, each an InputError at its own position:
    rendered one after the other; `message` and `position` are the first's,
    with the others listed after it (for a reader that shows one message)."""

    SHOWN = 50
    """Problems rendered in full at most; the rest are counted."""

    def __init__(self, errors: list[InputError]):
        assert errors
        first, rest = errors[0], errors[1:]
        also = "; ".join(f"{e.position}: {e.message}" if e.position else e.message for e in rest[: self.SHOWN])
        more = f" (and {len(rest) - self.SHOWN} more)" if len(rest) > self.SHOWN else ""
        super().__init__(first.message + (f"; also {also}{more}" if rest else ""), first.position)
        self.errors = tuple(errors)

    @classmethod
    def joined(cls, errors: list[InputError], files: tuple[str, ...] = ()) -> InputError:
        """One error of every problem in `errors` (InputErrors flattened): the located
        ones in source order (file: those of `files` in its order, say a kernel and then
        what it includes, then the others by name; line; on one line, as given), then the
        unlocated ones as given; each problem once. A single problem is returned as itself."""
        flat: list[InputError] = []
        for error in errors:
            flat += list(error.errors) if isinstance(error, InputErrors) else [error]
        unique = list({(str(e.position), e.message): e for e in flat}.values())
        rank = {file: at for at, file in enumerate(files)}

        def order(error: InputError) -> tuple[int, str, int]:
            position = error.position
            assert position is not None
            return (rank.get(position.path, len(rank)), position.path, position.line)

        located = sorted((e for e in unique if e.position), key=order)
        found = located + [e for e in unique if e.position is None]
        return found[0] if len(found) == 1 else cls(found)

    def render(self) -> str:
        shown = [error.render() for error in self.errors[: self.SHOWN]]
        if len(self.errors) > self.SHOWN:
            shown.append(f"error: and {len(self.errors) - self.SHOWN} more problems")
        if len(self.errors) > 1:
            shown.append(f"{len(self.errors)} problems")
        return "\n".join(shown)


_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_OR_NEWLINE = re.compile(_CONTROL.pattern[:-1] + "\n]")


def printable(text: str, newlines: bool = True) -> str:
    """`text` safe to show on a terminal: C0 and C1 control characters, DEL
    and the bidirectional overrides become `\\xNN` / `\\uNNNN` escapes, so a
    test file or a file name cannot move the cursor, ring the bell, change
    colours or reorder what is shown. Line breaks are kept when `newlines`
    (a message may span lines) and escaped otherwise (one source line)."""
    pattern = _CONTROL if newlines else _CONTROL_OR_NEWLINE
    return pattern.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


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
