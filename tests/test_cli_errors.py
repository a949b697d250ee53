"""Bad input the way a new user gives it: every mistake is a clear message
with its exit status (2 usage/input, 3 bounds), never a traceback, and
options that narrow a check narrow everything they touch."""

from __future__ import annotations

import subprocess
import sys

MUTEX_HEADER_OK = "mutex: all 1 expected verdicts hold"


def run(*args, cwd=None):
    """`progress ARGS` in a subprocess: (exit status, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-m", "progress", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def test_expect_header_compares_only_the_selected_verdicts(repo):
    status, out, err = run("check", "litmus/paper/mutex.axb", "--expect-header", "--model", "HSA", "--weak",
                           cwd=repo)
    assert status == 0, out + err
    assert MUTEX_HEADER_OK in out
    assert "expectations: 1 hold, 0 do not" in out


def test_expect_header_with_one_fairness_compares_that_fairness_and_unfair(repo):
    status, out, err = run("check", "litmus/paper/mutex.axb", "--expect-header", "--strong", cwd=repo)
    assert status == 0, out + err
    # unfair (no fairness) + 5 models x strong
    assert "expectations: 6 hold, 0 do not" in out


def test_expect_header_still_reports_a_selected_mismatch(repo, tmp_path):
    text = (repo / "litmus/paper/mutex.axb").read_text().replace("| HSA/weak F |", "| HSA/weak P |", 1)
    (tmp_path / "mutex.axb").write_text(text)
    status, out, _ = run("check", "mutex.axb", "--expect-header", "--model", "hsa", "--weak", cwd=tmp_path)
    assert status == 1
    assert "mutex: HSA weak: expected guaranteed to terminate, got may not terminate" in out
    assert "expectations: 0 hold, 1 do not" in out


def test_expect_header_keeps_a_cell_naming_an_unregistered_model(repo, tmp_path):
    text = (repo / "litmus/paper/mutex.axb").read_text().replace("# expect: ", "# expect: NOPE/weak P | ", 1)
    (tmp_path / "mutex.axb").write_text(text)
    status, out, _ = run("check", "mutex.axb", "--expect-header", cwd=tmp_path)
    assert status == 1
    assert "NOPE weak" in out and "expectations: 11 hold, 1 do not" in out
