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

import fcntl
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


def serialize_cache_saves() -> bool:
    """Make numba's cache saves safe between processes; False where this numba
    has no such method to wrap (then two processes must not share a cache).

    numba saves a compiled signature by reading the function's index file,
    picking the first data-file name the index does not list, and rewriting
    the index, without a lock: two processes that save two signatures of one
    function at the same moment both pick `name.1.nbc`, and the index can then
    name the other signature's code. Each save here holds an exclusive
    `flock` on `.lock` in the cache's folder, so the read-pick-write is atomic
    among the processes that share it (`progress synth`'s workers, the test
    suite's). Loads take no lock: numba writes both files by rename."""
    from numba.core import caching

    cache_file = getattr(caching, "IndexDataCacheFile", None)
    original = getattr(cache_file, "save", None)
    if original is None:
        return False
    if getattr(original, "serialized", False):
        return True

    def save(self: caching.IndexDataCacheFile, key: object, data: object) -> None:
        with open(os.path.join(self._cache_path, ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            original(self, key, data)

    save.serialized = True  # type: ignore[attr-defined]
    cache_file.save = save  # type: ignore[union-attr]
    return True


_directory = cache_dir()
if _directory is not None:
    numba.config.CACHE_DIR = str(_directory)  # type: ignore[attr-defined]
SHARED_CACHE_SAFE = serialize_cache_saves()
"""Whether processes may share one cache directory (see serialize_cache_saves)."""

__all__ = ["njit"]
