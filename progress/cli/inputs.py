"""Turn command-line paths into test files and Programs.

A path is a `.axb` file, a directory (every `.axb` below it, sorted; a
directory without any is an error), or `@FILE`: a list of paths, one per line
(`#` comments allowed), relative to the list's directory.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path

from progress.core.program import Program
from progress.errors import InputError, SourcePosition
from progress.front.axb.parse import parse_program

_DIGITS = re.compile(r"(\d+)")

STDIN = Path("-")
"""The path `-`: the test is read from standard input (once)."""

AXB_SUFFIXES = (".axb",)
KERNEL_SUFFIXES = (".comp", ".glsl", ".hlsl", ".wgsl", ".spv", ".spvasm", ".spv.dis")
"""A kernel: GLSL (`.comp`, `.glsl`, so `.comp.glsl` too), HLSL or WGSL compute shader source, SPIR-V
binary or assembly (`.spv.dis`: spirv-dis's text, as Dat3M names its tests) (`progress check` only); a
name ends with one."""


def expand(paths: list[str]) -> list[Path]:
    """Every test file named by `paths`, in order, without repeats; the first
    bad path raises its InputError."""
    found: list[Path] = []
    for item in expand_each(paths):
        if isinstance(item, InputError):
            raise item
        found.append(item)
    return found


def expand_each(paths: list[str], suffixes: tuple[str, ...] = AXB_SUFFIXES) -> list[Path | InputError]:
    """Like `expand`, but a bad path becomes its InputError in the list, so a
    batch can report it and go on; directories give their files with these `suffixes`."""
    return [Path(item) if isinstance(item, str) else item for item in expand_names(paths, suffixes)]


def expand_names(paths: list[str], suffixes: tuple[str, ...] = AXB_SUFFIXES) -> list[str | InputError]:
    """`expand_each` with each file as the text of its Path (`str(Path(...))`,
    `-` for standard input): a 341,727-test export is listed without building
    a Path per file (2.4 s). Equal Paths have equal texts here (POSIX)."""
    found: dict[str | InputError, None] = {}
    for raw in paths:
        try:
            for path in _expand_one(raw, (), suffixes):
                found.setdefault(path, None)
        except InputError as error:
            found[error] = None
    return list(found)


def _expand_one(raw: str, lists: tuple[Path, ...], suffixes: tuple[str, ...] = AXB_SUFFIXES) -> list[str | InputError]:
    """`raw`'s test files; `lists` are the @list files being expanded around it
    (a list naming itself, directly or not, is a cycle)."""
    if not raw.strip():
        raise InputError("an empty path names no test (it is not the current directory)")
    if raw == "-":
        return [str(STDIN)]
    if raw.startswith("@"):
        return _expand_list(Path(raw[1:]), lists, suffixes)
    path = Path(raw)
    if path.is_dir():
        return _walk(path, raw, suffixes)
    if not path.exists():
        raise InputError(f"no such file or directory: {raw}")
    return [str(path)]


def _walk(directory: Path, raw: str, suffixes: tuple[str, ...] = AXB_SUFFIXES) -> list[str | InputError]:
    """Every `*.axb` file (or other `suffixes`) below `directory` (symbolic links to directories are
    not followed), in natural order; a subdirectory that cannot be read is an
    InputError in the list, after the files, never silently skipped."""
    files: list[str] = []
    keys: list[str] = []
    errors: list[InputError] = []

    def unreadable(error: OSError) -> None:
        errors.append(InputError(f"cannot read directory {error.filename}: {error.strerror or error}"))

    for folder, subfolders, names in os.walk(directory, onerror=unreadable):
        subfolders.sort()
        prefix = str(Path(folder) / "x")[:-1]  # what `Path(folder) / name` writes before the name
        folder_key = _natural_key(prefix)[:-1]  # the prefix ends with a separator: see _natural_key
        for name in names:
            if name.endswith(suffixes):
                files.append(prefix + name)
                keys.append(folder_key + _natural_key(name))
    if not files and not errors:
        kinds = ".axb" if suffixes == AXB_SUFFIXES else ".axb or kernel (" + ", ".join(suffixes[1:]) + ")"
        raise InputError(f"no {kinds} files in directory {raw}")
    order = sorted(range(len(files)), key=keys.__getitem__)
    return [*(files[i] for i in order), *errors]


def _expand_list(
    listing: Path, lists: tuple[Path, ...] = (), suffixes: tuple[str, ...] = AXB_SUFFIXES
) -> list[str | InputError]:
    """The list's files in order; a bad entry becomes its InputError (positioned
    in the list when it does not exist, or when it is an @list that is already
    being expanded: a cycle) and the other entries still count. An entry
    `@OTHER` is a further list, relative to this list's directory."""
    key = Path(os.path.realpath(listing))
    text = read_text(listing)
    result: list[str | InputError] = []
    entries = 0
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        entries += 1
        nested = entry.startswith("@")
        target = listing.parent / (entry[1:] if nested else entry)
        position = SourcePosition(str(listing), number, line.index(entry) + 1, line)
        if not target.exists():
            result.append(InputError(f"no such file or directory: {entry}", position))
            continue
        if nested and Path(os.path.realpath(target)) in (*lists, key):
            result.append(InputError(f"the list {entry} names itself (a cycle of @lists)", position))
            continue
        try:
            result += _expand_one(("@" if nested else "") + str(target), (*lists, key), suffixes)
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


