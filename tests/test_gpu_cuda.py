"""The CUDA backend on a real GPU (marker `gpu`; run on the device machine).

Without CuPy and a GPU these tests are skipped -- a skip is not a pass: the
results of running them on an H200 are recorded in docs/results/gpu/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from progress.front.axb.parse import parse_program
from progress.gpu.heuristics import HEURISTICS, geometry, slot
from progress.gpu.runner import Settings, run_tests

pytestmark = pytest.mark.gpu
DATA = Path(__file__).parent / "data" / "gpu"


@pytest.fixture(scope="module")
def backend():
    runner = pytest.importorskip("progress.gpu.cuda")
    try:
        engine = runner.CudaBackend()
    except Exception as error:  # BackendUnavailable: no CuPy or no GPU here
        pytest.skip(f"no CUDA device: {error}")
    programs = [parse_program((DATA / name).read_text(), name) for name in ("pc_decreasing.axb", "pc_increasing.axb")]
    engine.prepare(programs)
    return engine


@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_kernel_mapping_matches_heuristics(backend, heuristic):
    launch = geometry(heuristic, 2, backend.auto_instances(2))
    traced = backend.trace(0, launch)
    assert traced == [slot(launch, w) for w in range(launch.workgroups)]


def test_producer_consumer_decreasing_fails_chunked_passes_plain(backend):
    settings = Settings(("plain", "chunked"), iterations=3, deadline_s=0.05)
    outcomes = {h: o for i, h, o in run_tests(backend, backend.programs, settings) if i == 0}
    assert outcomes["plain"].failed_iterations == 0
    assert outcomes["chunked"].failed_iterations == 3
    assert all(count > 0 for count in outcomes["chunked"].failed_instances)


def test_producer_consumer_increasing_passes_everywhere(backend):
    settings = Settings(HEURISTICS, iterations=3, deadline_s=0.05)
    outcomes = [o for i, _, o in run_tests(backend, backend.programs, settings) if i == 1]
    assert [o.failed_iterations for o in outcomes] == [0, 0, 0]
