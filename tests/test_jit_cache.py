"""numba's on-disk cache shared between processes: progress.jit serializes
the saves (read the index, pick a data-file name, rewrite the index), so a
process saving a new signature waits while another holds the cache's lock,
and every signature saved is found again by a fresh process."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import progress.jit as jit

SOURCE = """
from progress.jit import njit

@njit(cache=True)
def plus_one(x):
    return x + 1
"""

CALL = """
import sys
sys.path.insert(0, sys.argv[1])
import cached
value = cached.plus_one({arg})
print(repr(value), cached.plus_one.stats.cache_hits.get(cached.plus_one.signatures[0], 0))
"""


def _python(tmp_path: Path, arg: str, cache: Path) -> subprocess.Popen:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    code = CALL.format(arg=arg)
    return subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_this_numba_has_the_save_that_is_serialized():
    assert jit.SHARED_CACHE_SAFE  # a numba without IndexDataCacheFile.save would need one cache per process again


@pytest.mark.long
def test_a_save_waits_for_the_lock_and_every_signature_is_found_again(tmp_path):
    (tmp_path / "cached.py").write_text(SOURCE)
    cache = tmp_path / "cache"
    first = _python(tmp_path, "1", cache)
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert out.split()[0] == "2"
    (index,) = cache.rglob("*plus_one*.nbi")
    before = index.read_bytes()
    with open(index.parent / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        second = _python(tmp_path, "1.5", cache)  # a new signature: a save
        time.sleep(3)
        assert second.poll() is None, second.communicate()  # waiting for the lock, not done
        assert index.read_bytes() == before
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert out.split()[0] == "2.5"
    assert len(list(index.parent.glob("*plus_one*.nbc"))) == 2
    for arg, want in (("1", "2"), ("1.5", "2.5")):  # both signatures load from the cache, each its own code
        again = _python(tmp_path, arg, cache)
        out, err = again.communicate(timeout=120)
        assert again.returncode == 0, err
        assert out.split() == [want, "1"]
