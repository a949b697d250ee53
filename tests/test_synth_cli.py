"""`progress synth` end to end: summary, export read back by `progress check`,
determinism, time limit, resume, kill -9 and Ctrl-C mid-run, local workers, Dask."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import default_sigint, file_tree

from progress.cli import main
from progress.front.axb.parse import parse_program
from progress.synth.constraints import violations

SMALL = ["--threads", "2", "--instructions", "3"]
ENUM = ["--engine", "enum"]
"""The kill/resume/status tests use the enum engine: its units are 32 candidates,
so 2t3i has 54 of them to interrupt (the default compiled engine's 2t3i is 2 units)."""


def run(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(["synth", *args])
    out, err = capsys.readouterr()
    return stop.value.code, out, err


tree = file_tree


def test_summary_and_export(tmp_path, capsys, reference):
    code, out, err = run(capsys, *SMALL, "--out", str(tmp_path / "a.db"), "--export", str(tmp_path / "x"))
    assert code == 0
    assert "complete: no other test exists within these bounds" in out
    assert "space: 25088 programs meeting constraint 4, 12544 up to renaming locations, 1708 left" in out
    assert "judged: 1708 candidates; tests found: 162;" in out
    assert "fair/strong" in out and "exported 162 test(s)" in out
    assert "engine compiled" in out  # the default
    assert "progress: 25088/25088 candidates covered" in err  # compiled covers raw indices
    assert tree(tmp_path / "x") == reference  # same bounds, same bytes
    files = sorted((tmp_path / "x" / "2t3i").glob("*.axb"))
    assert len(files) == 162
    first = parse_program(files[0].read_text(), str(files[0]))
    assert violations(first) == []


def test_export_is_read_by_progress_check(tmp_path, capsys, oopsla_dir):
    run(capsys, "-t", "2", "-i", "2", "--out", str(tmp_path / "a.db"), "--export", str(tmp_path / "x"))
    with pytest.raises(SystemExit) as stop:
        main(["check", str(tmp_path / "x")])
    out, err = capsys.readouterr()
    assert stop.value.code == 1  # every synthesized test fails unfair
    assert "checked 8 test(s)" in err + out and "bad input" not in err + out
    csv = (tmp_path / "x" / "2t2i" / "verdicts.csv").read_text().splitlines()
    artifact_header = (oopsla_dir / "cadp_verdicts.csv").read_text().splitlines()[0]
    assert csv[0] == artifact_header + ",unfair" and len(csv) == 9  # the artifact's column order, as docs/synth.md says
    with pytest.raises(SystemExit) as stop:
        main(["classify", str(tmp_path / "x"), "--expect", str(tmp_path / "x" / "2t2i" / "verdicts.csv")])
    out, _ = capsys.readouterr()
    assert stop.value.code == 0 and "0 mismatching cell(s) in 0 test(s); 8 test(s) compared" in out
    text = (tmp_path / "x" / "2t2i" / "0.axb").read_text()
    assert "# expect: unfair F | fair/weak" in text


def test_enum_engine_exports_the_same_bytes(tmp_path, capsys, reference):
    code, out, err = run(capsys, *SMALL, *ENUM, "--out", str(tmp_path / "e.db"), "--export", str(tmp_path / "x"))
    assert code == 0 and "engine enum" in out and "judged: 1708 candidates; tests found: 162;" in out
    assert "progress: 1708/1708 candidates covered" in err
    assert tree(tmp_path / "x") == reference


def test_z3_engine_exports_the_same_bytes(tmp_path, capsys, reference):
    code, out, _ = run(
        capsys, *SMALL, "--engine", "z3", "--out", str(tmp_path / "z.db"), "--export", str(tmp_path / "x")
    )
    assert code == 0 and "engine z3" in out
    assert tree(tmp_path / "x") == reference


def test_time_limit_then_resume(tmp_path, capsys, reference):
    db = str(tmp_path / "t.db")
    slow = [*ENUM, "--unit-size", "64", "--throttle", "0.05"]
    code, out, _ = run(capsys, *SMALL, *slow, "--out", db, "--time-limit", "0.3")
    assert code == 3
    assert "stopped at the time limit: covered " in out and "continue with --resume" in out
    code, out, _ = run(
        capsys, *SMALL, *ENUM, "--unit-size", "64", "--out", db, "--resume", "--export", str(tmp_path / "x")
    )
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


def start(db: Path, *extra: str) -> subprocess.Popen:
    command = [
        sys.executable,
        "-c",
        "from progress.cli import main; main()",
        "synth",
        *SMALL,
        *ENUM,
        "--unit-size",
        "32",
        "--throttle",
        "0.1",
        "--out",
        str(db),
        *extra,
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
        capsys, *SMALL, *ENUM, "--unit-size", "32", "--out", str(db), "--resume", "--export", str(tmp_path / "x")
    )
    assert code == 0 and "tests found: 162;" in out
    assert units_done(db) == 54
    assert tree(tmp_path / "x") == reference


@pytest.mark.parametrize(
    "engine, unit_size, workers",
    [("compiled", "8", "2"), ("enum", "32", "2"), ("enum", "128", "3")],
    ids=["compiled-7-units", "enum-54-units", "enum-3-workers"],
)
def test_local_workers_give_the_same_export(tmp_path, capsys, reference, engine, unit_size, workers):
    """--workers N: N processes forked from the driver (synth/pool.py), many shards, the same bytes."""
    db = tmp_path / "w.db"
    code, out, err = run(
        capsys,
        *SMALL,
        "--engine",
        engine,
        "--workers",
        workers,
        "--unit-size",
        unit_size,
        "--out",
        str(db),
        "--export",
        str(tmp_path / "x"),
    )
    assert code == 0 and "complete:" in out and "judged: 1708 candidates; tests found: 162;" in out
    assert f"{workers} workers, " in err.splitlines()[-1]
    last = err.splitlines()[-1]
    assert int(last.split(" shards of")[0].rsplit(" ", 1)[1]) > 1  # really sharded
    done, total = last.split("units ")[1].split(",")[0].split("/")
    assert int(done) == int(total) == units_done(db) > 2
    assert tree(tmp_path / "x") == reference


@pytest.mark.long
def test_ctrl_c_with_local_workers_keeps_what_was_committed(tmp_path, capsys, reference):
    """Ctrl-C reaches the driver (the workers ignore it): exit 130, done units kept, resume completes."""
    db = tmp_path / "c.db"
    process = start(db, "--workers", "2")
    wait_for_units(process, db, 3)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 130 and "interrupted: covered" in out
    assert 3 <= units_done(db) < 54
    code, out, _ = run(
        capsys, *SMALL, *ENUM, "--unit-size", "32", "--out", str(db), "--resume", "--export", str(tmp_path / "x")
    )
    assert code == 0 and "tests found: 162;" in out and units_done(db) == 54
    assert tree(tmp_path / "x") == reference


@pytest.mark.long
def test_a_local_worker_killed_stops_the_run_and_resume_completes_it(tmp_path, capsys, reference):
    """A forked worker SIGKILLed mid-run: one line and exit 70 (no verdict), the store kept, --resume finishes."""
    import psutil

    db = tmp_path / "k.db"
    process = start(db, "--workers", "2")
    wait_for_units(process, db, 3)
    driver = psutil.Process(process.pid)
    workers = [child for child in driver.children() if child.cmdline() == driver.cmdline()]  # forked: same argv
    assert len(workers) == 2
    workers[-1].kill()
    out, err = process.communicate(timeout=60)
    assert process.returncode == 70 and "a worker process died" in err and "Traceback" not in err
    assert 3 <= units_done(db) < 54
    code, out, _ = run(
        capsys, *SMALL, *ENUM, "--unit-size", "32", "--out", str(db), "--resume", "--export", str(tmp_path / "x")
    )
    assert code == 0 and units_done(db) == 54
    assert tree(tmp_path / "x") == reference


@pytest.mark.long
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


# Hostile stores, Ctrl-C at start-up, the time limit and the space, --status.


@pytest.mark.parametrize("kind", ["text", "empty-sqlite-header", "foreign", "format-1", "not-json", "garbage-inside"])
def test_hostile_store_on_resume_is_one_line_exit_2(tmp_path, capsys, kind):
    from test_synth_store import hostile

    db = tmp_path / "h.db"
    hostile(db, kind)
    code, out, err = run(capsys, *SMALL, "--out", str(db), "--resume")
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(db) in lines[0], err
    assert "Traceback" not in err


def test_resume_reads_the_bounds_from_the_store(tmp_path, capsys, reference):
    db = str(tmp_path / "r.db")
    assert run(capsys, *SMALL, "--out", db, "--time-limit", "1e-6")[0] == 3
    code, out, _ = run(capsys, "--resume", "--out", db, "--export", str(tmp_path / "x"))
    assert code == 0 and "tests found: 162;" in out
    assert tree(tmp_path / "x") == reference


def test_time_limit_counts_building_the_space(tmp_path, monkeypatch):
    """The space takes 0.6 s to build here and the limit is 0.3 s: nothing is searched."""
    from progress.synth import driver
    from progress.synth.store import Store

    real = driver.unit_sizes

    def slow(*args):
        time.sleep(0.6)
        return real(*args)

    monkeypatch.setattr(driver, "unit_sizes", slow)
    phases = []
    with Store(tmp_path / "s.db") as store:
        settings = driver.Settings(driver.Bounds(2, 3), time_limit=0.3)
        driver.open_run(store, settings, resume=False)
        outcome = driver.synthesize(store, settings, lambda p: phases.append(p.phase))
    assert outcome.stop is driver.StopReason.TIME_LIMIT and outcome.progress.units_done == 0
    assert phases[0] == "building the space"


def endless_build(*args):
    """A space build that would take 30 s: the run must cut it at its time limit."""
    end = time.monotonic() + 30
    while time.monotonic() < end:
        time.sleep(0.01)
    raise AssertionError("the build was not cut")


def test_a_long_space_build_is_cut_at_the_time_limit_and_reported_meanwhile(tmp_path, monkeypatch):
    """A build that would take 30 s stops at the 1.5 s limit, with progress reports every second."""
    from progress.synth import driver
    from progress.synth.store import Store

    monkeypatch.setattr(driver, "unit_sizes", endless_build)
    phases = []
    started = time.monotonic()
    with Store(tmp_path / "s.db") as store:
        settings = driver.Settings(driver.Bounds(2, 3), time_limit=1.5)
        driver.open_run(store, settings, resume=False)
        outcome = driver.synthesize(store, settings, lambda p: phases.append((p.phase, round(p.elapsed))))
        assert store.params()["stop"] == "time limit"
    assert outcome.stop is driver.StopReason.TIME_LIMIT and time.monotonic() - started < 10
    assert [phase for phase, _ in phases] == ["building the space"] * len(phases) and len(phases) >= 2


@pytest.mark.long
def test_a_run_stopped_while_building_does_not_build_to_describe(tmp_path, capsys, monkeypatch):
    from progress.synth import driver

    monkeypatch.setattr(driver, "unit_sizes", endless_build)
    monkeypatch.setattr("progress.cli.synth.space_summary", endless_build)
    started = time.monotonic()
    code, out, err = run(capsys, *SMALL, "--out", str(tmp_path / "a.db"), "--time-limit", "3")
    assert code == 3 and time.monotonic() - started < 25  # endless_build gives up after 30 s
    assert "space: not built (stopped while building it)" in out
    assert "stopped at the time limit: covered nothing, the time went to building the space" in out
    # reported while building (about once a second: a busy machine may wake the reporter late)
    shown = [float(s) for s in re.findall(r"progress: building the space \((\d+\.\d) s\)", err)]
    assert shown[0] == 0.0 and any(0.5 < s < 3.0 for s in shown[1:]), err


def test_building_the_space_is_shown(tmp_path, capsys):
    code, _, err = run(capsys, "-t", "2", "-i", "2", "--out", str(tmp_path / "a.db"))
    assert code == 0 and err.splitlines()[0].startswith("progress: building the space (")
    assert "judging " in err and "classifying " in err and "of worker time" in err


def progress_script() -> str:
    script = Path(sys.executable).parent / "progress"
    return str(script) if script.exists() else ""


@pytest.mark.skipif(not progress_script(), reason="the `progress` script is not installed beside this Python")
def test_ctrl_c_at_start_up_is_exit_130_and_the_store_stays_usable(tmp_path):
    """SIGINT from the moment the CLI's package is loaded (measured: `import
    progress.cli`, which installs the handler first thing) through the first
    few hundred ms of `progress synth`. Before that, Python's own start-up
    handles the signal (docs/synth.md)."""
    from progress.synth.store import Store

    started = time.monotonic()
    subprocess.run([sys.executable, "-c", "import progress.cli"], check=True)
    interpreter = time.monotonic() - started
    for delay in (0.0, 0.02, 0.05, 0.1, 0.15, 0.25):
        for late in range(6):  # a busy machine starts Python more slowly than it did above
            db = tmp_path / f"s{delay}-{late}.db"
            process = subprocess.Popen(
                [progress_script(), "synth", *SMALL, "--out", str(db)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                preexec_fn=default_sigint,  # a background job's shell leaves SIGINT ignored, and Python keeps that
            )
            time.sleep(interpreter + delay + 0.1 * late)
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=60)
            if not before_the_cli_loaded(err):
                break
        else:
            pytest.fail(f"every SIGINT at {delay} s landed before progress.cli was loaded: {err}")
        assert "Traceback" not in err and "Error" not in err, (delay, late, err)
        assert process.returncode in (0, 130, -signal.SIGINT), (delay, late, process.returncode, err)
        if db.exists():
            with Store(db) as store:  # opens: consistent
                judged, tests = store.totals()
                assert tests == store.db.execute("SELECT COUNT(*) FROM tests").fetchone()[0]


def before_the_cli_loaded(err: str) -> bool:
    """Whether a SIGINT's report shows it landed in Python's own start-up,
    before the test's window: in `site`'s import, or in a traceback with no
    frame of the progress package (whose CLI installs its handler first)."""
    if "init_import_site" in err:
        return True
    import progress

    package = os.path.dirname(progress.__file__) + os.sep
    return "KeyboardInterrupt" in err and package not in err


def status(capsys, db) -> tuple[int, str]:
    code, out, err = run(capsys, "--status", str(db))
    return code, out + err


def test_status_while_running_killed_and_done(tmp_path, capsys):
    db = tmp_path / "k.db"
    process = start(db)
    try:
        wait_for_units(process, db, 2)
        code, text = status(capsys, db)
        assert code == 0 and f"state: running (process {process.pid})" in text, text
        assert "units: " in text and " of 54 done" in text and "tests found:" in text, text
        code, out, err = run(capsys, *SMALL, *ENUM, "--unit-size", "32", "--out", str(db), "--resume")
        assert code == 2 and f"being searched by process {process.pid}" in err
    finally:
        process.kill()
        process.communicate()
    code, text = status(capsys, db)
    assert code == 0 and "state: not running" in text, text
    code, out, _ = run(capsys, "--resume", "--out", str(db))
    assert code == 0 and "tests found: 162;" in out
    code, text = status(capsys, db)
    assert "state: stopped (exhausted)" in text and "units: 54 of 54 done (100.0%)" in text, text
    code, text = status(capsys, tmp_path / "none.db")
    assert code == 2 and "no such run" in text


# Keys files (synth/keys.py): --save-keys, then --from-keys --export rebuilds the same bytes.


def test_keys_file_rebuilds_the_export(tmp_path, capsys, reference):
    keys_file = tmp_path / "k" / "2t3i.keys.gz"
    code, out, _ = run(capsys, *SMALL, "--out", str(tmp_path / "a.db"), "--save-keys", str(keys_file))
    assert code == 0 and "wrote 162 test(s) to" in out
    code, out, _ = run(capsys, "--from-keys", str(keys_file), "--export", str(tmp_path / "x"))
    assert code == 0 and "exported 162 test(s) from" in out
    assert tree(tmp_path / "x") == reference
    again = tmp_path / "again.keys.gz"  # deterministic: the same run gives the same bytes
    code, _, _ = run(capsys, "--resume", "--out", str(tmp_path / "a.db"), "--save-keys", str(again))
    assert code == 0 and again.read_bytes() == keys_file.read_bytes()


@pytest.mark.parametrize("damage", ["missing", "not-gzip", "no-header", "truncated", "out-of-order", "no-export"])
def test_bad_keys_file_is_one_line_exit_2(tmp_path, capsys, damage):
    import gzip
    import json

    path = tmp_path / "k.keys.gz"
    header = {"format": "progress-synth-keys", "version": 1, "threads": 2, "instructions": 2, "locations": 2}
    header |= {"values": 2, "labels": ["unfair"], "tests": 2, "mask_bytes": 1}
    record = bytes([4, 1, 1, 0, 0, 0])  # lengths 1, 1, two instructions, verdict F
    body = {
        "not-gzip": b"plain text",
        "no-header": gzip.compress(b"{}\n"),
        "truncated": gzip.compress(json.dumps(header).encode() + b"\n" + record),
        "out-of-order": gzip.compress(json.dumps(header).encode() + b"\n" + record + record),
        "no-export": gzip.compress(json.dumps(header).encode() + b"\n"),
    }.get(damage)
    if body is not None:
        path.write_bytes(body)
    extra = [] if damage == "no-export" else ["--export", str(tmp_path / "x")]
    code, out, err = run(capsys, "--from-keys", str(path), *extra)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert ("needs --export" in err) if damage == "no-export" else (str(path) in err), err
