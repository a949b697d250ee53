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
import re
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


@pytest.mark.long
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
    if meta["adapter_type"] == "CPU":
        assert meta["layouts"] == {"plain": "concat", "rr": "concat", "chunked": "concat"}
        assert meta["LP_NUM_THREADS"] == os.environ["LP_NUM_THREADS"]
    # the JSON written at the end has what the launches used, not the empty tables of before the first
    budgets = meta["calibration"]["interp_budgets"]
    assert budgets and all(b >= 1 for values in budgets.values() for b in values)


@pytest.mark.long
def test_a_run_killed_mid_launch_resumes_to_the_uninterrupted_csv(tmp_path, oopsla_dir, interp):
    """SIGKILL a real `progress run --codegen interp` on lavapipe between packs
    (--pack 640 with 32 instances: ten 2-thread tests a launch), resume it, and
    get the bytes of a run that was never interrupted: LP_NUM_THREADS=1 makes
    every cell deterministic on lavapipe. On a GPU adapter no heuristic's cells
    are (the H200 at 32 instances: a chunked cell of 2t3i differed between two
    runs), so there the resumed CSV must keep the rows written before the kill
    byte for byte, and hold every test once, in the uninterrupted run's order,
    each with a well-formed cell."""
    import signal
    import subprocess
    import time

    entry = "import sys; from progress.cli import main; main(sys.argv[1:])"
    env = {**os.environ, "LP_NUM_THREADS": "1"}

    def command(out):
        args = ["run", str(Path(oopsla_dir) / "2t3i"), "--backend", "wgpu", "--codegen", "interp"]
        args += ["--instances", "32", "--pack", "640", "--iterations", "1"]
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
    before = cut.read_text()
    rows = before.count("\n") - 1
    assert 10 <= rows < whole.read_text().count("\n") - 1, rows  # killed mid-run
    subprocess.run([*command(cut), "--resume"], env=env, check=True, capture_output=True)
    if interp.cpu:
        assert cut.read_bytes() == whole.read_bytes()
        return
    kept = before[: before.rfind("\n") + 1]  # a row cut off by the kill is run again
    assert cut.read_text().startswith(kept)
    resumed, uninterrupted = cut.read_text().splitlines(), whole.read_text().splitlines()
    assert resumed[0] == uninterrupted[0] == "test,plain,rr,chunked"
    assert [row.split(",")[0] for row in resumed] == [row.split(",")[0] for row in uninterrupted]
    cell = re.compile(r"P|F \(1/1\)")
    assert all(cell.fullmatch(c) for row in resumed[1:] for c in row.split(",")[1:]), resumed


LANES = """
import json, sys
from pathlib import Path
from progress.front.axb.parse import parse_program
from progress.gpu.encode import encode
from progress.gpu.packed import run_packed
from progress.gpu.runner import Settings
from progress.gpu.wgpu_interp import WgpuInterp
files = json.loads(sys.argv[1])
words = [encode(parse_program(Path(f).read_text(), Path(f).name)) for f in files]
engine = WgpuInterp(None, Settings())
engine.prepare([])
settings = Settings(("chunked",), iterations=1, deadline_s=0.05)
got = {i: o.failed_instances for i, _, o in run_packed(engine, words, settings, engine.pack_workgroups)}
print(json.dumps({"cpu": engine.cpu, "got": got}))
"""


def test_two_lavapipe_threads_give_one_threads_counts_on_cpu_layouts(oopsla_dir):
    """With LP_NUM_THREADS=2 lavapipe runs each half of a dispatch on its own
    thread. Interleaved, every chunked instance had its threads on both, and
    the counts moved from run to run (docs/results/gpu/interp/lavapipe_variance.md);
    concat (pack.CPU_LAYOUTS) puts each of an even number of tests in one
    half, so the counts must be the in-order reference's exactly."""
    import subprocess

    files = sorted(str(p) for p in Path(oopsla_dir).rglob("2t*/*.axb"))[:356]
    assert len(files) == 356
    env = {**os.environ, "LP_NUM_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, "-c", LANES, json.dumps(files)], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    if not result["cpu"]:
        pytest.skip("wgpu's adapter here is a GPU, not lavapipe")
    words = [encode(parse_program(Path(f).read_text(), Path(f).name)) for f in files]
    reference = SimInterp(spins=8)
    reference.auto_instances = lambda n: 64 // n  # type: ignore[method-assign]
    settings = Settings(("chunked",), iterations=1, deadline_s=0.05)
    want = {str(i): list(o.failed_instances) for i, _, o in run_packed(reference, words, settings, 1 << 20)}
    assert result["got"] == want
    assert sum(count for counts in want.values() for count in counts) > 0
