"""The WebGPU backend for real: wgpu on whatever adapter is here (lavapipe in CI).

CI installs lavapipe (`.ci/system-deps`: Debian's mesa-vulkan-drivers) and
wgpu (the `test` extra), so these tests run shaders on a software Vulkan.
A skip is not a pass: where wgpu or an adapter is missing, every test here
FAILS with the reason, unless PROGRESS_SKIP_WGPU=1 is set (an explicit
opt-out that CI does not use).

lavapipe runs workgroups on a pool of CPU threads; LP_NUM_THREADS=1 (set here,
before wgpu starts) makes it run them one at a time in id order, so which
producer-consumer test passes is deterministic: thread 0 of an instance always
runs before thread 1.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from progress.back import wgsl_source
from progress.cli import main
from progress.front.axb.parse import parse_program
from progress.gpu.heuristics import HEURISTICS, geometry, slot
from progress.gpu.results import parse_csv
from progress.gpu.runner import BackendUnavailable

os.environ.setdefault("LP_NUM_THREADS", "1")

DATA = Path(__file__).parent / "data" / "gpu"
LITMUS = Path(__file__).parents[1] / "litmus"
SPIN_FOREVER = "test spin\nthread 0\n  AXB(x, 0, 0, false, 0)\nthread 1\n  AXB(y, 0, end, true, 1)\n"
STRAIGHT = "test straight\nthread 0\n  AXB(x, 0, end, true, 1)\nthread 1\n  AXB(x, 1, end, true, 2)\n"


def _unavailable(reason: str):
    if os.environ.get("PROGRESS_SKIP_WGPU") == "1":
        pytest.skip(f"PROGRESS_SKIP_WGPU=1: {reason}")
    pytest.fail(
        f"the wgpu backend cannot run here: {reason}\n(install with pip install -e '.[test]' and .ci/system-deps; "
        "set PROGRESS_SKIP_WGPU=1 to skip these tests knowingly)",
        pytrace=False,
    )


@pytest.fixture(scope="module")
def backend():
    try:
        from progress.gpu.wgpu_backend import WgpuBackend

        engine = WgpuBackend()
    except BackendUnavailable as error:
        _unavailable(str(error))
    programs = [parse_program((DATA / name).read_text(), name) for name in ("pc_decreasing.axb", "pc_increasing.axb")]
    programs += [parse_program(SPIN_FOREVER, "spin.axb"), parse_program(STRAIGHT, "straight.axb")]
    engine.prepare(programs)
    return engine


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("instances", [1, 3, 5])
def test_shader_mapping_matches_heuristics(backend, heuristic, instances):
    launch = geometry(heuristic, 2, instances)
    assert backend.trace(0, launch) == [slot(launch, w) for w in range(launch.workgroups)]


def test_a_grid_over_two_dimensions_keeps_the_mapping(backend, monkeypatch):
    """Past maxComputeWorkgroupsPerDimension the workgroups go over x and y;
    pretend the limit is 4 so that 2 x 7 workgroups need a 4 x 4 grid."""
    monkeypatch.setattr(backend, "max_per_dimension", 4)
    for heuristic in ("rr", "chunked"):
        launch = geometry(heuristic, 2, 7)
        assert backend.trace(0, launch) == [slot(launch, w) for w in range(launch.workgroups)]
    with pytest.raises(BackendUnavailable, match="exceed this device's dispatch grid"):
        backend.run(0, geometry("rr", 2, 9), 1, 0.01)


def test_terminating_tests_pass(backend):
    for index in (1, 3):  # pc_increasing (thread 1 waits for thread 0), straight-line code
        assert [backend.run(index, geometry(h, 2, 6), 3, 0.05) for h in HEURISTICS] == [(0, 0, 0)] * 3


def test_a_spin_that_never_ends_fails_within_the_deadline(backend):
    for heuristic, instances in (("plain", 1), ("rr", 6), ("chunked", 6)):
        start = time.perf_counter()
        failed = backend.run(2, geometry(heuristic, 2, 6), 4, 0.02)
        elapsed = time.perf_counter() - start
        assert failed == (instances,) * 4  # every iteration, every instance
        assert elapsed < 4 * 0.02 * 10 + 2.0  # the budget stopped it, in time (loose: shared CPUs)
    assert backend.cut_threads == 0


def test_the_consumer_waiting_for_a_later_workgroup_starves(backend):
    """pc_decreasing: thread 0 waits for thread 1, which one lavapipe thread
    runs only after thread 0 gave up: F everywhere (a real GPU passes plain)."""
    if backend.cpu:
        failed = [backend.run(0, geometry(h, 2, 4), 2, 0.01) for h in HEURISTICS]
        assert failed == [(1, 1), (4, 4), (4, 4)]
    else:  # a GPU starves it under chunked only once the launch outgrows what is co-resident
        many = backend.auto_instances(2)
        assert backend.run(0, geometry("chunked", 2, many), 2, 0.05) == (many, many)


def test_the_budget_limit_is_measured_and_a_cut_loop_counts_as_a_timeout(backend):
    from progress.gpu.wgpu_backend import MAX_BUDGET, PROBE_BUDGET

    limit = backend.budget_limit()
    if limit == MAX_BUDGET:  # no cap seen: a probe of 2^20 spins ran uncut (a GPU: under a second)
        assert backend._spin(1, PROBE_BUDGET)[1:] == (1, 0)
    else:  # an implementation that cuts loops (lavapipe: 65535 iterations): the limit is exact
        assert backend._spin(1, limit)[1:] == (1, 0)
        assert backend._spin(1, limit + 8)[1:] == (1, 1)  # cut, and counted as a timeout
    assert backend.budget(2, 1e9) == limit and backend.budget(2, 1e-12) == 1


def test_every_suite_shader_passes_wgpus_compiler(backend, oopsla_dir):
    """All 483 published tests and the litmus corpus: naga parses and
    validates each WGSL module (create_shader_module raises on an error)."""
    paths = sorted(oopsla_dir.glob("*/*.axb")) + sorted(LITMUS.glob("*/*.axb"))
    assert len(paths) >= 483 + 13
    for path in paths:
        program = parse_program(path.read_text(), str(path))
        backend.device.create_shader_module(label=path.name, code=wgsl_source.shader(program))


def test_cli_runs_wgpu_with_the_same_layout_and_conform_reads_it(tmp_path, backend, capsys):
    out = tmp_path / "w.csv"
    # lavapipe starves pc_decreasing under chunked at any size; a GPU only in a launch too big to be co-resident
    instances = ["--instances", "3"] if backend.cpu else []
    args = ["run", str(DATA), "--backend", "wgpu", "--codegen", "per-test", "--iterations", "2", "--deadline", "20ms"]
    args += instances
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "-o", str(out)])
    assert exit_info.value.code == 0
    heuristics, rows = parse_csv(out.read_text())
    assert heuristics == HEURISTICS and list(rows) == ["pc_decreasing.axb", "pc_increasing.axb"]
    assert rows["pc_increasing.axb"] == {"plain": "P", "rr": "P", "chunked": "P"}
    assert rows["pc_decreasing.axb"]["chunked"] == "F (2/2)"
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["complete"] and meta["backend"] == "wgpu" and meta["api"] in ("Vulkan", "Metal", "D3D12")
    assert meta["device"] and meta["limits"]["max-compute-workgroups-per-dimension"] >= 65535
    calibration = meta["calibration"]
    n = 3 if backend.cpu else backend.auto_instances(2)
    assert set(calibration["spins_per_second"]) == {"2", str(2 * n)}  # plain: N = 2; rr, chunked: 2 x instances
    assert all(rate > 0 for rate in calibration["spins_per_second"].values())
    assert all(budget >= 1 for budget in calibration["budget_at_deadline"].values())
    details = [json.loads(line) for line in out.with_suffix(".jsonl").read_text().splitlines()]
    assert [set(d) for d in details] == [
        {"test", "heuristic", "threads", "instances", "workgroups", "result", "failed_instances", "seconds"}
    ] * 6
    assert [(d["heuristic"], d["workgroups"]) for d in details[:3]] == [("plain", 2), ("rr", 2 * n), ("chunked", 2 * n)]
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["conform", str(out), "--suite", str(DATA), "--format", "json"])
    assert exit_info.value.code == 0
    assert json.loads(capsys.readouterr().out)


def test_cli_names_the_adapters_when_none_matches(tmp_path, backend, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(DATA), "--backend", "wgpu", "--adapter", "no such gpu", "-o", str(tmp_path / "x.csv")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "no wgpu adapter matches --adapter 'no such gpu'" in err and backend.adapter.info["device"] in err


def test_adapter_on_another_backend_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(DATA), "--backend", "cpu", "--adapter", "x", "-o", str(tmp_path / "x.csv")])
    assert exit_info.value.code == 2
    assert "--adapter applies to --backend wgpu only" in capsys.readouterr().err


def test_no_adapter_is_exit_2_naming_what_to_install(tmp_path, capsys, monkeypatch):
    """Simulated: a wgpu whose instance finds no adapter at all (no fixture:
    this runs even where wgpu is missing)."""
    from types import SimpleNamespace

    from progress.gpu import wgpu_backend

    nothing = SimpleNamespace(request_adapter_sync=lambda **_: None, enumerate_adapters_sync=lambda: [])
    monkeypatch.setattr(wgpu_backend, "_wgpu", lambda: SimpleNamespace(gpu=nothing))
    for adapter in ([], ["--adapter", "h200"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["run", str(DATA), "--backend", "wgpu", *adapter, "-o", str(tmp_path / "x.csv")])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert "the wgpu backend found no GPU adapter (Vulkan, Metal or D3D12)" in err
        assert "apt-get install mesa-vulkan-drivers libvulkan1" in err and "Traceback" not in err
