"""`progress synth --engine cuda` (synth/cuda_run.py): the GPU judges, CPU
processes classify, and the run stores and exports what the compiled
engine does, byte for byte.

Without a GPU, the pipeline runs with the CPU judge standing in for
`cuda_judge.judge_units` (same contract: sorted test indices, judged per
unit), so batching, the unit cuts, the classifying processes, the packed
keys and the store are checked here; the kernel's per-unit counters are
checked on the host-compiled kernel in tests/test_synth_cuda.py. With CuPy
and a GPU (`pytest -m gpu`), the real engine is compared with `compiled`.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from conftest import file_tree

from progress.cli import main
from progress.synth import cuda_judge, cuda_run
from progress.synth.fast_judge import judge_range
from progress.synth.space import Bounds
from progress.synth.stream import StreamSpace


def run(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(["synth", *args])
    out, err = capsys.readouterr()
    return stop.value.code, out, err


def cpu_judge_units(table, start, stop, per_counter):
    """`cuda_judge.judge_units`'s contract with the CPU judge, stretch by stretch."""
    found, judged = [], []
    for lo in range(start, stop, per_counter):
        indices, count = judge_range(table, lo, min(stop, lo + per_counter))
        found.append(indices)
        judged.append(count)
    return np.concatenate(found), np.array(judged, dtype=np.int64)


@pytest.fixture
def cpu_standing_in(monkeypatch):
    """The cuda engine with the CPU judge in place of the GPU, and batches of a few units."""
    monkeypatch.setattr(cuda_judge, "require", lambda: None)
    monkeypatch.setattr(cuda_judge, "judge_units", cpu_judge_units)
    monkeypatch.setattr(cuda_run, "BATCH_RAW", 5 * 8 * 512)  # with --unit-size 8: 5 units a launch


def rows(db, table):
    with sqlite3.connect(db) as connection:
        return connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()


def same_run(tmp_path, capsys, bounds_args, cuda_args):
    """Run compiled and cuda on the same bounds; compare stores' tests and units, and exports."""
    small = ["--unit-size", "8"]
    code, out, _ = run(capsys, *bounds_args, *small, "--out", str(tmp_path / "c.db"), "--export", str(tmp_path / "c"))
    assert code == 0
    code, out_cuda, _ = run(
        capsys,
        *bounds_args,
        *small,
        "--engine",
        "cuda",
        *cuda_args,
        "--out",
        str(tmp_path / "g.db"),
        "--export",
        str(tmp_path / "g"),
    )
    assert code == 0, out_cuda
    assert "engine cuda" in out_cuda and "complete: no other test exists" in out_cuda
    assert "peak resident memory: this process" in out_cuda
    assert rows(tmp_path / "c.db", "tests") == rows(tmp_path / "g.db", "tests")
    assert rows(tmp_path / "c.db", "units") == rows(tmp_path / "g.db", "units")
    tree = file_tree(tmp_path / "c")
    assert tree and tree == file_tree(tmp_path / "g")
    return out_cuda


def test_batches_are_runs_of_one_partition():
    space = StreamSpace(Bounds(2, 4), 4096)
    pending = [u for u in range(space.unit_count) if u != 3]
    old = cuda_run.BATCH_RAW
    try:
        cuda_run.BATCH_RAW = 4 * 4096
        batches = list(cuda_run.batches(space, pending))
    finally:
        cuda_run.BATCH_RAW = old
    assert [u for run in batches for u in run] == pending
    for run in batches:
        assert run == list(range(run[0], run[-1] + 1))
        assert len({space.unit(u).partition for u in run}) == 1
        assert space.unit(run[-1]).stop - space.unit(run[0]).start <= 4 * 4096
    assert any(len(run) > 1 for run in batches)
    assert all(3 not in run for run in batches)


