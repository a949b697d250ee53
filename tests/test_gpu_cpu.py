"""The CPU backend: the generated C on real POSIX threads, and `progress run` on it.

This is what CI runs of the GPU runner: the kernel body, the heuristics'
arithmetic as compiled code, time-outs, and the CSV/JSON/JSONL output.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from progress.cli import main
from progress.front.axb.parse import parse_program
from progress.gpu.heuristics import HEURISTICS, geometry, slot
from progress.gpu.runner import Settings, run_tests

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
DATA = Path(__file__).parent / "data" / "gpu"
SPIN_FOREVER = "test spin\nthread 0\n  AXB(x, 0, 0, false, 0)\nthread 1\n  AXB(y, 0, end, true, 1)\n"


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    from progress.gpu.cpu import CpuBackend

    engine = CpuBackend(cache_dir=tmp_path_factory.mktemp("cc"))
    programs = [parse_program((DATA / name).read_text(), name) for name in ("pc_decreasing.axb", "pc_increasing.axb")]
    engine.prepare(programs + [parse_program(SPIN_FOREVER, "spin.axb")])
    return engine


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("instances", [1, 3, 5])
def test_compiled_mapping_matches_heuristics(backend, heuristic, instances):
    launch = geometry(heuristic, 2, instances)
    assert backend.trace(0, launch) == [slot(launch, w) for w in range(launch.workgroups)]


def test_producer_consumer_pass_on_preemptive_threads(backend):
    settings = Settings(HEURISTICS, iterations=3, deadline_s=5.0, instances=4)
    outcomes = [o for i, _, o in run_tests(backend, backend.programs[:2], settings)]
    assert [o.failed_iterations for o in outcomes] == [0] * 6
    assert [o.launch.workgroups for o in outcomes] == [2, 8, 8] * 2


def test_a_spin_that_never_ends_times_out_in_every_instance(backend):
    launch = geometry("rr", 2, 3)
    assert backend.run(2, launch, 2, 0.02) == (3, 3)
    assert backend.run(2, geometry("plain", 2, 3), 1, 0.02) == (1,)


def test_the_compile_cache_reuses_executables(backend):
    before = list(backend.executables)
    backend.prepare(list(backend.programs))
    assert backend.executables == before


def _run(tmp_path, *extra):
    out = tmp_path / "r.csv"
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "run",
                str(DATA),
                "--backend",
                "cpu",
                "--iterations",
                "2",
                "--deadline",
                "2s",
                "--instances",
                "2",
                "-o",
                str(out),
                *extra,
            ]
        )
    assert exit_info.value.code == 0
    return out


def test_cli_writes_csv_json_and_jsonl(tmp_path):
    out = _run(tmp_path)
    assert out.read_text() == "test,plain,rr,chunked\npc_decreasing.axb,P,P,P\npc_increasing.axb,P,P,P\n"
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["complete"] and meta["backend"] == "cpu" and meta["iterations"] == 2
    assert meta["paths"] == [str(DATA)] and meta["tests"] == 2
    assert meta["deadline_s"] == 2.0 and meta["failed_tests"] == {"plain": 0, "rr": 0, "chunked": 0}
    details = [json.loads(line) for line in out.with_suffix(".jsonl").read_text().splitlines()]
    assert [(d["test"], d["heuristic"], d["workgroups"]) for d in details[:3]] == [
        ("pc_decreasing.axb", "plain", 2),
        ("pc_decreasing.axb", "rr", 4),
        ("pc_decreasing.axb", "chunked", 4),
    ]


def test_cli_is_deterministic_and_resumes(tmp_path):
    first = _run(tmp_path).read_bytes()
    truncated = tmp_path / "r.csv"
    truncated.write_bytes(first.splitlines(keepends=True)[0] + first.splitlines(keepends=True)[1])
    resumed = _run(tmp_path, "--resume").read_bytes()
    assert resumed == first
    assert len(truncated.with_suffix(".jsonl").read_text().splitlines()) == 6 + 3


def test_cli_records_failures_as_f_k_of_n(tmp_path):
    spin = tmp_path / "spin.axb"
    spin.write_text(SPIN_FOREVER)
    out = tmp_path / "s.csv"
    with pytest.raises(SystemExit):
        main(
            [
                "run",
                str(spin),
                "--backend",
                "cpu",
                "--iterations",
                "3",
                "--deadline",
                "10ms",
                "--heuristics",
                "chunked,plain",
                "-o",
                str(out),
            ]
        )
    assert out.read_text().splitlines() == ["test,plain,chunked", f"{spin.as_posix()},F (3/3),F (3/3)"]


@pytest.mark.parametrize("args", [["--heuristics", "zigzag"], ["--deadline", "-1s"], ["--instances", "many"]])
def test_cli_rejects_bad_options(tmp_path, args, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(DATA), "--backend", "cpu", "-o", str(tmp_path / "x.csv"), *args])
    assert exit_info.value.code == 2
    assert "error" in capsys.readouterr().err


def test_the_host_guard_kills_a_run_that_outlives_it(tmp_path):
    from progress.gpu.cpu import CpuBackend
    from progress.gpu.runner import DeviceHang

    engine = CpuBackend(cache_dir=tmp_path, guard_margin_s=0.2)
    with pytest.raises(DeviceHang) as error:
        engine._execute(["sleep", "10"], 1, 0.01)
    assert error.value.exit_code == 3


def test_cuda_backend_without_cupy_is_a_usage_error(tmp_path, capsys):
    if importlib.util.find_spec("cupy") is not None:
        pytest.skip("CuPy is installed here; tests/test_gpu_cuda.py covers the backend")
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(DATA), "--backend", "cuda", "-o", str(tmp_path / "x.csv")])
    assert exit_info.value.code == 2
    assert "needs CuPy and a CUDA GPU" in capsys.readouterr().err
