"""The CUDA judge (synth/cuda_judge.py) against the compiled CPU judge.

Without a GPU, the kernel's own source is compiled for the host with a C++
compiler (CUDA's few built-ins stubbed, GPU threads run one after the
other) and must give the CPU judge's tests and judged counts, partition by
partition, with chunks that cut skipped stretches anywhere. With CuPy and
a GPU (`pytest -m gpu`), the real kernel is compared the same way
(benchmarks/bench_synth_cuda.py does it up to 2t5i and 3t5i on the H200)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from progress.synth.cuda_judge import SOURCE, _bucket, chunk_for
from progress.synth.fast_judge import judge_range
from progress.synth.space import Bounds
from progress.synth.stream import PartitionTable, StreamSpace

CONFIGS = [
    Bounds(2, 3),
    Bounds(3, 3),
    Bounds(2, 4),
    Bounds(3, 4),
    Bounds(2, 3, locations=3),
    Bounds(2, 3, values=3),
    Bounds(2, 2, locations=3, values=3),
]

HOST_PRELUDE = """
#include <stdint.h>
#define __global__
#define __restrict__
struct Dim { unsigned x; };
static Dim blockIdx, blockDim, threadIdx;
static unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    unsigned long long o = *p; *p += v; return o;
}
"""

HOST_DRIVER = """
extern "C" void run(long long workers, const i64* place, const int* radices, const int* opt_loc,
    const int* contrib, const int* index_of, const int* last, const int* step_delta, const u64* step_bits,
    const u64* need_bits, const int* memory_of, const int* slot_at, int slots, int threads, int width,
    int memories, int end_lo, int end_hi, i64 start, i64 stop, i64 chunk, i64* found, u64* nfound,
    i64 capacity, u64* judged_total, i64 per_counter) {
  blockDim.x = 1; threadIdx.x = 0;
  for (long long w = 0; w < workers; w++) {
    blockIdx.x = (unsigned)w;
    judge(place, radices, opt_loc, contrib, index_of, last, step_delta, step_bits, need_bits, memory_of, slot_at,
      slots, threads, width, memories, end_lo, end_hi, start, stop, chunk, found, nfound, capacity, judged_total,
      per_counter);
  }
}
"""


@pytest.fixture(scope="module")
def host_kernel(tmp_path_factory):
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler")
    folder = tmp_path_factory.mktemp("kernel")
    libraries: dict = {}

    def load(max_states: int, max_slots: int):
        key = (max_states, max_slots)
        if key not in libraries:
            source = folder / f"judge_{max_states}_{max_slots}.cpp"
            source.write_text(
                f"#define MAX_STATES {max_states}\n#define MAX_SLOTS {max_slots}\n"
                + HOST_PRELUDE
                + SOURCE
                + HOST_DRIVER
            )
            library = source.with_suffix(".so")
            subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
            libraries[key] = ctypes.CDLL(str(library))
        return libraries[key]

    return load


def run_on_host(load, table: PartitionTable, start: int, stop: int, chunk: int, per_counter: int = 0):
    """The kernel over start..stop: (sorted tests, judged per stretch of
    `per_counter` indices; one stretch when 0)."""
    library = load(_bucket(table.states), len(table.radices))
    keep = []

    def pointer(array, dtype):
        array = np.ascontiguousarray(array, dtype=dtype)
        keep.append(array)
        return array.ctypes.data_as(ctypes.c_void_p)

    size = stop - start
    per_counter = per_counter or size
    found = np.zeros(size + 1, dtype=np.int64)
    nfound = np.zeros(1, dtype=np.uint64)
    judged = np.zeros(-(-size // per_counter), dtype=np.uint64)
    ints = [
        len(table.radices),
        len(table.lengths),
        table.options.shape[1],
        table.memories,
        table.end_q * table.memories,
        (table.end_q + 1) * table.memories,
    ]
    library.run(
        ctypes.c_longlong(-(-size // chunk)),
        pointer(table.place, np.int64),
        pointer(table.radices, np.int32),
        pointer(table.options[:, :, 0], np.int32),
        pointer(table.contrib, np.int32),
        pointer(table.index_of, np.int32),
        pointer(table.starts + table.lengths_array - 1, np.int32),
        pointer(table.step_delta, np.int32),
        pointer(table.step_bits, np.uint64),
        pointer(table.need_bits, np.uint64),
        pointer(table.memory_of, np.int32),
        pointer(table.slot_at, np.int32),
        *(ctypes.c_int(int(x)) for x in ints),
        ctypes.c_longlong(start),
        ctypes.c_longlong(stop),
        ctypes.c_longlong(chunk),
        found.ctypes.data_as(ctypes.c_void_p),
        nfound.ctypes.data_as(ctypes.c_void_p),
        ctypes.c_longlong(size + 1),
        judged.ctypes.data_as(ctypes.c_void_p),
        ctypes.c_longlong(per_counter),
    )
    return np.sort(found[: int(nfound[0])]), judged.astype(np.int64)


@pytest.mark.parametrize("bounds", CONFIGS, ids=lambda b: f"{b.label}-L{b.locations}V{b.values}")
def test_the_kernel_source_compiled_for_the_host_agrees_with_the_cpu_judge(host_kernel, bounds):
    space = StreamSpace(bounds)
    for partition in range(len(space.partitions)):
        table = space.table(partition)
        expected = judge_range(table, 0, table.size)
        for chunk in (37, 4096):
            found, judged = run_on_host(host_kernel, table, 0, table.size, chunk)
            assert np.array_equal(found, expected[0])
            assert judged.tolist() == [expected[1]]


def test_a_sub_range_on_the_host_kernel(host_kernel):
    table = StreamSpace(Bounds(3, 5)).table(2)
    start, stop = 1_234_567, 1_534_567
    expected = judge_range(table, start, stop)
    found, judged = run_on_host(host_kernel, table, start, stop, 1000)
    assert len(expected[0]) > 100
    assert np.array_equal(found, expected[0]) and judged.tolist() == [expected[1]]


def test_the_host_kernel_counts_judged_per_unit(host_kernel):
    """One launch over several units (as synth/cuda_run.py makes them): each
    unit's judged count, as the CPU judge gives it unit by unit; the chunk
    is `chunk_for`'s divisor of the unit, so no thread straddles two."""
    table = StreamSpace(Bounds(3, 5)).table(2)
    unit = 98_304  # not a power of two
    start = 3 * unit
    stop = min(table.size, start + 7 * unit + 12_345)  # a short last unit
    chunk = chunk_for(stop - start, unit)
    assert unit % chunk == 0 and chunk >= 32
    found, judged = run_on_host(host_kernel, table, start, stop, chunk, unit)
    expected = [judge_range(table, lo, min(stop, lo + unit)) for lo in range(start, stop, unit)]
    assert len(judged) == len(expected) == 8
    assert judged.tolist() == [j for _, j in expected]
    assert np.array_equal(found, np.concatenate([f for f, _ in expected]))
    assert sum(judged) > 0 and len(found) > 100


def test_chunk_for_divides_the_counter_stretch():
    assert chunk_for(1 << 30, 1 << 21) == 2048
    assert chunk_for(1000, 1 << 21) == 32
    assert chunk_for(10**9, 98_304) == 2048  # smallest divisor >= ceil(10**9 / 2**19) = 1908
    assert chunk_for(10**12, 98_304) == 98_304


@pytest.mark.gpu
def test_the_gpu_kernel_agrees_with_the_cpu_judge():
    from progress.synth import cuda_judge

    try:
        cuda_judge._cupy()
    except cuda_judge.CudaUnavailable as error:
        pytest.skip(str(error))
    for bounds in CONFIGS:
        space = StreamSpace(bounds)
        for partition in range(len(space.partitions)):
            table = space.table(partition)
            found, judged = cuda_judge.judge_range(table, 0, table.size)
            expected = judge_range(table, 0, table.size)
            assert np.array_equal(found, expected[0]) and judged == expected[1]