def test_judged_units_cut_a_launch_into_the_compiled_units():
    space = StreamSpace(Bounds(3, 4), 2048)
    from progress.synth.fast_judge import judge_unit

    seen = list(cuda_run.judged_units(space, list(range(space.unit_count)), cpu_judge_units, None))
    assert [u for u, *_ in seen] == list(range(space.unit_count))
    for unit_id, indices, judged, _ in seen:
        expected = judge_unit(Bounds(3, 4), unit_id, 2048)
        assert judged == expected.judged
        assert space.table(space.unit(unit_id).partition).candidates(indices) == list(expected.found)


def test_cuda_engine_without_gpu_parts_one_process(tmp_path, capsys, cpu_standing_in):
    out = same_run(tmp_path, capsys, ["-t", "2", "-i", "3"], [])
    assert "tests found: 162" in out


@pytest.mark.long
def test_cuda_engine_classifying_in_two_processes(tmp_path, capsys, cpu_standing_in):
    out = same_run(tmp_path, capsys, ["-t", "3", "-i", "4"], ["--workers", "2"])
    assert "tests found: 4146" in out
    memory = out.split("classifying processes (pid: MB): ")[1].splitlines()[0]
    assert len(memory.split(", ")) == 2  # one peak per classifying process


def test_cuda_engine_is_a_usage_error_without_cupy_or_gpu(tmp_path, capsys):
    try:
        cuda_judge.require()
        pytest.skip("CuPy and a GPU are here")
    except cuda_judge.CudaUnavailable:
        pass
    code, out, err = run(capsys, "-t", "2", "-i", "3", "--engine", "cuda", "--out", str(tmp_path / "g.db"))
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "--engine cuda" in lines[0] and "CuPy and a CUDA GPU" in lines[0]
    assert not (tmp_path / "g.db").exists()


def test_cuda_engine_refuses_a_scheduler(tmp_path, capsys, cpu_standing_in):
    code, _, err = run(capsys, "-t", "2", "-i", "3", "--engine", "cuda", "--scheduler", "tcp://127.0.0.1:1")
    assert code == 2 and "no --scheduler" in err


@pytest.mark.gpu
@pytest.mark.parametrize(
    "bounds_args", [["-t", "2", "-i", "4"], ["-t", "3", "-i", "4"], ["-t", "2", "-i", "3", "--locations", "3"]]
)
def test_gpu_cuda_engine_exports_what_compiled_exports(tmp_path, capsys, bounds_args):
    try:
        cuda_judge.require()
    except cuda_judge.CudaUnavailable as error:
        pytest.skip(str(error))
    old = cuda_run.BATCH_RAW
    cuda_run.BATCH_RAW = 5 * 8 * 512  # several launches of several units
    try:
        same_run(tmp_path, capsys, bounds_args, ["--workers", "2"])
    finally:
        cuda_run.BATCH_RAW = old


@pytest.mark.gpu
def test_gpu_judge_units_counts_per_unit():
    try:
        cuda_judge.require()
    except cuda_judge.CudaUnavailable as error:
        pytest.skip(str(error))
    space = StreamSpace(Bounds(3, 5), 1 << 18)
    for partition in range(len(space.partitions)):
        table = space.table(partition)
        found, judged = cuda_judge.judge_units(table, 0, table.size, 1 << 18)
        expected = cpu_judge_units(table, 0, table.size, 1 << 18)
        assert np.array_equal(found, expected[0]) and np.array_equal(judged, expected[1])


@pytest.mark.parametrize(
    "bounds",
    [Bounds(2, 4), Bounds(3, 4), Bounds(4, 4), Bounds(2, 3, locations=3), Bounds(2, 3, values=3)],
    ids=lambda b: f"{b.label}-L{b.locations}V{b.values}",
)
def test_classify_indices_is_classify_batch_and_pack(bounds):
    """Every test of the configuration: the vectorized records and keys give
    `classify_batch`'s masks and `KeyCodec.pack`'s keys (the oracle path)."""
    from progress.synth.store import KeyCodec
    from progress.synth.stream_classify import classify_indices
    from progress.synth.verdicts import classify_batch

    space = StreamSpace(bounds)
    codec = KeyCodec(bounds)
    total = 0
    for partition in range(len(space.partitions)):
        table = space.table(partition)
        indices, _ = judge_range(table, 0, table.size)
        candidates = table.candidates(indices)
        names, masks, keys = classify_indices(table, codec, indices)
        expected_names, expected_masks = classify_batch(candidates)
        assert names == expected_names
        assert masks == expected_masks
        assert keys == [codec.pack(c) for c in candidates]
        total += len(indices)
    assert total > 100


