"""`progress check --expect-header`: the header's verdicts, compared."""

from __future__ import annotations

import subprocess
import sys

import pytest

from progress.errors import InputError
from progress.front.expect import expectations

ALL_HOLD = "all 11 expected verdicts hold"


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "progress", *args], capture_output=True, text=True, cwd=cwd)


def test_reads_cells_with_and_without_fairness():
    text = "test t\n# expect: unfair F | fair/weak P | HSA+OBE/strong F\nthread 0\n  AXB(x, 0, end, true, 1)\n"
    assert expectations(text, "t.axb") == {
        ("UNFAIR", "none"): False,
        ("FAIR", "weak"): True,
        ("HSA+OBE", "strong"): False,
    }


@pytest.mark.parametrize(
    "text, message, where",
    [
        ("thread 0\n  AXB(x, 0, end, true, 1)\n", "no '# expect:' line", "t.axb:1:1"),
        (
            "# expect: fair/weak P\n# expect: fair/weak P\nthread 0\n AXB(x,0,end,true,1)\n",
            "more than one '# expect:' line",
            "t.axb:2:1",
        ),
        (
            "# expect: fair/weak P | OBE/weak X\nthread 0\n AXB(x,0,end,true,1)\n",
            "cannot read the expectation 'OBE/weak X'",
            "t.axb:1:25",
        ),
    ],
)
def test_bad_headers_are_positioned_errors(text, message, where):
    with pytest.raises(InputError) as caught:
        expectations(text, "t.axb")
    assert caught.value.render().startswith(f"{where}: error: {message}")


def test_the_shipped_corpus_meets_its_headers(repo):
    done = run("check", "litmus", "--expect-header", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    suffixes = {".axb", ".comp", ".hlsl", ".spvasm", ".wgsl"}  # a directory holds kernels too (litmus/kernels)
    tests = sum(1 for path in (repo / "litmus").rglob("*") if path.suffix in suffixes)
    assert done.stdout.count(ALL_HOLD) == tests
    assert f"expectations: {11 * tests} hold, 0 do not" in done.stdout


def test_a_flipped_expectation_is_reported_and_exits_1(repo, tmp_path):
    text = (repo / "litmus/paper/mutex.axb").read_text().replace("OBE/weak P", "OBE/weak F", 1)
    (tmp_path / "mutex.axb").write_text(text)
    done = run("check", "mutex.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 1
    assert "mutex: OBE weak: expected may not terminate, got guaranteed to terminate" in done.stdout
    assert "expectations: 10 hold, 1 do not" in done.stdout


def test_a_missing_header_is_bad_input(tmp_path):
    (tmp_path / "plain.axb").write_text("thread 0\n  AXB(x, 0, end, true, 1)\n")
    done = run("check", "plain.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 2 and "plain.axb:1:1: error: no '# expect:' line" in done.stderr


KNOWN = {("UNFAIR", "none"): "unfair", ("FAIR", "weak"): "fair/weak", ("FAIR", "strong"): "fair/strong"}


@pytest.mark.parametrize(
    "header, message, column",
    [
        ("fair P", "'fair' names no verdict; write 'fair/strong' or 'fair/weak'", 11),
        ("unfair F | unfair/weak F", "'unfair/weak' names no verdict; write 'unfair'", 22),
        ("unfair F | obe/weak P", "'obe/weak' names no registered model", 22),
        ("fair/weak P | unfair F | fair/weak F", "'fair/weak F' contradicts an earlier cell", 36),
    ],
)
def test_a_cell_naming_no_verdict_or_contradicting_one_is_a_positioned_error(header, message, column):
    text = f"test t\n# expect: {header}\nthread 0\n  AXB(x, 0, end, true, 1)\n"
    with pytest.raises(InputError) as caught:
        expectations(text, "t.axb", KNOWN)
    assert caught.value.render().startswith(f"t.axb:2:{column}: error: {message}")


def test_the_same_cell_twice_with_the_same_value_reads():
    text = "# expect: unfair F | unfair F\nthread 0\n  AXB(x, 0, end, true, 1)\n"
    assert expectations(text, "t.axb", KNOWN) == {("UNFAIR", "none"): False}


def test_crlf_files_are_checked_against_their_header(repo, tmp_path):
    text = (repo / "litmus/paper/mutex.axb").read_text()
    (tmp_path / "mutex.axb").write_bytes(text.replace("\n", "\r\n").encode())
    done = run("check", "mutex.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ALL_HOLD in done.stdout


def test_fair_without_fairness_in_a_batch_is_bad_input_not_success(repo, tmp_path):
    (tmp_path / "t.axb").write_text("test t\n# expect: fair P\nthread 0\n  AXB(x, 0, end, true, 1)\n")
    done = run("check", "t.axb", repo / "litmus/paper/mutex.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 2
    assert "t.axb:2:11: error: 'fair' names no verdict" in done.stderr
    assert ALL_HOLD in done.stdout and "1 file(s) with bad input" in done.stdout


def test_comparing_nothing_is_not_success(tmp_path):
    (tmp_path / "t.axb").write_text("test t\n# expect: unfair P\nthread 0\n  AXB(x, 0, end, true, 1)\n")
    done = run("check", "t.axb", "--expect-header", "--model", "OBE", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "t: its header states none of the checked verdicts (nothing compared)" in done.stdout
    assert "expectations: 0 hold, 0 do not (nothing was compared)" in done.stdout
    assert run("check", "t.axb", "--expect-header", cwd=tmp_path).returncode == 0
