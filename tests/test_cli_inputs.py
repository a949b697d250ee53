"""How command-line paths become tests: nested @lists (and their cycles),
directories with unreadable parts, standard input, and files that are not
regular files. Every problem is reported and the rest of a batch still runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from in_process import progress

from progress.cli.inputs import expand_each

TEST = "test t{n}\nthread 0\n  AXB(x, 0, end, true, 1)\n"


def run(*args, cwd, stdin=None, timeout=30):
    """`progress ARGS` in this process (tests/in_process.py); `timeout` is not needed there."""
    done = progress(*args, cwd=cwd, stdin=stdin)
    return done.returncode, done.stdout, done.stderr


def _tests(folder: Path, *names: str) -> None:
    for n, name in enumerate(names):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(TEST.format(n=n))


def test_nested_lists_expand_relative_to_each_list(tmp_path):
    _tests(tmp_path, "a.axb", "sub/b.axb", "sub/deeper/c.axb")
    (tmp_path / "sub" / "deeper" / "inner.list").write_text("c.axb\n")
    (tmp_path / "sub" / "middle.list").write_text("b.axb\n@deeper/inner.list  # a list in a list\n")
    (tmp_path / "top.list").write_text("a.axb\n@sub/middle.list\n")
    found = expand_each([f"@{tmp_path / 'top.list'}"])
    assert [p.name for p in found] == ["a.axb", "b.axb", "c.axb"]
    status, out, err = run("check", "@top.list", "--model", "OBE", "--weak", cwd=tmp_path)
    assert status == 0, out + err
    assert "checked 3 test(s)" in out


def test_a_cycle_of_lists_is_a_positioned_error_and_the_rest_still_counts(tmp_path):
    _tests(tmp_path, "a.axb", "b.axb")
    (tmp_path / "one.list").write_text("a.axb\n@two.list\n")
    (tmp_path / "two.list").write_text("b.axb\n  @one.list\n")
    status, out, err = run("check", "@one.list", "--model", "OBE", "--weak", cwd=tmp_path)
    assert status == 2
    assert "two.list:2:3: error: the list @one.list names itself (a cycle of @lists)" in err
    assert "checked 2 test(s)" in out and "1 file(s) with bad input" in out
    (tmp_path / "self.list").write_text("@self.list\n")
    status, _, err = run("check", "@self.list", cwd=tmp_path)
    assert status == 2 and "self.list:1:1: error: the list @self.list names itself" in err


def test_an_unreadable_subdirectory_is_reported_not_skipped(tmp_path, monkeypatch):
    _tests(tmp_path, "suite/a.axb", "suite/locked/b.axb", "suite/z/c.axb")
    locked = tmp_path / "suite" / "locked"
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path) == locked:  # as root, chmod 000 would not stop the read
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = expand_each([str(tmp_path / "suite")])
    assert [p.name for p in found if isinstance(p, Path)] == ["a.axb", "c.axb"]
    errors = [str(e) for e in found if not isinstance(e, Path)]
    assert errors == [f"cannot read directory {locked}: Permission denied"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a mode-000 directory")
def test_an_unreadable_subdirectory_fails_the_batch_end_to_end(tmp_path):
    _tests(tmp_path, "suite/a.axb", "suite/locked/b.axb")
    (tmp_path / "suite" / "locked").chmod(0)
    try:
        status, out, err = run("check", "suite", "--model", "OBE", "--weak", cwd=tmp_path)
    finally:
        (tmp_path / "suite" / "locked").chmod(0o755)
    assert status == 2 and "cannot read directory" in err and "checked 1 test(s)" in out


def test_a_fifo_is_refused_without_hanging(tmp_path):
    _tests(tmp_path, "a.axb")
    os.mkfifo(tmp_path / "x.axb")
    status, out, err = run("check", "x.axb", "a.axb", "--model", "OBE", "--weak", cwd=tmp_path, timeout=20)
    assert status == 2
    assert "error: cannot read x.axb: not a regular file (a FIFO)" in err
    assert "checked 1 test(s)" in out
    status, _, err = run("check", ".", cwd=tmp_path, timeout=20)  # found by a directory walk too
    assert status == 2 and "not a regular file (a FIFO)" in err


def test_a_dash_reads_the_test_from_standard_input(repo, tmp_path):
    text = (repo / "litmus/paper/mutex.axb").read_text()
    status, out, err = run("check", "-", "--expect-header", cwd=tmp_path, stdin=text)
    assert status == 0, out + err
    assert "mutex: all 11 expected verdicts hold" in out
    status, _, err = run("check", "-", cwd=tmp_path, stdin="thread 0\n  AXB(x, 0, 7, true, 1)\n")
    assert status == 2 and err.startswith("<stdin>:2:")


def test_classify_reports_an_unreadable_subdirectory_and_classifies_the_rest(tmp_path, monkeypatch, capsys):
    from progress.cli import main

    _tests(tmp_path, "suite/a.axb", "suite/locked/b.axb")
    locked = tmp_path / "suite" / "locked"
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path=".": _refuse(path) if Path(path) == locked else real_scandir(path))
    with pytest.raises(SystemExit) as exit_info:
        main(["classify", str(tmp_path / "suite"), "--matrix", "--format", "csv"])
    out, err = capsys.readouterr()
    assert exit_info.value.code == 2
    assert f"error: cannot read directory {locked}: Permission denied" in err
    assert [line.split(",")[0] for line in out.splitlines()] == ["test", "a.axb"]


def _refuse(path):
    raise PermissionError(13, "Permission denied", str(path))


def test_relative_names_are_relpaths():
    """suite_names' slice for files below the root is os.path.relpath's answer."""
    from progress.cli.inputs import _relative

    cases = [
        ("/a/b/c.axb", "/a"),
        ("/a/b/c.axb", "/a/b"),
        ("/a/b/c.axb", "/"),
        ("/a/bc/d.axb", "/a/b"),
        ("/x/y.axb", "/a/b"),
        ("/a/b.axb", "/a/b.axb"),
    ]
    for full, root in cases:
        assert _relative(full, root) == Path(os.path.relpath(full, root)).as_posix(), (full, root)


_PATHS = st.text(alphabet="ab0123456789/.\x01", max_size=14)


@settings(max_examples=500, derandomize=True, deadline=None)
@given(st.lists(_PATHS, min_size=2, max_size=6), st.lists(st.sampled_from(["a/", "a1/", "", "b/02/"]), max_size=6))
def test_the_walks_sort_key_sorts_as_the_natural_order(texts, folders):
    """_natural_key's strings sort exactly as _natural's lists (ties included,
    so a stable sort keeps the same order), and a folder's key joined with a
    name's is the key of the joined path (how _walk builds it)."""
    from progress.cli.inputs import _natural_key

    texts += [f"{n}.axb" for n in ("7", "007", "10", "0")]
    for one in texts:
        for other in texts:
            a, b = _DIGIT_SPLIT(one), _DIGIT_SPLIT(other)
            ka, kb = _natural_key(one), _natural_key(other)
            assert (a < b, a == b) == (ka < kb, ka == kb), (one, other)
    for folder in folders:
        for name in texts:
            assert _natural_key(folder)[:-1] + _natural_key(name) == _natural_key(folder + name)


def _DIGIT_SPLIT(text: str) -> list:
    """_natural's key of a text (Path would normalize `a//b`; the walk's texts are normalized)."""
    import re

    parts = re.split(r"(\d+)", text)
    parts[1::2] = map(int, parts[1::2])
    return parts


def test_directory_listing_is_in_natural_order_as_text(tmp_path):
    """expand_names gives the texts of expand_each's Paths, in natural order."""
    from progress.cli.inputs import _natural, expand_names

    _tests(tmp_path, "s/10.axb", "s/9.axb", "s/009.axb", "s/b/1.axb", "s/b1.axb", "s/a.axb", "s/c2/3.axb")
    names = expand_names([str(tmp_path / "s")])
    assert names == [str(p) for p in expand_each([str(tmp_path / "s")])]
    walked = [Path(folder) / name for folder, _, files in os.walk(tmp_path / "s") for name in files]
    assert names == [str(p) for p in sorted(walked, key=_natural)]  # the order before expand_names
    shown = [n[len(str(tmp_path)) + 3 :] for n in names]
    assert shown[2:] == ["10.axb", "a.axb", "b1.axb", "b/1.axb", "c2/3.axb"]  # `b` before `b/`
