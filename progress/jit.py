"""The one owner of numba (compiled loops for the synthesis judge and the
batch classifier).

Import this module only on paths that need compiled code: it costs about half
a second of start-up, which the `progress check` path must never pay
(tests/test_check_imports.py).

Compiled code is cached on disk (`cache=True`) in a directory named after a
hash of every source file that defines compiled functions
(`cache.compiled_sources_stamp`), under `$NUMBA_CACHE_DIR` when set, else
under the tool's private cache (`cache.cache_root()/numba`). numba checks a
cached function only against its own file, so a function that calls or
inlines one from another file (fast_judge -> lanes) would otherwise keep the
old callee after an edit of that file alone. Where no such directory can
be made (a read-only home), numba keeps its own default; one that another
user could write is refused (`cache.UnsafeCache`, exit 2).
"""

import os
from pathlib import Path

import numba
from numba import njit

from progress.cache import CacheUnavailable, cache_root, compiled_sources_stamp, private_dir


def cache_dir() -> Path | None:
    """Where compiled code is cached (see the module docstring); None: numba's default."""
    given = os.environ.get("NUMBA_CACHE_DIR", "")
    try:
        base = Path(given) if given else private_dir(private_dir(cache_root()) / "numba")
        return private_dir(base / compiled_sources_stamp())
    except CacheUnavailable:
        return None


_directory = cache_dir()
if _directory is not None:
    numba.config.CACHE_DIR = str(_directory)  # type: ignore[attr-defined]

__all__ = ["njit"]
