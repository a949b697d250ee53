"""`progress synth` end to end: summary, export read back by `progress check`,
determinism, time limit, resume, kill -9 and Ctrl-C mid-run, Dask workers."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from progress.cli import main
from progress.parse import parse_program
from progress.synth.constraints import violations

SMALL = ["--threads", "2", "--instructions", "3"]


def run(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(["synth", *args])
    out, err = capsys.readouterr()
    return stop.value.code, out, err


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, bytes]:
    """An uninterrupted single-process enum run of 2t3i, exported."""
    root = tmp_path_factory.mktemp("reference")
    with pytest.raises(SystemExit) as stop:
        main(["synth", *SMALL, "--out", str(root / "run.db"), "--export", str(root / "export")])
    assert stop.value.code == 0
    return tree(root / "export")


def test_summary_and_export(tmp_path, capsys, reference):
    code, out, err = run(capsys, *SMALL, "--out", str(tmp_path / "a.db"), "--export", str(tmp_path / "x"))
    assert code == 0
    assert "complete: no other test exists within these bounds" in out
    assert "space: 25088 programs meeting constraint 4, 12544 up to renaming locations, 1708 left" in out
    assert "judged: 1708 candidates; tests found: 162;" in out
    assert "fair/strong" in out and "exported 162 test(s)" in out
    assert "progress: 1708/1708 candidates covered" in err
    assert tree(tmp_path / "x") == reference  # same bounds, same bytes
    files = sorted((tmp_path / "x" / "2t3i").glob("*.axb"))
    assert len(files) == 162
    first = parse_program(files[0].read_text(), str(files[0]))
    assert violations(first) == []


def test_export_is_read_by_progress_check(tmp_path, capsys):
    run(capsys, "-t", "2", "-i", "2", "--out", str(tmp_path / "a.db"), "--export", str(tmp_path / "x"))
    with pytest.raises(SystemExit) as stop:
        main(["check", str(tmp_path / "x")])
    out, err = capsys.readouterr()
    assert stop.value.code == 1  # every synthesized test fails unfair
    assert "checked 8 test(s)" in err + out and "bad input" not in err + out
    csv = (tmp_path / "x" / "2t2i" / "verdicts.csv").read_text().splitlines()
    assert csv[0].startswith("test,unfair,fair/weak,fair/strong,HSA/weak") and len(csv) == 9
    text = (tmp_path / "x" / "2t2i" / "0.axb").read_text()
    assert "# expect: unfair F | fair/weak" in text


def test_z3_engine_exports_the_same_bytes(tmp_path, capsys, reference):
    code, out, _ = run(
        capsys, *SMALL, "--engine", "z3", "--out", str(tmp_path / "z.db"), "--export", str(tmp_path / "x")
    )
    assert code == 0 and "engine z3" in out
    assert tree(tmp_path / "x") == reference


def test_time_limit_then_resume(tmp_path, capsys, reference):
    db = str(tmp_path / "t.db")
    slow = ["--unit-size", "64", "--throttle", "0.05"]
    code, out, _ = run(capsys, *SMALL, *slow, "--out", db, "--time-limit", "0.3")
    assert code == 3
    assert "stopped at the time limit: covered " in out and "continue with --resume" in out
    code, out, _ = run(capsys, *SMALL, "--unit-size", "64", "--out", db, "--resume", "--export", str(tmp_path / "x"))
    assert code == 0 and "complete:" in out
    assert tree(tmp_path / "x") == reference


def test_refuses_to_mix_runs(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    assert run(capsys, "-t", "2", "-i", "2", "--out", db)[0] == 0
    code, _, err = run(capsys, "-t", "2", "-i", "2", "--out", db)
    assert code == 2 and "already holds a run; pass --resume" in err
    code, _, err = run(capsys, *SMALL, "--out", db, "--resume")
    assert code == 2 and "holds another run: instructions=2 (not 3)" in err
    code, _, err = run(capsys, *SMALL, "--out", str(tmp_path / "new.db"), "--resume")
    assert code == 2 and "holds no run to resume" in err
    code, _, err = run(capsys, "-t", "3", "-i", "2")
    assert code == 2 and "every thread needs one" in err


def units_done(db: Path) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT COUNT(*) FROM units").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def start(db: Path) -> subprocess.Popen:
    command = [
        sys.executable,
        "-c",
        "from progress.cli import main; main()",
        "synth",
        *SMALL,
        "--unit-size",
        "32",
        "--throttle",
        "0.1",
        "--out",
        str(db),
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_units(process: subprocess.Popen, db: Path, count: int) -> None:
    deadline = time.monotonic() + 60
    while units_done(db) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
def test_killed_mid_run_then_resumed(tmp_path, capsys, reference, how):
    db = tmp_path / "k.db"
    process = start(db)
    wait_for_units(process, db, 3)
    process.send_signal(how)
    out, _ = process.communicate(timeout=60)
    if how == signal.SIGINT:
        assert process.returncode == 130 and "interrupted: covered" in out
    else:
        assert process.returncode == -signal.SIGKILL
    assert 3 <= units_done(db) < 54  # 1708 candidates in units of 32
    code, out, _ = run(
        capsys, *SMALL, "--unit-size", "32", "--out", str(db), "--resume", "--export", str(tmp_path / "x")
    )
    assert code == 0 and "tests found: 162;" in out
    assert units_done(db) == 54
    assert tree(tmp_path / "x") == reference


def test_dask_local_cluster_gives_the_same_export(tmp_path, capsys, reference):
    code, out, _ = run(
        capsys,
        *SMALL,
        "--workers",
        "2",
        "--unit-size",
        "128",
        "--out",
        str(tmp_path / "d.db"),
        "--export",
        str(tmp_path / "x"),
    )
    assert code == 0 and "complete:" in out
    assert tree(tmp_path / "x") == reference


def test_dask_scheduler_address(tmp_path, capsys, reference):
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        code, out, _ = run(
            capsys,
            *SMALL,
            "--scheduler",
            cluster.scheduler_address,
            "--unit-size",
            "256",
            "--out",
            str(tmp_path / "d.db"),
            "--export",
            str(tmp_path / "x"),
        )
    assert code == 0 and "complete:" in out
    assert tree(tmp_path / "x") == reference


def test_z3_time_limit_keeps_partial_results_and_resumes(tmp_path, capsys, reference):
    db = str(tmp_path / "z.db")
    code, out, _ = run(capsys, *SMALL, "--engine", "z3", "--out", db, "--time-limit", "0.1")
    assert code == 3 and "stopped at the time limit" in out
    code, out, _ = run(capsys, *SMALL, "--engine", "z3", "--out", db, "--resume", "--export", str(tmp_path / "x"))
    assert code == 0 and "complete:" in out and "solver answers: 164" in out
    assert tree(tmp_path / "x") == reference
