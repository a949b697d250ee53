"""The WGSL interpreter for real, on wgpu's adapter here (lavapipe in CI), against the
interpreter's contract in Python (tests/interp_sim.py).

LP_NUM_THREADS=1 (set before wgpu starts, as tests/test_gpu_wgpu.py does)
makes lavapipe run workgroups one at a time in id order: the scheduler the
reference interpreter implements, so the failed-instance counts must agree
exactly. As in test_gpu_wgpu.py, a missing wgpu or adapter FAILS these
tests unless PROGRESS_SKIP_WGPU=1."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from progress.cli import main
from progress.front.axb.parse import parse_program
from progress.gpu.encode import encode
from progress.gpu.heuristics import HEURISTICS
from progress.gpu.packed import run_packed
from progress.gpu.runner import BackendUnavailable, Settings

os.environ.setdefault("LP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).parent))
from interp_sim import SimInterp  # noqa: E402

DATA = Path(__file__).parent / "data" / "gpu"


@pytest.fixture(scope="module")
def interp():
    try:
        from progress.gpu.wgpu_interp import WgpuInterp

        engine = WgpuInterp(None, Settings())
    except BackendUnavailable as error:
        if os.environ.get("PROGRESS_SKIP_WGPU") == "1":
            pytest.skip(f"PROGRESS_SKIP_WGPU=1: {error}")
        pytest.fail(f"the wgpu backend cannot run here: {error}", pytrace=False)
    engine.prepare([])
    return engine


def test_the_shader_agrees_with_the_reference_on_the_suite(interp, oopsla_dir):
    files = sorted(Path(oopsla_dir).rglob("*.axb"))
    assert len(files) == 483
    words = [encode(parse_program(path.read_text(), path.name)) for path in files]
    settings = Settings(HEURISTICS, iterations=1, deadline_s=0.05)
    got = {(i, h): o.failed_instances for i, h, o in run_packed(interp, words, settings, interp.pack_workgroups)}
    reference = SimInterp(spins=8)
    reference.auto_instances = interp.auto_instances  # type: ignore[method-assign]
    want = {(i, h): o.failed_instances for i, h, o in run_packed(reference, words, settings, interp.pack_workgroups)}
    assert got == want
    assert any(count for counts in got.values() for count in counts)  # some instance did fail
    assert interp.cut_threads == 0


def test_stop_early_and_active_flags(interp):
    words = [encode(parse_program((DATA / n).read_text(), n)) for n in ("pc_decreasing.axb", "pc_increasing.axb")]
    settings = Settings(("chunked",), iterations=3, deadline_s=0.05)
    got = {i: o for i, _, o in run_packed(interp, words, settings, interp.pack_workgroups, stop_early=True)}
    assert got[0].failed_iterations == 3 and got[1].failed_iterations == 0


def test_cli_runs_the_wgsl_interpreter(tmp_path, interp, capsys):
    out = tmp_path / "r.csv"
    code = None
    try:
        main(["run", str(DATA), "--backend", "wgpu", "--codegen", "interp", "--iterations", "2", "-o", str(out)])
    except SystemExit as exit_:
        code = exit_.code
    assert code in (0, None), capsys.readouterr().err
    assert out.read_text().splitlines()[0] == "test,plain,rr,chunked"
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["codegen"] == "interp" and meta["backend"] == "wgpu" and meta["complete"]


def test_a_run_killed_mid_launch_resumes_to_the_uninterrupted_csv(tmp_path, oopsla_dir, interp):
    """SIGKILL a real `progress run --codegen interp` on lavapipe between packs
    (--pack 640 with 32 instances: ten 2-thread tests a launch), resume it, and
    get the bytes of a run that was never interrupted. LP_NUM_THREADS=1 makes
    every cell deterministic on lavapipe; on a GPU adapter only chunked's are
    (the H200: the same 246 failures every run, plain and rr livelocks vary),
    so there the run is chunked alone."""
    import signal
    import subprocess
    import time

    entry = "import sys; from progress.cli import main; main(sys.argv[1:])"
    env = {**os.environ, "LP_NUM_THREADS": "1"}

    def command(out):
        args = ["run", str(Path(oopsla_dir) / "2t3i"), "--backend", "wgpu", "--codegen", "interp"]
        args += ["--instances", "32", "--pack", "640", "--iterations", "1"]
        args += [] if interp.cpu else ["--heuristics", "chunked"]
        return [sys.executable, "-c", entry, *args, "-o", str(out)]

    whole = tmp_path / "whole.csv"
    subprocess.run(command(whole), env=env, check=True, capture_output=True)
    cut = tmp_path / "cut.csv"
    process = subprocess.Popen(command(cut), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not cut.exists() or cut.read_text().count("\n") < 12):
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    rows = cut.read_text().count("\n") - 1
    assert 10 <= rows < whole.read_text().count("\n") - 1, rows  # killed mid-run
    subprocess.run([*command(cut), "--resume"], env=env, check=True, capture_output=True)
    assert cut.read_bytes() == whole.read_bytes()
