"""`--scope lane` on CUDA: a test's threads as the lanes of one warp (marker
`gpu` for the device tests; the mapping's own properties run everywhere)."""

from __future__ import annotations

from pathlib import Path

import pytest

from progress.front.axb.parse import parse_program
from progress.gpu.heuristics import HEURISTICS, WARP, geometry, lane_blocks, lane_instances, lane_slot
from progress.gpu.runner import Settings, run_tests

DATA = Path(__file__).parent / "data" / "gpu"


@pytest.mark.parametrize("threads", [1, 2, 3, 5, 32])
@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_every_instance_lies_in_one_warp_once(threads, heuristic):
    launch = geometry(heuristic, threads, 70 if threads < 32 else 3)
    blocks, lanes = lane_blocks(launch)
    assert lanes <= WARP
    seen = {}
    for block in range(blocks):
        for lane in range(lanes):
            slot = lane_slot(launch, block, lane)
            if slot is not None:
                assert slot not in seen
                seen[slot] = block
    assert set(seen) == {(i, t) for i in range(launch.instances) for t in range(threads)}
    for instance in range(launch.instances):
        assert len({seen[(instance, t)] for t in range(threads)}) == 1
    assert lane_instances(threads) * threads <= 65532


@pytest.fixture(scope="module")
def backend():
    runner = pytest.importorskip("progress.gpu.cuda")
    try:
        engine = runner.CudaBackend(scope="lane")
    except Exception as error:  # BackendUnavailable: no CuPy or no GPU here
        pytest.skip(f"no CUDA device: {error}")
    programs = [parse_program((DATA / name).read_text(), name) for name in ("pc_decreasing.axb", "pc_increasing.axb")]
    engine.prepare(programs)
    return engine


@pytest.mark.gpu
@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_lane_kernel_mapping_matches_lane_slot(backend, heuristic):
    launch = geometry(heuristic, 2, backend.auto_instances(2))
    blocks, lanes = lane_blocks(launch)
    traced = backend.trace(0, launch)
    wanted = [lane_slot(launch, b, lane) or (-1, -1) for b in range(blocks) for lane in range(lanes)]
    assert traced == wanted


@pytest.mark.gpu
def test_producer_consumer_increasing_passes_at_the_lane_scope(backend):
    settings = Settings(HEURISTICS, iterations=3, deadline_s=0.05)
    outcomes = [o for i, _, o in run_tests(backend, backend.programs, settings) if i == 1]
    assert [o.failed_iterations for o in outcomes] == [0, 0, 0]
