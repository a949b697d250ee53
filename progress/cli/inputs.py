"""Turn command-line paths into test files and Programs.

A path is a `.axb` file, a directory (every `.axb` below it, sorted; a
directory without any is an error), or `@FILE`: a list of paths, one per line
(`#` comments allowed), relative to the list's directory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import InputError, SourcePosition
from ..parse import parse_program
from ..program import Program

_DIGITS = re.compile(r"(\d+)")


def expand(paths: list[str]) -> list[Path]:
    """Every test file named by `paths`, in order, without repeats; the first
    bad path raises its InputError."""
    found = expand_each(paths)
    for item in found:
        if isinstance(item, InputError):
            raise item
    return found


def expand_each(paths: list[str]) -> list[Path | InputError]:
    """Like `expand`, but a bad path becomes its InputError in the list, so a
    batch can report it and go on."""
    found: dict[Path | InputError, None] = {}
    for raw in paths:
        try:
            for path in _expand_one(raw):
                found.setdefault(path, None)
        except InputError as error:
            found[error] = None
    return list(found)


def _expand_one(raw: str) -> list[Path | InputError]:
    if not raw.strip():
        raise InputError("an empty path names no test (it is not the current directory)")
    if raw.startswith("@"):
        return _expand_list(Path(raw[1:]))
    path = Path(raw)
    if path.is_dir():
        found = sorted(path.rglob("*.axb"), key=_natural)
        if not found:
            raise InputError(f"no .axb files in directory {raw}")
        return found
    if not path.exists():
        raise InputError(f"no such file or directory: {raw}")
    return [path]


def _expand_list(listing: Path) -> list[Path | InputError]:
    """The list's files in order; a bad entry becomes its InputError (positioned
    in the list when it does not exist) and the other entries still count."""
    text = read_text(listing)
    result: list[Path | InputError] = []
    entries = 0
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        entries += 1
        target = listing.parent / entry
        if not target.exists():
            result.append(
                InputError(
                    f"no such file or directory: {entry}",
                    SourcePosition(str(listing), number, line.index(entry) + 1, line),
                )
            )
            continue
        try:
            result += _expand_one(str(target))
        except InputError as error:
            result.append(error)
    if not entries:
        raise InputError(f"the list {listing} names no test")
    return result


def _natural(path: Path) -> list:
    """Sort `2.axb` before `10.axb`: text and numbers alternate, text first,
    so keys always compare text with text and numbers with numbers."""
    parts = _DIGITS.split(str(path))
    parts[1::2] = map(int, parts[1::2])
    return parts


def read_text(path: Path) -> str:
    """A file's text as UTF-8, or an InputError saying why it cannot be read."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line_start = data.rfind(b"\n", 0, error.start) + 1
        line_end = data.find(b"\n", error.start)
        shown = data[line_start : None if line_end < 0 else line_end].decode("utf-8", "replace").rstrip("\r")
        column = len(data[line_start : error.start].decode("utf-8", "replace")) + 1
        raise InputError(
            f"not UTF-8 text (byte 0x{data[error.start]:02x})",
            SourcePosition(str(path), data[: error.start].count(b"\n") + 1, column, shown),
        ) from None


def load(path: Path) -> Program:
    return parse_program(read_text(path), str(path))


def suite_names(paths: list[str], files: list[Path]) -> list[str]:
    """Each file's path relative to the inputs' common directory (a directory
    argument counts as itself, a file or @list entry as its directory), with `/`."""
    anchors = []
    for raw in paths:
        path = Path(raw)
        if not raw.startswith("@") and path.is_dir():
            anchors.append(os.path.abspath(path))
        else:
            anchors += [os.path.abspath(f.parent) for f in expand([raw])]
    root = os.path.commonpath(anchors) if anchors else os.getcwd()
    return [Path(os.path.relpath(os.path.abspath(f), root)).as_posix() for f in files]
