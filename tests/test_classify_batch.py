"""`progress classify` through the batch classifier gives the same bytes as
through `check_program`: every format, the matrix, both rules, state bounds,
--suites files, bad input; and `synth` work units classify their tests alike."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from progress.cli import classify as classify_cli
from progress.cli import cli


def invoke(monkeypatch, batch: bool, *args) -> tuple[int, str, str]:
    monkeypatch.setattr(classify_cli, "BATCH_FROM", 0 if batch else 10**9)
    result = CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def same_both_ways(monkeypatch, *args) -> tuple[int, str, str]:
    old = invoke(monkeypatch, False, *args)
    new = invoke(monkeypatch, True, *args)
    assert new == old
    return new


@pytest.mark.parametrize("fmt", ["md", "csv", "json", "latex"])
def test_classification_bytes_are_unchanged(monkeypatch, oopsla_dir, fmt):
    code, out, _ = same_both_ways(monkeypatch, "classify", oopsla_dir, "--format", fmt)
    assert code == 0 and out


@pytest.mark.parametrize("fmt", ["md", "csv", "json"])
def test_matrix_bytes_are_unchanged(monkeypatch, oopsla_dir, fmt):
    code, out, _ = same_both_ways(monkeypatch, "classify", oopsla_dir, "--matrix", "--format", fmt)
    assert code == 0 and out.count("\n") >= 483


def test_paper_rule_and_state_bound_are_unchanged(monkeypatch, oopsla_dir):
    same_both_ways(monkeypatch, "classify", oopsla_dir, "--rule", "paper")
    code, out, err = same_both_ways(monkeypatch, "classify", oopsla_dir, "--matrix", "--max-states", "12")
    assert code == 3 and "?" in out and "inconclusive" in err


def test_suite_files_are_unchanged(monkeypatch, oopsla_dir, tmp_path):
    trees = []
    for batch in (False, True):
        folder = tmp_path / f"batch{batch}"
        code, _, _ = invoke(monkeypatch, batch, "classify", oopsla_dir, "--suites", folder)
        assert code == 0
        trees.append({str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.txt"))})
    assert trees[0] == trees[1] and len(trees[0]) == 22


def test_bad_input_is_reported_alike(monkeypatch, oopsla_dir, tmp_path):
    suite = tmp_path / "suite"
    shutil.copytree(oopsla_dir / "2t3i", suite / "2t3i")
    (suite / "2t3i" / "5.axb").write_text("thread 0\n  AXB(x, 0, 7, true, 1)\n")
    (suite / "broken.axb").write_text("thread 1\n  AXB(x, 0, end, true, 1)\n")
    code, out, err = same_both_ways(monkeypatch, "classify", suite, "--matrix", "--format", "csv")
    assert code == 2 and "out of range" in err and "expected 'thread 0'" in err


def test_synth_units_classify_their_tests_as_check_program_does():
    """synth's work units (classify_batch, compiled) against one check_program per test."""
    from progress.synth import verdicts, work
    from progress.synth.enum_engine import search_unit
    from progress.synth.space import Bounds

    bounds = Bounds(3, 4)
    space = work.space_for(bounds)
    candidates = [c for unit in space.units[:6] for _, c in search_unit(space, unit, {})[0]]
    assert len(candidates) > 100
    labels, masks = verdicts.classify_batch(candidates)
    assert (labels, masks) == verdicts.classify_reference(candidates)
    assert len(set(masks)) > 5


def test_worker_processes_change_nothing(monkeypatch, oopsla_dir, tmp_path):
    """--jobs 2 (forked workers, chunks in order) prints the same bytes, bad input included."""
    monkeypatch.setattr(classify_cli, "CHUNK", 50)
    suite = tmp_path / "suite"
    shutil.copytree(oopsla_dir, suite)
    (suite / "3t3i" / "7.axb").write_text("thread 0\n  AXB(x, 0, 7, true, 1)\n")
    results = [invoke(monkeypatch, True, "classify", suite, "--matrix", "--jobs", jobs) for jobs in (1, 2, 3)]
    assert results[0] == results[1] == results[2]
    code, out, err = results[0]
    assert code == 2 and out.count("\n") == 2 + 482 and "out of range" in err
    assert invoke(monkeypatch, False, "classify", suite, "--matrix") == results[0]


FORCED = "import progress.cli.classify as c; c.BATCH_FROM = 0; from progress.cli import main; main()"
"""The console entry point (its signal handlers included), the batch path forced on."""


def test_worker_processes_under_the_real_entry_point(oopsla_dir):
    """`progress classify --jobs 2` as a process (the CLI's signal handlers
    installed, inherited by forked workers) finishes and prints what --jobs 1 does."""
    outputs = []
    for jobs in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", FORCED, "classify", str(oopsla_dir), "--matrix", "--jobs", jobs],
            capture_output=True,
            timeout=300,
        )
        assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and outputs[0].count(b"\n") == 2 + 483


def test_default_jobs_follow_the_suite_size_and_change_nothing(monkeypatch, oopsla_dir):
    """Without --jobs, a big suite gets a worker per available CPU (here: 3
    workers forced, chunks of 50): same bytes as one process."""
    assert classify_cli.default_jobs(classify_cli.JOBS_FROM - 1) == 1
    assert classify_cli.default_jobs(classify_cli.JOBS_FROM) == len(os.sched_getaffinity(0))
    monkeypatch.setattr(classify_cli, "CHUNK", 50)
    one = invoke(monkeypatch, True, "classify", oopsla_dir, "--matrix", "--format", "csv", "--jobs", "1")
    asked = []
    monkeypatch.setattr(classify_cli, "default_jobs", lambda tests: asked.append(tests) or 3)
    assert invoke(monkeypatch, True, "classify", oopsla_dir, "--matrix", "--format", "csv") == one
    assert asked == [483]
