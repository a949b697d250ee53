"""`progress check` of a kernel is bounded by default (issue 28 part 4): a
state bound and a resident-memory bound, each stop inconclusive (exit 3)
with a message naming the bound and the option that raises it."""

from __future__ import annotations

import shutil

from in_process import progress
from kernel_helpers import KERNELS

from progress.cli.kernel import check_kernel
from progress.core import analyze
from progress.core.analyze import queries_for
from progress.core.registry import find_model
from progress.front.header import LaunchSettings


def _check(tmp_path, *args):
    shutil.copy(KERNELS / "message_passing.comp", tmp_path / "message_passing.comp")
    done = progress("check", "message_passing.comp", *args, cwd=tmp_path)  # in this process (tests/in_process.py)
    return done.returncode, done.stdout + done.stderr


def test_the_default_state_bound_names_itself_and_the_option(monkeypatch):
    monkeypatch.setattr(analyze, "KERNEL_STATES", 3)
    result = check_kernel(
        KERNELS / "message_passing.comp",
        LaunchSettings(),
        queries_for([find_model("OBE")]),
        max_states=None,
        time_limit=None,
        witnesses=False,
    )
    reasons = {v.reason for v in result.checked[0].report.verdicts}
    assert reasons == {
        "stopped at the default state bound of 3 (raise it with --max-states N or --max-memory MIB, "
        "or check a smaller launch: --workgroups, --local-size)"
    }


def test_a_given_state_bound_is_not_called_the_default(tmp_path):
    status, out = _check(tmp_path, "--max-states", "2")
    assert status == 3
    assert "inconclusive: stopped at the state bound of 2 (raise it with --max-states N" in out


def test_the_memory_bound_stops_with_exit_3(tmp_path):
    status, out = _check(tmp_path, "--max-memory", "1")
    assert status == 3, out
    assert "stopped at the memory bound of 1 MiB resident (raise it with --max-states N or --max-memory MIB" in out


def test_under_the_default_bounds_a_small_kernel_is_decided(tmp_path):
    status, out = _check(tmp_path)
    assert status == 1, out
    assert "3 may not terminate, 0 inconclusive" in out
