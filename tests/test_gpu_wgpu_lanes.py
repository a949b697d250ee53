"""`--scope lane` on wgpu: a test's threads as the lanes of one subgroup of one
workgroup, on whatever adapter is here (lavapipe in CI: subgroups of 8).

As in test_gpu_wgpu.py, a missing wgpu or adapter FAILS these tests unless
PROGRESS_SKIP_WGPU=1. What the lanes of a software rasterizer do with a spin
(lavapipe runs a subgroup's diverged paths one after another) is the device's
business, so the device tests assert the mapping, straight-line code, a spin
that never ends and the refusals, not which producer-consumer test passes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from progress.back import wgsl_source
from progress.cli import main
from progress.front.axb.parse import parse_program
from progress.gpu.heuristics import HEURISTICS, geometry, lane_blocks, lane_instances, lane_slot
from progress.gpu.results import parse_csv
from progress.gpu.runner import BackendUnavailable

os.environ.setdefault("LP_NUM_THREADS", "1")

DATA = Path(__file__).parent / "data" / "gpu"
SPIN_FOREVER = "test spin\nthread 0\n  AXB(x, 0, 0, false, 0)\nthread 1\n  AXB(y, 0, end, true, 1)\n"
STRAIGHT = "test straight\nthread 0\n  AXB(x, 0, end, true, 1)\nthread 1\n  AXB(x, 1, end, true, 2)\n"


def _wide(threads: int) -> str:
    """A straight-line test of `threads` threads."""
    return f"test wide{threads}\n" + "".join(f"thread {t}\n  AXB(x, 0, end, true, 1)\n" for t in range(threads))


@pytest.mark.parametrize("width", [4, 8, 32])
@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_every_instance_lies_in_one_subgroup_of_any_width(width, threads, heuristic):
    launch = geometry(heuristic, threads, 11)
    blocks, _ = lane_blocks(launch, width)
    seen: dict[tuple[int, int], int] = {}
    for block in range(blocks):
        for lane in range(width):
            found = lane_slot(launch, block, lane, width)
            if found is not None:
                assert found not in seen
                seen[found] = block
    assert set(seen) == {(i, t) for i in range(launch.instances) for t in range(threads)}
    assert all(len({seen[(i, t)] for t in range(threads)}) == 1 for i in range(launch.instances))
    assert lane_instances(threads, width, 64) == (64 // width) * (width // threads)


def test_the_lane_shader_refuses_a_test_wider_than_a_subgroup():
    with pytest.raises(ValueError, match="1 to 4 threads, not 5"):
        wgsl_source.lane_shader(parse_program(_wide(5), "wide"), 4)


def _unavailable(reason: str):
    if os.environ.get("PROGRESS_SKIP_WGPU") == "1":
        pytest.skip(f"PROGRESS_SKIP_WGPU=1: {reason}")
    pytest.fail(f"the wgpu backend cannot run here at the lane scope: {reason}", pytrace=False)


@pytest.fixture(scope="module")
def backend():
    try:
        from progress.gpu.wgpu_backend import WgpuBackend

        engine = WgpuBackend(scope="lane")
    except BackendUnavailable as error:
        _unavailable(str(error))
    programs = [parse_program(SPIN_FOREVER, "spin.axb"), parse_program(STRAIGHT, "straight.axb")]
    engine.prepare(programs)
    return engine


@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_lane_shader_mapping_matches_lane_slot(backend, heuristic):
    launch = geometry(heuristic, 2, 2 * backend.lanes + 1)  # a last workgroup partly idle
    blocks = backend.dispatched(launch)
    wanted = [
        lane_slot(launch, b, lane, backend.lanes) or (-1, -1) for b in range(blocks) for lane in range(backend.lanes)
    ]
    assert backend.trace(1, launch) == wanted


def test_straight_code_passes_and_a_spin_forever_fails_every_instance(backend):
    instances = backend.lanes  # two workgroups under rr and chunked
    assert [backend.run(1, geometry(h, 2, instances), 2, 0.02) for h in HEURISTICS] == [(0, 0)] * 3
    for heuristic in HEURISTICS:
        launch = geometry(heuristic, 2, instances)
        assert backend.run(0, launch, 2, 0.02) == (launch.instances,) * 2
    assert backend.cut_threads == 0


def test_a_workgroup_of_several_subgroups_stops_the_run(backend, monkeypatch):
    """Pretend the subgroup is twice as wide: the shader's num_subgroups check catches it."""
    from progress.gpu.wgpu_backend import WgpuBackend

    monkeypatch.setattr(WgpuBackend, "_subgroup_size", lambda self: 2 * backend.lanes)
    wide = WgpuBackend(scope="lane")
    wide.prepare([parse_program(STRAIGHT, "straight.axb")])
    wide.max_budget = 64  # no calibration needed for the launch itself
    wide.rates[1] = 1e6
    with pytest.raises(BackendUnavailable, match="ran as more than one subgroup"):
        wide.run(0, geometry("plain", 2, 1), 1, 0.01)


def test_cli_runs_lanes_on_wgpu_and_refuses_a_test_wider_than_a_subgroup(tmp_path, backend, capsys):
    out = tmp_path / "lanes.csv"
    args = ["run", str(DATA), "--backend", "wgpu", "--scope", "lane", "--iterations", "1", "--deadline", "10ms"]
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--instances", "2", "-o", str(out)])
    assert exit_info.value.code == 0
    heuristics, rows = parse_csv(out.read_text())
    assert heuristics == HEURISTICS and list(rows) == ["pc_decreasing.axb", "pc_increasing.axb"]
    meta = json.loads(out.with_suffix(".json").read_text())
    assert (meta["scope"], meta["subgroup_size"], meta["codegen"]) == ("lane", backend.lanes, "per-test")
    assert meta["geometry"]["lanes_per_subgroup"] == backend.lanes and "subgroup" in meta["geometry"]["plain"]
    wide = tmp_path / "wide.axb"
    wide.write_text(_wide(backend.lanes + 1))
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(wide), "--backend", "wgpu", "--scope", "lane", "-o", str(tmp_path / "w.csv")])
    assert exit_info.value.code == 2
    assert f"more than the {backend.lanes} lanes of a subgroup" in capsys.readouterr().err
