"""Per-user private cache directories, and the files the tool may trust in them.

The cache lives in `$XDG_CACHE_HOME/progress` (an absolute `XDG_CACHE_HOME`
only, as the XDG spec says) or `~/.cache/progress`, never in the shared temp
directory: a directory there can be created first by another local user, who
could then plant files the tool would read or execute.

Contract:

- `private_dir(path)` makes `path` (parents as needed) with mode 0700 and
  then checks it: it must be a directory (not a symlink), owned by the
  invoking user, and not writable by group or others. Anything else is an
  `UnsafeCache` error (exit 2) naming the directory and the fix; the tool
  never repairs or uses such a directory.
- `trusted_file(path)` says whether an existing entry may be used: a regular
  file (not a symlink) owned by the user and not writable by group or
  others. An entry failing it is never opened or executed.
- `install(built, target)` moves a file built in a temporary directory of
  the same cache into place atomically (`os.replace`) after making it 0700,
  so a reader sees either no entry or a complete one.
"""

from __future__ import annotations

import hashlib
import os
import stat
from functools import lru_cache
from pathlib import Path

from progress.errors import ProgressError

UNSAFE_BITS = stat.S_IWGRP | stat.S_IWOTH


class UnsafeCache(ProgressError):
    """A cache directory or entry that another user could have written (exit 2)."""


class CacheUnavailable(UnsafeCache):
    """A cache directory that cannot be made at all (a read-only home, say)."""


def cache_root() -> Path:
    """`$XDG_CACHE_HOME/progress`, else `~/.cache/progress`."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "progress"


def private_dir(path: Path) -> Path:
    """Make `path` with mode 0700 if it is missing, then check it (see the module's contract)."""
    try:
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        except FileExistsError:  # a file or a dangling symlink: said below
            pass
        info = os.lstat(path)
    except OSError as error:
        raise CacheUnavailable(f"cannot make the cache directory {path}: {error.strerror or error}") from None
    problem = _problem(info, directory=True)
    if problem:
        raise UnsafeCache(
            f"refusing the cache directory {path}: it {problem}; another user could plant files in it. "
            f"Fix: remove it (rm -r '{path}') so it is made again with mode 0700, or set XDG_CACHE_HOME "
            "to a directory of your own"
        )
    return path


def trusted_file(path: Path) -> bool:
    """True iff `path` exists and is a regular file only the user can write."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    return not _problem(info, directory=False)


def check_entry(path: Path) -> None:
    """Raise UnsafeCache if an existing entry is not `trusted_file`."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    problem = _problem(info, directory=False)
    if problem:
        raise UnsafeCache(
            f"refusing the cache entry {path}: it {problem}. Fix: remove it (rm -f '{path}') and run again"
        )


def install(built: Path, target: Path) -> None:
    """Make `built` 0700 and move it to `target` atomically (same directory tree)."""
    os.chmod(built, 0o700)
    os.replace(built, target)


def _problem(info: os.stat_result, directory: bool) -> str:
    """Why a file with this lstat result cannot be trusted ('' if it can)."""
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if directory and not stat.S_ISDIR(info.st_mode):
        return "is not a directory"
    if not directory and not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_uid != os.getuid():
        return f"is owned by uid {info.st_uid}, not by you (uid {os.getuid()})"
    if info.st_mode & UNSAFE_BITS:
        return f"is writable by group or others (mode {stat.S_IMODE(info.st_mode):04o})"
    return ""


COMPILED_MARKER = b"jit import njit"
"""How a module that defines compiled functions imports numba (progress/jit.py)."""


def package_dirs() -> list[Path]:
    """The directories of `progress`, `progress.synth` and `progress.models` (found without importing them)."""
    import importlib.util

    here = Path(__file__).resolve().parent
    dirs = [here]
    for name in ("progress.synth", "progress.models"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            dirs += [Path(p).resolve() for p in spec.submodule_search_locations]
    return dirs


def sources_stamp(files: list[Path]) -> str:
    """A hash of the names and contents of `files` (16 hex digits)."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@lru_cache(maxsize=1)
def compiled_sources_stamp() -> str:
    """`sources_stamp` of every package module that defines compiled functions (layer folders included)."""
    here = Path(__file__).resolve()
    found = {p.resolve() for d in package_dirs() for p in d.rglob("*.py")}
    return sources_stamp(sorted(p for p in found if p != here and COMPILED_MARKER in p.read_bytes()))
