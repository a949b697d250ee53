"""The `.axb` parser: positioned errors for every bad input, and fuzzing.

Each error class of docs/semantics.md section 2 must render as `file:line:col: error: ...`,
then the offending line and a caret under the column; the CLI exits 2 with no
traceback. The property tests feed the parser random and mutated text:
nothing but InputError may escape, and `to_axb()` must round-trip.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import OOPSLA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from in_process import progress

from progress.cli.inputs import read_text
from progress.errors import InputError
from progress.front.axb.parse import parse_program

MUTEX = """test mutex
init m = 0
thread 0
  AXB(m, 1, 0, true, 1)
  AXB(m, 0, end, true, 0)
thread 1
  AXB(m, 1, 0, true, 1)
  AXB(m, 0, 2, true, 0)
"""

# (name, text, line, column, words the message must contain)
BAD = [
    ("unknown token", "thread 0\n  AXB(m, 1, 0, true, 1)\n  FOO(m, 0, end, true, 0)\n", 3, 3, ["FOO"]),
    ("unknown character", "thread 0\n  AXB(m, 1, 0, true, 1) $\n", 2, 25, ["'$'"]),
    ("unknown keyword", "thread 0\n  AXB(m, 1, 0, maybe, 1)\n", 2, 16, ["maybe", "true"]),
    ("keyword as location", "thread 0\n  AXB(end, 1, 0, true, 1)\n", 2, 7, ["end"]),
    ("missing comma", "thread 0\n  AXB(m 1, 0, true, 1)\n", 2, 9, ["'1'"]),
    ("unexpected end", "thread 0\n  AXB(m, 1, 0, true, 1", 2, 22, ["end of input"]),
    ("target out of range", "thread 0\n  AXB(m, 1, 3, true, 1)\n", 2, 13, ["target 3", "0..1"]),
    ("thread 0 missing", "thread 1\n  AXB(m, 1, 0, true, 1)\n", 1, 8, ["thread 0"]),
    (
        "threads out of order",
        "thread 0\n  AXB(m, 1, 0, true, 1)\nthread 2\n  AXB(m, 0, 1, true, 1)\n",
        3,
        8,
        ["thread 1", "found thread 2"],
    ),
    ("empty thread", "thread 0\nthread 1\n  AXB(m, 1, 0, true, 1)\n", 1, 8, ["empty"]),
    ("repeated test", "test a\ntest b\nthread 0\n  AXB(m, 1, 0, true, 1)\n", 2, 1, ["repeated 'test'"]),
    ("repeated init", "init m = 1\ninit m = 0\nthread 0\n  AXB(m, 1, 0, true, 1)\n", 2, 6, ["repeated 'init'"]),
    ("value too large", "thread 0\n  AXB(m, 1, 0, true, 99999999999)\n", 2, 22, ["too large"]),
    ("init too large", "init m = 4294967296\nthread 0\n  AXB(m, 1, 0, true, 1)\n", 1, 10, ["too large"]),
    ("header after thread", "thread 0\n  AXB(m, 1, 0, true, 1)\ninit m = 1\n", 3, 1, ["'init'"]),
]


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`progress ARGS` in this process (tests/in_process.py)."""
    return progress(*args, cwd=cwd)


