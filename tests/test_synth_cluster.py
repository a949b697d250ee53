"""A real Dask cluster: `dask scheduler` and two `dask worker` processes
started as separate processes, reached over TCP on localhost; one worker is
killed with SIGKILL mid-run, its shards are redone by the other, and the
export is byte-identical to a single-process run (issue 9, section 3)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_synth_cli import ENUM, SMALL, tree, units_done

DASK = Path(sys.executable).parent / "dask"

pytestmark = pytest.mark.skipif(not DASK.exists(), reason="the `dask` command is not installed beside this Python")


def wait_until(what, check, seconds=60.0):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def cluster(tmp_path):
    """(scheduler address, [worker processes]); everything stopped afterwards."""
    processes: list[subprocess.Popen] = []
    logs = tmp_path / "logs"
    logs.mkdir()

    def spawn(name, *args):
        log = open(logs / f"{name}.log", "w")
        processes.append(subprocess.Popen([str(DASK), *args], stdout=log, stderr=subprocess.STDOUT))
        return processes[-1]

    info = tmp_path / "scheduler.json"
    try:
        spawn(
            "scheduler",
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(info),
        )
        wait_until("the scheduler", info.exists)
        wait_until("the scheduler's address", lambda: json.loads(info.read_text() or "{}").get("address"))
        address = json.loads(info.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        workers = [
            spawn(f"worker{n}", "worker", address, "--nthreads", "1", "--no-nanny", "--name", f"w{n}", "--no-dashboard")
            for n in range(2)
        ]
        yield address, workers
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                process.terminate()
        for process in processes:  # dask's processes end within a second or two of SIGTERM; once one took 20 s
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def connected_workers(address: str) -> int:
    from dask.distributed import Client

    with Client(address, timeout=10) as client:
        return len(client.scheduler_info()["workers"])


@pytest.mark.long
def test_cluster_over_tcp_with_a_worker_killed(tmp_path, cluster, reference):
    address, workers = cluster
    wait_until("two workers", lambda: connected_workers(address) == 2)
    db = tmp_path / "c.db"
    export = tmp_path / "x"
    synth = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from progress.cli import main; main()",
            "synth",
            *SMALL,
            *ENUM,  # 54 units to interrupt (compiled's 2t3i is 2)
            "--unit-size",
            "32",
            "--throttle",
            "0.15",
            "--scheduler",
            address,
            "--out",
            str(db),
            "--export",
            str(export),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until("some units done", lambda: units_done(db) >= 4 or synth.poll() is not None)
    assert synth.poll() is None, synth.communicate()
    assert units_done(db) < 40  # 54 units in all: the killed worker holds shards in flight
    workers[0].send_signal(signal.SIGKILL)
    workers[0].wait(timeout=10)
    out, err = synth.communicate(timeout=120)
    assert synth.returncode == 0, (out, err)
    assert "complete: no other test exists" in out and "tests found: 162;" in out
    assert units_done(db) == 54
    assert re.search("; 2 workers, ", err) and re.search("; 1 worker, ", err), err  # saw it go
    assert tree(export) == reference
