"""`progress check` of kernel files: output as for .axb (tables, lines,
JSON Lines, CSV), the header and the command line, --expect-header,
--optimize, batches mixing .axb and kernels, the same bytes twice."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import progress_command
from in_process import progress
from kernel_helpers import KERNELS

MP_EXPECT = (
    "// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F"
    " | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P\n"
)


def run(*args, cwd):
    """`progress ARGS` in this process (tests/in_process.py): (exit status, stdout, stderr)."""
    done = progress(*args, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture()
def kernels(tmp_path):
    for name in ("message_passing.comp", "barrier_skip.comp", "plain_spin.comp", "barrier_ok.comp"):
        shutil.copy(KERNELS / name, tmp_path / name)
    return tmp_path


def test_a_kernel_gets_the_verdict_table_and_its_header_launch(kernels):
    status, out, err = run("check", "message_passing.comp", cwd=kernels)
    assert status == 1, err
    lines = out.splitlines()
    assert lines[0].startswith("message_passing  message_passing.comp  hash ")
    assert lines[2].split() == ["unfair", "may", "not", "terminate", "may", "not", "terminate", "6"]
    assert "checked 1 test(s): 8 verdict(s) guaranteed to terminate, 3 may not terminate" in out


def test_the_command_line_overrides_the_header(kernels):
    _, one, _ = run("check", "message_passing.comp", "--workgroups", "1", "--model", "unfair", cwd=kernels)
    assert "message_passing: unfair: guaranteed to terminate (3 states" in one  # workgroup 0 alone: no spin


def test_a_deadlock_lasso_in_source_lines(kernels):
    status, out, _ = run("check", "barrier_skip.comp", "--model", "LOBE", "--strong", cwd=kernels)
    assert status == 1
    assert "    deadlock: workgroup 0 invocation 0 waits at barrier(), barrier_skip.comp:10" in out
    assert "barrier_skip.comp:8   data[i] = 1u;  [data[0] 0->1]" in out
    assert "        workgroup 0 invocation 0 waits at barrier_skip.comp:10  barrier();" in out


def test_json_lines_have_the_axb_shape_and_source_notes(kernels):
    status, out, _ = run("check", "message_passing.comp", "--format", "json", cwd=kernels)
    assert status == 1
    record = json.loads(out)
    assert set(record) == {"test", "file", "hash", "results"}
    assert [r["terminates"] for r in record["results"]] == [
        False,
        True,
        True,
        True,
        True,
        False,
        False,
        True,
        True,
        True,
        True,
    ]
    obe = record["results"][5]
    assert (obe["model"], obe["fairness"]) == ("OBE", "weak")
    step = obe["witness"]["steps"][-1]
    assert {"memory", "pcs", "fair", "thread", "instruction", "where", "text", "action"} <= set(step)
    assert step["where"] == "message_passing.comp:11" and step["action"] == "AtomicIAdd flag"
    assert obe["witness"]["units"] == ["workgroup 0 invocation 0", "workgroup 1 invocation 0"]


def test_csv_rows_for_kernels_and_axb_together(kernels, repo):
    status, out, _ = run(
        "check", "message_passing.comp", repo / "litmus/paper/mutex.axb", "--format", "csv", cwd=kernels
    )
    assert status == 1
    rows = out.splitlines()
    assert rows[0] == (
        "test,unfair,fair/weak,fair/strong,HSA/weak,HSA/strong,OBE/weak,OBE/strong,"
        "HSA+OBE/weak,HSA+OBE/strong,LOBE/weak,LOBE/strong,hash"
    )
    assert rows[1].startswith("message_passing.comp,F,P,P,P,P,F,F,P,P,P,P,")
    assert rows[2].split(",")[1:-1] == "F P P F F P P P P P P".split()


def test_expect_header_of_a_kernel(kernels):
    path = kernels / "message_passing.comp"
    path.write_text(MP_EXPECT + path.read_text())
    status, out, _ = run("check", "message_passing.comp", "--expect-header", cwd=kernels)
    assert status == 0, out
    assert "message_passing: all 11 expected verdicts hold" in out
    path.write_text(path.read_text().replace("OBE/weak F", "OBE/weak P", 1))
    status, out, _ = run("check", "message_passing.comp", "--expect-header", cwd=kernels)
    assert status == 1
    assert "message_passing: OBE weak: expected guaranteed to terminate, got may not terminate" in out


def test_optimize_reports_what_spirv_opt_changed(kernels):
    status, out, _ = run("check", "plain_spin.comp", "--optimize", cwd=kernels)
    assert status == 1
    assert "plain_spin (spirv-opt -O)  plain_spin.comp (spirv-opt -O)  hash" in out
    assert "plain_spin: --optimize: OBE weak: may not terminate, after spirv-opt -O guaranteed to terminate" in out
    status, out, _ = run("check", "barrier_ok.comp", "--optimize", cwd=kernels)
    assert status == 0
    assert "barrier_ok: --optimize: the same verdicts and the same terminal memory states" in out


def test_a_directory_mixes_axb_tests_and_kernels(kernels, repo):
    shutil.copy(repo / "litmus/paper/mutex.axb", kernels / "mutex.axb")
    status, out, _ = run("check", ".", "--model", "OBE", "--weak", cwd=kernels)
    assert status == 1
    assert "checked 5 test(s)" in out
    assert "mutex: OBE weak: guaranteed to terminate" in out
    assert "barrier_skip: OBE weak: may not terminate" in out


def test_the_same_bytes_twice(kernels):
    first = subprocess.run([*progress_command(), "check", ".", "--format", "json"], capture_output=True, cwd=kernels)
    again = subprocess.run([*progress_command(), "check", ".", "--format", "json"], capture_output=True, cwd=kernels)
    assert (first.returncode, first.stdout, first.stderr) == (again.returncode, again.stdout, again.stderr)
    assert first.stdout.count(b"\n") == 4  # two processes: the bytes do not hang on one process's state


def test_a_state_bound_is_inconclusive(kernels):
    status, out, _ = run("check", "message_passing.comp", "--max-states", "2", cwd=kernels)
    assert status == 3
    assert "inconclusive: stopped at the state bound of 2" in out


def test_show_draws_a_kernel(kernels):
    status, out, err = run("show", "barrier_skip.comp", "--model", "OBE", cwd=kernels)
    assert status == 0, err
    assert out.startswith("barrier_skip under OBE weak: may not terminate (deadlock: workgroup 0 invocation 0 waits")
    assert "* I  [data[0]=1 data[1]=2] [0.0 waits :10] [0.1 ret] [started {0}]  (deadlock)" in out
    status, out, _ = run("show", "message_passing.comp", "--model", "HSA", "--format", "dot", cwd=kernels)
    assert status == 0 and out.startswith("digraph lts {") and "1.0:11 {0}" in out
