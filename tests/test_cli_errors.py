"""Bad input the way a new user gives it: every mistake is a clear message
with its exit status (2 usage/input, 3 bounds), never a traceback, and
options that narrow a check narrow everything they touch."""

from __future__ import annotations

import subprocess
import sys

import pytest
from in_process import progress

MUTEX_HEADER_OK = "mutex: all 1 expected verdicts hold"


def run(*args, cwd=None):
    """`progress ARGS` in this process (tests/in_process.py): (exit status, stdout, stderr)."""
    done = progress(*args, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def test_expect_header_compares_only_the_selected_verdicts(repo):
    status, out, err = run("check", "litmus/paper/mutex.axb", "--expect-header", "--model", "HSA", "--weak", cwd=repo)
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


def test_expect_header_refuses_a_cell_naming_an_unregistered_model(repo, tmp_path):
    text = (repo / "litmus/paper/mutex.axb").read_text().replace("# expect: ", "# expect: NOPE/weak P | ", 1)
    (tmp_path / "mutex.axb").write_text(text)
    status, out, err = run("check", "mutex.axb", "--expect-header", cwd=tmp_path)
    assert status == 2
    assert "error: 'NOPE/weak' names no registered model" in err and "1 file(s) with bad input" in out


def test_a_directory_without_tests_is_bad_input_for_every_reader(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("not a test\n")
    for command in (["check"], ["classify"], ["export"], ["run", "--backend", "cpu", "-o", "r.csv"]):
        status, out, err = run(*command, "notes", cwd=tmp_path)
        assert status == 2, (command, out, err)
        kernels = "kernel (.comp, .glsl, .hlsl, .wgsl, .spv, .spvasm, .spv.dis)"
        kinds = f".axb or {kernels}" if command == ["check"] else ".axb"
        assert f"error: no {kinds} files in directory notes" in err and "Traceback" not in err
    assert not (tmp_path / "r.csv").exists()


def test_a_directory_without_tests_does_not_stop_a_check_batch(repo, tmp_path):
    (tmp_path / "empty").mkdir()
    status, out, err = run("check", "empty", repo / "litmus/paper/mutex.axb", "--model", "OBE", "--weak", cwd=tmp_path)
    assert status == 2
    assert "mutex: OBE weak: guaranteed to terminate" in out and "1 file(s) with bad input" in out


def test_an_empty_path_is_not_the_current_directory(repo):
    status, out, err = run("check", "", cwd=repo)
    assert status == 2
    assert "error: an empty path names no test" in err
    assert "checked 0 test(s)" in out


def test_conform_refuses_a_suite_directory_that_does_not_exist(tmp_path):
    (tmp_path / "results.csv").write_text("test,plain\nt.axb,P\n")
    status, _, err = run("conform", "results.csv", "--suite", "nothere", cwd=tmp_path)
    assert status == 2 and "'nothere' does not exist" in err and "Traceback" not in err


def test_synth_with_a_malformed_scheduler_address_is_a_usage_error(tmp_path):
    status, _, err = run("synth", "-t", "2", "-i", "2", "--out", "run.db", "--scheduler", "nonsense", cwd=tmp_path)
    assert status == 2 and "Traceback" not in err
    assert "error: --scheduler nonsense: missing port number" in err and "--resume" in err


def test_a_model_named_twice_is_checked_once(repo):
    status, out, _ = run(
        "check", "litmus/paper/mutex.axb", "--model", "HSA", "--model", "hsa", "--weak", "--format", "json", cwd=repo
    )
    assert status == 1
    assert out.count('"model":"HSA"') == 1
    status, out, _ = run("check", "litmus/paper/mutex.axb", "-m", "HSA", "-m", "hsa", "--weak", cwd=repo)
    assert out.startswith("mutex: HSA weak: may not terminate (8 states, 10 transitions)")
    assert "1 may not terminate" in out


def test_a_bad_list_entry_is_reported_and_the_rest_of_the_list_is_checked(repo, tmp_path):
    (tmp_path / "mine.list").write_text(f"{repo / 'litmus/paper/mutex.axb'}\nnothere.axb   # a typo\n")
    status, out, err = run("check", "@mine.list", "--model", "OBE", "--weak", cwd=tmp_path)
    assert status == 2
    assert "mine.list:2:1: error: no such file or directory: nothere.axb" in err
    assert "mutex: OBE weak: guaranteed to terminate" in out
    assert "checked 1 test(s)" in out and "1 file(s) with bad input" in out


def test_a_list_naming_nothing_is_bad_input(tmp_path):
    (tmp_path / "empty.list").write_text("# only a comment\n\n")
    status, out, err = run("check", "@empty.list", cwd=tmp_path)
    assert status == 2 and "error: the list empty.list names no test" in err


def test_weak_and_strong_together_is_a_usage_error(repo):
    done = subprocess.run(
        [sys.executable, "-m", "progress", "check", "litmus/paper/mutex.axb", "--weak", "--strong"],
        capture_output=True,
        text=True,
        cwd=repo,
    )
    assert done.returncode == 2 and "--weak and --strong exclude each other" in done.stderr


def test_a_time_limit_of_nan_is_a_usage_error(repo):
    done = subprocess.run(
        [sys.executable, "-m", "progress", "check", "litmus/paper/mutex.axb", "--time-limit", "nan"],
        capture_output=True,
        text=True,
        cwd=repo,
    )
    assert done.returncode == 2 and "--time-limit must be a finite number" in done.stderr


def test_a_plug_in_that_cannot_load_is_named(monkeypatch):
    from importlib.metadata import EntryPoint

    from progress.core import registry
    from progress.errors import UsageError

    broken = EntryPoint("broken", "my_models.nope:MODEL", registry.GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [broken])
    registry.all_models.cache_clear()
    try:
        with pytest.raises(UsageError, match=r"entry point 'broken' \(my_models.nope:MODEL\) cannot be loaded"):
            registry.all_models()
    finally:
        registry.all_models.cache_clear()


def test_show_refuses_to_write_a_png_to_a_terminal(repo):
    import os
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "progress", "show", "litmus/paper/mutex.axb", "-m", "HSA", "--format", "png"],
            stdout=follower,
            stderr=subprocess.PIPE,
            text=True,
            cwd=repo,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 2 and "a PNG is binary: give -o FILE.png" in done.stderr


def test_model_takes_a_comma_separated_list(repo):
    status, out, err = run("check", "litmus/paper/mutex.axb", "--model", "HSA,obe", "-m", "OBE", "--weak", cwd=repo)
    assert status == 1, err
    assert "  HSA  " in out and "  OBE  " in out and "LOBE" not in out and "fair" not in out
    assert "3 verdict(s)" not in out and "checked 1 test(s): 1 verdict(s) guaranteed to terminate, 1 may not" in out
    status, _, err = run("check", "litmus/paper/mutex.axb", "--model", "HSA,", cwd=repo)
    assert status == 2 and "--model 'HSA,' has an empty model name" in err