@pytest.mark.parametrize("name, text, line, column, words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_positioned(name, text, line, column, words):
    with pytest.raises(InputError) as caught:
        parse_program(text, "bad.axb")
    rendered = caught.value.render().splitlines()
    assert rendered[0].startswith(f"bad.axb:{line}:{column}: error: "), rendered[0]
    for word in words:
        assert word in rendered[0]
    source_line = text.splitlines()[line - 1]
    assert rendered[1] == "    " + source_line
    assert rendered[2] == "    " + " " * (column - 1) + "^"


def test_no_threads():
    with pytest.raises(InputError) as caught:
        parse_program("test nothing\n# only a comment\n", "empty.axb")
    assert caught.value.render().startswith("empty.axb:2:1: error: the test has no threads")


def _check_cli_error(run: subprocess.CompletedProcess, prefix: str, caret_column: int | None) -> None:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    first = next(i for i, text in enumerate(lines) if text.startswith(prefix))
    assert ": error: " in lines[first]
    if caret_column is not None:
        assert lines[first + 2] == "    " + " " * (caret_column - 1) + "^"


@pytest.mark.parametrize("case", [0, 6, 9, 12], ids=lambda i: BAD[i][0])
def test_cli_reports_bad_file_and_exits_2(tmp_path, case):
    name, text, line, column, _ = BAD[case]
    (tmp_path / "bad.axb").write_text(text)
    run = run_cli("check", "bad.axb", cwd=tmp_path)
    _check_cli_error(run, f"bad.axb:{line}:{column}: error:", column)
    assert "hash" not in run.stdout  # nothing half-checked: no verdict table


def test_cli_keeps_going_past_a_bad_file(tmp_path):
    (tmp_path / "a_bad.axb").write_text(BAD[0][1])
    (tmp_path / "b_good.axb").write_text(MUTEX)
    run = run_cli("check", ".", cwd=tmp_path)
    _check_cli_error(run, "a_bad.axb:3:3: error:", 3)
    assert "mutex" in run.stdout and "1 file(s) with bad input" in run.stdout + run.stderr


def test_non_utf8_file(tmp_path):
    (tmp_path / "latin.axb").write_bytes(b"thread 0\n  AXB(m, 1, 0, true, 1) # caf\xe9\n")
    with pytest.raises(InputError) as caught:
        read_text(tmp_path / "latin.axb")
    assert str(caught.value.position) == f"{tmp_path / 'latin.axb'}:2:30"
    run = run_cli("check", "latin.axb", cwd=tmp_path)
    _check_cli_error(run, "latin.axb:2:30: error: not UTF-8", 30)


def test_unreadable_file(tmp_path, monkeypatch):
    target = tmp_path / "secret.axb"
    target.write_text(MUTEX)

    real_open = os.open

    def refuse(path, *args, **kwargs):
        if Path(path) == target:
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(InputError) as caught:
        read_text(target)
    assert "cannot read" in caught.value.render() and "Permission denied" in caught.value.render()


def test_unreadable_file_cli(tmp_path):
    """A list "file" that is a directory cannot be read, even by root; the
    batch reports it and still checks the good file."""
    (tmp_path / "good.axb").write_text(MUTEX)
    (tmp_path / "folder").mkdir()
    run = run_cli("check", "@folder", "good.axb", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "error: cannot read folder: not a regular file (a directory)" in run.stderr
    assert "checked 1 test(s)" in run.stderr + run.stdout and "1 file(s) with bad input" in run.stderr + run.stdout
    assert "mutex" in run.stdout


def test_missing_file_cli(tmp_path):
    run = run_cli("check", "missing.axb", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "error: no such file or directory: missing.axb" in run.stderr


def test_list_with_missing_entry(tmp_path):
    (tmp_path / "good.axb").write_text(MUTEX)
    (tmp_path / "tests.list").write_text("# two tests\ngood.axb\n  gone.axb  # deleted\n")
    run = run_cli("check", "@tests.list", cwd=tmp_path)
    _check_cli_error(run, "tests.list:3:3: error: no such file or directory: gone.axb", 3)


def test_good_files_parse_and_round_trip(oopsla_dir):
    for path in sorted(oopsla_dir.rglob("*.axb"))[::7]:
        program = parse_program(path.read_text(), str(path))
        assert parse_program(program.to_axb(), "again.axb") == program


def test_parse_details():
    program = parse_program(MUTEX.replace("AXB(m, 0, 2", "axb(m, 0, end"), "dir/x.axb")
    assert program.name == "mutex"
    assert program.threads[0] == program.threads[1]
    assert program.threads[0][1].target == 2
    assert parse_program("thread 0\n AXB(q, 0, 1, false, 0)\n", "dir/stem.axb").name == "stem"
    assert parse_program("init b = 2\ninit a = 1\nthread 0\n AXB(a, 0, 1, false, 0)\n").init == (("a", 1), ("b", 2))


# --- fuzzing ---------------------------------------------------------------

TOKENS = [
    "thread",
    "test",
    "init",
    "AXB",
    "axb",
    "(",
    ")",
    ",",
    "=",
    "end",
    "true",
    "false",
    "0",
    "1",
    "2",
    "3",
    "17",
    "m",
    "x",
    "#",
    "\n",
    " ",
    "\t",
    "\r",
    "\r\n",
    "\x0b",
    "\x0c",
    "\u2028",
    "é",
    "$",
    "99999999999999999999",
    "_",
    "AXB(m, 1, 0, true, 1)",
    "thread 0\n",
    "thread 1\n",
]

FUZZ = dict(
    derandomize=True, deadline=None, database=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow]
)


def _parse_or_input_error(text: str) -> None:
    try:
        program = parse_program(text, "fuzz.axb")
    except InputError as error:
        rendered = error.render()
        assert rendered.startswith("fuzz.axb:"), rendered
        position = error.position
        lines = text.split("\n")
        assert 1 <= position.line <= len(lines) and position.column >= 1
        assert position.text == lines[position.line - 1].rstrip("\r")
        assert position.column <= len(position.text) + 1
        return
    assert parse_program(program.to_axb(), "again.axb") == program


@settings(**FUZZ)
@given(st.text(max_size=200))
def test_random_text_only_raises_input_error(text):
    _parse_or_input_error(text)


@settings(**FUZZ)
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join))
def test_random_tokens_only_raise_input_error(text):
    _parse_or_input_error(text)


def _valid_sources() -> list[str]:
    files = sorted(OOPSLA.rglob("*.axb"))[::40]
    return [MUTEX] + [f.read_text() for f in files]


@st.composite
def mutated(draw) -> str:
    text = draw(st.sampled_from(_valid_sources()))
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["delete", "insert", "replace", "token"]))
        size = draw(st.integers(1, 6))
        if kind == "delete":
            text = text[:where] + text[where + size :]
        elif kind == "insert":
            text = text[:where] + draw(st.text(min_size=1, max_size=size)) + text[where:]
        elif kind == "replace":
            text = text[:where] + draw(st.text(min_size=1, max_size=size)) + text[where + size :]
        else:
            text = text[:where] + draw(st.sampled_from(TOKENS)) + text[where:]
    return text


@settings(**FUZZ)
@given(mutated())
def test_mutated_files_only_raise_input_error(text):
    _parse_or_input_error(text)


@settings(**FUZZ)
@given(st.sampled_from(_valid_sources()), st.sampled_from(["\r\n", "\r", "\n\n", "\n \t\n"]))
def test_other_line_endings_and_spacing(text, separator):
    program = parse_program(text, "x.axb")
    assert parse_program(text.replace("\n", separator), "x.axb") == program
    assert parse_program(text.replace(" ", "\t \t"), "x.axb") == program
