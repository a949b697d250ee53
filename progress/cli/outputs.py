"""Writing results: missing directories are made, and a failure to write is a
usage error (exit 2) naming the path, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import UsageError


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