def _natural_key(text: str) -> str:
    """`_natural(text)` as one string that sorts the same (strings compare in
    C, lists of mixed parts in Python: 3.7 s against 0.3 s for an export):
    each text part ends with NUL (no path holds one, so a shorter part sorts
    first), each number is its length (as one character) then its digits.
    The key of a text ending in a non-digit, less its final NUL, followed by
    the key of a further text, is the key of the two texts joined."""
    stem = text[:-4]
    if text.endswith(".axb") and stem.isascii() and stem.isdigit():  # the common `123.axb`
        digits = stem.lstrip("0") or "0"
        return "\0" + chr(len(digits) + 1) + digits + ".axb\0"
    parts = _DIGITS.split(text)
    for i in range(1, len(parts), 2):
        digits = str(int(parts[i]))
        parts[i] = chr(len(digits) + 1) + digits
    parts[0::2] = [part + "\0" for part in parts[0::2]]
    return "".join(parts)


MAX_BYTES = 64 * 1024 * 1024
"""No input the tool reads is near this size; a larger file is refused, not loaded."""


def read_bytes(path: Path | str) -> bytes:
    """A file's bytes (standard input for `-`), regular files only, at most MAX_BYTES."""
    try:
        data = sys.stdin.buffer.read(MAX_BYTES + 1) if _is_stdin(path) else _read_regular(path)
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror or error}") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"cannot read {path}: larger than {MAX_BYTES // (1024 * 1024)} MiB")
    return data


def read_text(path: Path | str) -> str:
    """A file's text as UTF-8 (standard input for `-`), or an InputError saying
    why it cannot be read. Only regular files are read: a FIFO, device or
    socket is refused without blocking on it."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line_start = data.rfind(b"\n", 0, error.start) + 1
        line_end = data.find(b"\n", error.start)
        shown = data[line_start : None if line_end < 0 else line_end].decode("utf-8", "replace").rstrip("\r")
        column = len(data[line_start : error.start].decode("utf-8", "replace")) + 1
        raise InputError(
            f"not UTF-8 text (byte 0x{data[error.start]:02x})",
            SourcePosition(display(path), data[: error.start].count(b"\n") + 1, column, shown),
        ) from None


def _is_stdin(path: Path | str) -> bool:
    return os.fspath(path) == "-"


def _read_regular(path: Path | str) -> bytes:
    """Open without blocking (a FIFO would wait for a writer), then refuse
    anything but a regular file; read at most MAX_BYTES + 1 bytes. The first
    read asks for the file's size plus one: asking for MAX_BYTES + 1 at once
    would allocate that much per file (30 us a file where 300,000 are read);
    a file that grew meanwhile fills it and is read on."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        kind = os.fstat(descriptor)
        if not stat.S_ISREG(kind.st_mode):
            raise InputError(f"cannot read {path}: not a regular file ({_kind(kind.st_mode)})")
        chunks, total = [], 0
        want = min(kind.st_size, MAX_BYTES) + 1
        while total <= MAX_BYTES:
            chunk = os.read(descriptor, want)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if len(chunk) < want:
                break  # a short read of a regular file is its end: no further read to see it (1 us a file)
            want = min(1 << 16, MAX_BYTES + 1 - total)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "a directory" if stat.S_ISDIR(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file"


def display(path: Path | str) -> str:
    """How a path is named in output and errors (`<stdin>` for `-`)."""
    return "<stdin>" if _is_stdin(path) else os.fspath(path)


def load(path: Path | str) -> Program:
    return parse_program(read_text(path), display(path))


def suite_names(paths: list[str], files: list[Path] | list[str]) -> list[str]:
    """Each file's path relative to the inputs' common directory (a directory
    argument counts as itself, a file or @list entry as its directory), with `/`."""
    anchors: dict[str, None] = {}
    for raw in paths:
        path = Path(raw)
        if not raw.startswith("@") and path.is_dir():
            anchors[os.path.abspath(path)] = None
        else:
            for f in expand_names([raw]):
                if isinstance(f, str):
                    anchors[os.path.abspath(os.path.dirname(f))] = None
    root = os.path.commonpath(list(anchors)) if anchors else os.getcwd()
    return [_relative(full, root) for full in _absolute(files)]


def _absolute(files: list[Path] | list[str]) -> list[str]:
    """`os.path.abspath` of each file, worked out once per folder: the
    absolute folder, then the name (which normalizing leaves alone)."""
    folders: dict[str, str] = {}
    out = []
    for f in files:
        text = os.fspath(f)
        cut = text.rfind(os.sep) + 1
        name = text[cut:]
        if os.altsep or name in ("", ".", ".."):
            out.append(os.path.abspath(text))
            continue
        head = text[:cut]
        folder = folders.get(head)
        if folder is None:
            folder = os.path.abspath(head)
            folder = folders[head] = folder if folder.endswith(os.sep) else folder + os.sep
        out.append(folder + name)
    return out


def _relative(full: str, root: str) -> str:
    """`full` relative to `root` (both absolute and normalized), with `/`;
    a file below `root` is a slice of its path (relpath costs microseconds,
    300,000 times in a big suite)."""
    prefix = root if root.endswith(os.sep) else root + os.sep
    if os.sep == "/" and full.startswith(prefix):
        return full[len(prefix) :]
    return Path(os.path.relpath(full, root)).as_posix()
