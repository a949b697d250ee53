"""Writing results: missing directories are made, and a failure to write is a
usage error (exit 2) naming the path, never a traceback; the same for
standard output (GuardedStream, finish_output)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from progress.errors import UsageError


@contextmanager
def writing(path: Path) -> Iterator[Path]:
    """Make `path`'s directory; an OSError in the block (writing `path` or
    files beside it) becomes a UsageError naming `path`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot make directory {path.parent}: {error.strerror or error}") from None
    try:
        yield path
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None


def write_file(path: Path, data: str | bytes) -> None:
    """Write text (as UTF-8) or bytes to `path`."""
    with writing(path):
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")


class LineWriter:
    """A text file (UTF-8) written piece by piece, each piece flushed at once so
    an interrupted command keeps it. Every OSError (opening, writing, closing)
    is a UsageError naming this file; after an error the file is closed
    without raising again. A context manager."""

    def __init__(self, path: Path, append: bool = False):
        self.path = path
        with writing(path):
            self.file = path.open("a" if append else "w", encoding="utf-8", newline="")

    def write(self, text: str) -> None:
        with writing(self.path):
            self.file.write(text)
            self.file.flush()

    def __enter__(self) -> LineWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is None:
            with writing(self.path):
                self.file.close()
            return
        try:
            self.file.close()
        except OSError:  # the error being raised already says what went wrong
            pass


def write_stdout(data: str | bytes) -> None:
    """Write text (as UTF-8) or bytes to standard output and flush it; a failure
    (a full disk, a closed pipe, /dev/full) is a UsageError, and standard
    output is pointed at /dev/null so that Python's exit does not fail again."""
    try:
        if isinstance(data, str):
            sys.stdout.write(data)
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        sys.stdout.flush()
    except OSError as error:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):  # no real file descriptor (a test's capture)
            pass
        raise UsageError(f"cannot write standard output: {error.strerror or error}") from None


class OutputError(UsageError):
    """Standard output cannot be written (a full disk, a closed pipe): exit 2."""


class GuardedStream:
    """Standard output with its write failures named: an OSError from write,
    writelines or flush (also through `.buffer`, for bytes) becomes an
    OutputError, so `progress ... > /dev/full` is exit 2 with one line, not a
    traceback. Everything else is the wrapped stream's."""

    def __init__(self, stream: Any, name: str = "standard output") -> None:
        self._stream = stream
        self._name = name

    def _guard(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self._stream, method)(*args)
        except OSError as error:
            raise OutputError(f"cannot write {self._name}: {error.strerror or error}") from None

    def write(self, data: Any) -> Any:
        return self._guard("write", data)

    def writelines(self, lines: Any) -> Any:
        return self._guard("writelines", lines)

    def flush(self) -> Any:
        return self._guard("flush")

    @property
    def buffer(self) -> GuardedStream:
        return GuardedStream(self._stream.buffer, self._name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def finish_output(stream: Any) -> OutputError | None:
    """Flush standard output at the end of a command. On failure, point file
    descriptor 1 at /dev/null (so the interpreter's own flush at exit cannot
    fail again and print a traceback) and return the error to report."""
    try:
        stream.flush()
    except OutputError as error:
        failed = error
    except OSError as error:
        failed = OutputError(f"cannot write standard output: {error.strerror or error}")
    else:
        return None
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass
    return failed