def test_classify_indices_sends_what_the_kernel_cannot_take_to_classify_batch(monkeypatch):
    from progress.core import batch
    from progress.synth.store import KeyCodec
    from progress.synth.stream_classify import classify_indices
    from progress.synth.verdicts import classify_batch

    table = StreamSpace(Bounds(2, 3)).table(0)
    indices, _ = judge_range(table, 0, table.size)
    monkeypatch.setattr(batch, "CAP", 3)  # every LTS is too big: all through classify_batch
    _, masks, _ = classify_indices(table, KeyCodec(Bounds(2, 3)), indices)
    assert len(indices) > 10 and masks == classify_batch(table.candidates(indices))[1]


def test_keys_written_from_the_store_are_the_keys_written_from_candidates(tmp_path, capsys):
    """`keys.write_packed` (streamed from the store's keys: --save-keys, report_suites)
    writes `keys.write`'s bytes; a wrong count is refused."""
    import io

    from progress.synth import keys
    from progress.synth.store import Store

    code, _, _ = run(capsys, "-t", "3", "-i", "4", "--out", str(tmp_path / "a.db"))
    assert code == 0
    bounds = Bounds(3, 4)
    with Store(tmp_path / "a.db", readonly=True) as store:
        slow, fast = io.BytesIO(), io.BytesIO()
        assert keys.write(slow, bounds, store.labels(), store.tests()) == 4146
        assert keys.write_packed(fast, bounds, store.labels(), 4146, store.packed_tests()) == 4146
        assert slow.getvalue() == fast.getvalue()
        with pytest.raises(ValueError):
            keys.write_packed(io.BytesIO(), bounds, store.labels(), 4147, store.packed_tests())


@pytest.mark.long
def test_cuda_engine_stops_at_the_time_limit_and_resumes(tmp_path, capsys, cpu_standing_in, monkeypatch):
    """A launch is not started past the deadline; the units done stay; --resume
    finishes the run and the export is the compiled engine's."""
    import time

    def slow_judge(table, start, stop, per_counter):
        time.sleep(0.3)
        return cpu_judge_units(table, start, stop, per_counter)

    monkeypatch.setattr(cuda_judge, "judge_units", slow_judge)
    args = ["-t", "3", "-i", "4", "--unit-size", "8", "--engine", "cuda", "--out", str(tmp_path / "g.db")]
    code, out, _ = run(capsys, *args, "--time-limit", "1")
    assert code == 3 and "stopped at the time limit" in out
    with sqlite3.connect(tmp_path / "g.db") as connection:
        done = connection.execute("SELECT COUNT(*) FROM units").fetchone()[0]
    assert 0 < done < 147  # 3t4i: 147 units of 4096 raw indices
    monkeypatch.setattr(cuda_judge, "judge_units", cpu_judge_units)
    code, out, _ = run(capsys, "--resume", "--out", str(tmp_path / "g.db"), "--export", str(tmp_path / "g"))
    assert code == 0 and "complete" in out and "tests found: 4146" in out
    code, _, _ = run(capsys, "-t", "3", "-i", "4", "--out", str(tmp_path / "c.db"), "--export", str(tmp_path / "c"))
    assert code == 0 and file_tree(tmp_path / "c") == file_tree(tmp_path / "g")


