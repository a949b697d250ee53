"""The CUDA interpreter on a real GPU (marker `gpu`; run on the device machine).

Without CuPy and a GPU these tests are skipped -- a skip is not a pass: the
results of running them on an H200 are in docs/results/gpu/interp/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from progress.front.axb.parse import parse_program
from progress.gpu import pack as packing
from progress.gpu.encode import encode
from progress.gpu.heuristics import HEURISTICS
from progress.gpu.packed import run_packed
from progress.gpu.runner import Settings, run_tests

pytestmark = pytest.mark.gpu
DATA = Path(__file__).parent / "data" / "gpu"
LITMUS = Path(__file__).parent.parent / "litmus"


def _programs():
    names = ("pc_decreasing.axb", "pc_increasing.axb")
    return [parse_program((DATA / name).read_text(), name) for name in names]


@pytest.fixture(scope="module")
def interp():
    runner = pytest.importorskip("progress.gpu.cuda")
    try:
        engine = runner.CudaInterp()
    except Exception as error:  # BackendUnavailable: no CuPy or no GPU here
        pytest.skip(f"no CUDA device: {error}")
    engine.prepare([])
    return engine


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("tests", [1, 3])
def test_interpreter_mapping_matches_pack(interp, heuristic, tests):
    programs = (_programs() * 2)[:tests]
    m = 1 if heuristic == "plain" else 1000
    pack = packing.Pack(heuristic, 2, m, tests)
    loaded = interp.load(pack, packing.buffers([encode(p) for p in programs], m))
    assert interp.trace(loaded) == [packing.slot(pack, w) for w in range(pack.workgroups)]


def test_interpreter_producer_consumer(interp):
    settings = Settings(HEURISTICS, iterations=3, deadline_s=0.05)
    words = [encode(p) for p in _programs()]
    got = {(i, h): o for i, h, o in run_packed(interp, words, settings, interp.pack_workgroups)}
    assert got[0, "plain"].failed_iterations == 0
    assert got[0, "chunked"].failed_iterations == 3
    assert all(count > 0 for count in got[0, "chunked"].failed_instances)
    assert [got[1, h].failed_iterations for h in HEURISTICS] == [0, 0, 0]


def test_interpreter_agrees_with_generated_kernels_on_litmus(interp):
    """Under chunked the deterministic cells (P, F (N/N)) of the litmus
    corpus are the same either way (plain's and rr's livelocks come and go
    with co-residency: docs/gpu.md, Packing)."""
    from progress.gpu.cuda import CudaBackend

    files = sorted(path for path in LITMUS.rglob("*.axb") if "oopsla21" not in path.parts)  # the hand-written corpus
    programs = [parse_program(path.read_text(), path.name) for path in files]
    settings = Settings(("chunked",), iterations=4, deadline_s=0.05)
    backend = CudaBackend()
    backend.prepare(programs)
    per_test = {(i, h): o.failed_iterations for i, h, o in run_tests(backend, programs, settings)}
    words = [encode(p) for p in programs]
    packed = {(i, h): o.failed_iterations for i, h, o in run_packed(interp, words, settings, interp.pack_workgroups)}
    for key, failed in per_test.items():
        if failed in (0, 4) and packed[key] in (0, 4):
            assert packed[key] == failed, (programs[key[0]].name, key[1])


def test_stop_early_stops_only_mixed_tests(interp):
    settings = Settings(("chunked",), iterations=5, deadline_s=0.02)
    words = [encode(p) for p in _programs()]
    got = {i: o for i, _, o in run_packed(interp, words, settings, interp.pack_workgroups, stop_early=True)}
    assert got[0].iterations == 5 and got[0].failed_iterations == 5
    assert got[1].iterations == 5 and got[1].failed_iterations == 0
