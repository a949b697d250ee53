"""Attacks on the files the tool trusts and on the terminal it prints to.

The CPU backend's compile cache must be private to the user (another local
user must not be able to plant an executable the tool then runs), and error
messages must not pass a test file's control characters to the terminal.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from progress import cache
from progress.cli import main
from progress.errors import InputError, SourcePosition, UsageError, printable
from progress.front.axb.parse import parse_program

HAS_CC = shutil.which(os.environ.get("CC", "cc")) is not None
needs_cc = pytest.mark.skipif(not HAS_CC, reason="no C compiler")
DATA = Path(__file__).parent / "data" / "gpu"


def _run_cpu(tmp_path, *extra):
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "run",
                str(DATA / "pc_increasing.axb"),
                "--backend",
                "cpu",
                "--iterations",
                "1",
                "--deadline",
                "1s",
                "--instances",
                "1",
                "--heuristics",
                "plain",
                "-o",
                str(tmp_path / "out" / "r.csv"),
                *extra,
            ]
        )
    return exit_info.value.code


# -- where the cache is ----------------------------------------------------------------


def test_the_cache_is_per_user_and_not_in_the_shared_temp_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_root() == tmp_path / "xdg" / "progress"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # the XDG spec: ignore a relative value
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_root() == tmp_path / "home" / ".cache" / "progress"


@needs_cc
def test_the_cpu_backend_compiles_into_a_private_cache(tmp_path, monkeypatch):
    from progress.gpu.cpu import CpuBackend

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    old = os.umask(0o002)  # a permissive umask must not leak into the cache
    try:
        engine = CpuBackend()
        assert engine.cache == tmp_path / "xdg" / "progress" / "cpu"
        engine.prepare([parse_program((DATA / "pc_increasing.axb").read_text(), "t")])
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(engine.cache).st_mode) == 0o700
    (entry,) = engine.executables
    assert entry.parent == engine.cache and stat.S_IMODE(os.stat(entry).st_mode) == 0o700
    assert sorted(p.name for p in engine.cache.iterdir()) == [entry.name]  # no build leftovers


# -- refusing what another user could have written ------------------------------------------


@needs_cc
@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702, 0o1777])
def test_a_cache_dir_writable_by_others_is_refused_and_nothing_in_it_runs(tmp_path, monkeypatch, capsys, mode):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    planted = _plant(tmp_path, tmp_path / "xdg" / "progress" / "cpu", mode)
    assert _run_cpu(tmp_path) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "xdg" / "progress" / "cpu") in err and "writable by group or others" in err
    assert "Fix:" in err.strip().splitlines()[-1] and "Traceback" not in err
    assert not planted.exists(), "the planted executable ran"


@needs_cc
def test_a_cache_dir_owned_by_another_user_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    directory = tmp_path / "xdg" / "progress" / "cpu"
    planted = _plant(tmp_path, directory, 0o755)
    if os.getuid() == 0:
        os.chown(directory, 4242, 4242)  # a real other owner
    else:
        monkeypatch.setattr(cache.os, "getuid", lambda: os.stat(directory).st_uid + 1)
    assert _run_cpu(tmp_path) == 2
    err = capsys.readouterr().err
    assert f"refusing the cache directory {directory}" in err and "not by you" in err
    assert not planted.exists()


@needs_cc
@pytest.mark.parametrize("attack", ["group-writable", "symlink", "directory"])
def test_a_cache_entry_that_was_not_verified_is_never_executed(tmp_path, monkeypatch, capsys, attack):
    from progress.back.c_source import program_source
    from progress.gpu.cpu import CpuBackend

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    engine = CpuBackend()
    program = parse_program((DATA / "pc_increasing.axb").read_text(), "pc_increasing.axb")
    engine.prepare([program])
    (entry,) = engine.executables
    entry.unlink()
    marker = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\necho iteration 0 0\n")
    script.chmod(0o777)
    if attack == "group-writable":
        shutil.copy(script, entry)
        entry.chmod(0o775)
    elif attack == "symlink":
        entry.symlink_to(script)
    else:
        entry.mkdir()
    assert _run_cpu(tmp_path) == 2
    err = capsys.readouterr().err
    assert f"refusing the cache entry {entry}" in err and "Fix:" in err
    assert not marker.exists()
    assert program_source(program)  # the entry's name came from this source's hash


def test_private_dir_refuses_a_symlink_and_a_file(tmp_path):
    target = tmp_path / "real"
    target.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(target)
    with pytest.raises(cache.UnsafeCache, match="symbolic link") as error:
        cache.private_dir(tmp_path / "link")
    assert error.value.exit_code == 2
    (tmp_path / "file").write_text("")
    with pytest.raises(cache.UnsafeCache, match="not a directory"):
        cache.private_dir(tmp_path / "file")


def _plant(tmp_path: Path, directory: Path, mode: int) -> Path:
    """What an attacker does: make the cache directory first and fill it with
    an executable under every name it might be asked for."""
    directory.mkdir(parents=True)
    marker = tmp_path / "ran"
    directory.chmod(mode)
    for name in ("test-" + "0" * 24, "payload"):
        (directory / name).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (directory / name).chmod(0o755)
    return marker


# -- control characters never reach the terminal ---------------------------------------------


HOSTILE = "test evil\nthread 0\n  AXB(x, 0, 0, \x1b[2J\x07false, 0)\n"


def test_a_source_line_with_control_characters_is_escaped(tmp_path, capsys):
    path = tmp_path / "evil.axb"
    path.write_text(HOSTILE)
    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert not any(ord(c) < 32 and c != "\n" or 0x7F <= ord(c) <= 0x9F for c in err), repr(err)
    assert "\\x1b[2J\\x07" in err


@pytest.mark.parametrize("char", ["\x1b", "\x07", "\x00", "\r", "\x7f", "\x9b", "\u202e", "\u2066"])
def test_every_rendered_error_escapes_control_characters(char):
    line = f"AXB(x, {char}0, 0)"
    column = line.index("0, 0") + 1
    shown = InputError(f"bad {char}", SourcePosition(f"f{char}.axb", 3, column, line)).render()
    assert char not in shown
    head, source, caret = shown.split("\n")
    assert caret.index("^") == source.index("0, 0")  # the caret still points at the same character
    assert char not in UsageError(f"no such file {char}").render()
    assert printable("a\nb") == "a\nb" and printable("a\nb", newlines=False) == "a\\x0ab"


def test_printable_leaves_ordinary_text_alone():
    text = "thread 0: AXB(x, 1, 0, true, 1) — α β ✓ tab\ttab"
    assert printable(text) == text.replace("\t", "\\x09")


def test_compiled_code_is_cached_per_version_of_its_sources(tmp_path, monkeypatch):
    """numba checks a cached function against its own file only; the cache directory
    is named after every compiled module's source, so editing a callee's file
    (synth/lanes.py under synth/fast_judge.py) cannot leave a stale caller."""
    from progress import cache, jit

    first = tmp_path / "a.py"
    second = tmp_path / "b.py"
    first.write_text("x = 1\n")
    second.write_text("y = 2\n")
    stamp = cache.sources_stamp([first, second])
    assert cache.sources_stamp([second, first]) == stamp
    second.write_text("y = 3\n")
    assert cache.sources_stamp([first, second]) != stamp
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    directory = jit.cache_dir()
    assert directory == tmp_path / "numba" / cache.compiled_sources_stamp()
    assert directory.is_dir() and directory.stat().st_mode & 0o077 == 0
    names = {p.name for d in cache.package_dirs() for p in d.rglob("*.py") if cache.COMPILED_MARKER in p.read_bytes()}
    assert {"lanes.py", "fast_judge.py", "fastcheck.py"} <= names


def test_a_cache_that_cannot_be_made_leaves_numba_its_default(tmp_path, monkeypatch):
    """A home where nothing can be made (here: the cache path runs through a file) is no error."""
    from progress import jit

    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    assert jit.cache_dir() is None


def test_a_cache_another_user_could_write_is_refused(tmp_path, monkeypatch):
    from progress import jit

    shared = tmp_path / "numba"
    shared.mkdir()
    (shared / cache.compiled_sources_stamp()).mkdir(mode=0o777)
    os.chmod(shared / cache.compiled_sources_stamp(), 0o777)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(shared))
    with pytest.raises(cache.UnsafeCache):
        jit.cache_dir()