def test_keys_format_2_round_trip_and_export(tmp_path, capsys):
    """--save-keys FILE.xz (format 2) rebuilds the export byte for byte, the
    same bytes twice, under a third of format 1's size (a tenth on 2t5i-4t5i)."""
    base = ["-t", "3", "-i", "4", "--out", str(tmp_path / "a.db")]
    code, _, _ = run(capsys, *base, "--export", str(tmp_path / "x"), "--save-keys", str(tmp_path / "k.keys.gz"))
    assert code == 0
    code, out, _ = run(capsys, "--resume", "--out", str(tmp_path / "a.db"), "--save-keys", str(tmp_path / "k.keys.xz"))
    assert code == 0 and "wrote 4146 test(s)" in out
    code, _, _ = run(capsys, "--resume", "--out", str(tmp_path / "a.db"), "--save-keys", str(tmp_path / "k2.keys.xz"))
    assert (tmp_path / "k.keys.xz").read_bytes() == (tmp_path / "k2.keys.xz").read_bytes()
    code, out, _ = run(capsys, "--from-keys", str(tmp_path / "k.keys.xz"), "--export", str(tmp_path / "y"))
    assert code == 0 and "exported 4146 test(s)" in out
    assert file_tree(tmp_path / "x") == file_tree(tmp_path / "y")
    assert (tmp_path / "k.keys.xz").stat().st_size * 3 < (tmp_path / "k.keys.gz").stat().st_size


def test_keys_format_2_wide_keys_and_many_vectors(tmp_path):
    """Two-byte instruction numbers (L=3, V=3, 5 instructions) and more than
    256 verdict vectors (two-byte ids), over several blocks: read back exactly."""
    import io
    import random

    from progress.synth import keys
    from progress.synth.store import KeyCodec

    bounds = Bounds(2, 5, locations=3, values=3)
    codec = KeyCodec(bounds)
    assert codec.width == 2
    space = StreamSpace(bounds)
    from progress.synth.canonical import is_canonical

    rows = []
    for p in (0, 2):
        table = space.table(p)
        candidates = table.candidates(np.arange(0, table.size, table.size // 8000))
        rows += [codec.pack(c) for c in candidates if is_canonical(c)]
    random.seed(7)
    labels = tuple(f"v{i}" for i in range(6))
    tests = [(key, random.randrange(400)) for key in sorted(rows)]
    old = keys.BLOCK
    keys.BLOCK = 1000
    try:
        buffer = io.BytesIO()
        assert keys.write_xz(buffer, bounds, labels, len(tests), lambda: iter(tests)) == len(tests)
        path = tmp_path / "w.keys.xz"
        path.write_bytes(buffer.getvalue())
        with keys.open_keys(path) as source:
            back = [(codec.pack(c), m) for c, m in source.tests()]
    finally:
        keys.BLOCK = old
    assert len(tests) > 2500 and len({m for _, m in tests}) > 256
    assert back == tests


@pytest.mark.parametrize("damage", ["truncated", "count", "order"])
def test_damaged_keys_format_2_is_one_line_exit_2(tmp_path, capsys, damage):
    import io
    import json
    import lzma

    from progress.synth import keys
    from progress.synth.store import Store

    code, _, _ = run(capsys, "-t", "2", "-i", "3", "--out", str(tmp_path / "a.db"))
    with Store(tmp_path / "a.db", readonly=True) as store:
        buffer = io.BytesIO()
        keys.write_xz(buffer, Bounds(2, 3), store.labels(), 162, store.packed_tests)
    data = lzma.decompress(buffer.getvalue())
    head, body = data.split(b"\n", 1)
    header = json.loads(head)
    if damage == "truncated":
        body = body[: len(body) // 2]
    elif damage == "count":
        header["partitions"][0][1] += 1
        header["tests"] += 1
    else:
        body = bytes([0, 0]) + body[2:]  # a zero delta after the first test: not ascending
    path = tmp_path / "d.keys.xz"
    path.write_bytes(lzma.compress(json.dumps(header).encode() + b"\n" + body, format=lzma.FORMAT_XZ))
    code, out, err = run(capsys, "--from-keys", str(path), "--export", str(tmp_path / "x"))
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and str(path) in lines[0], err
