"""The compiled judge as a CUDA kernel (CuPy + NVRTC): the only synthesis
module that imports CuPy.

The judge `fast_judge` ran before its lane judge (synth/lanes.py), with
the same results (tests/test_synth_cuda.py compares them): each GPU thread takes
`chunk` consecutive raw indices of a partition, decodes its first candidate
from the index on the device, walks the rest with the same odometer
(first-use skips, per-slot signatures, static checks) and judges what is
left with the same iterative Tarjan search, in per-thread arrays of
`MAX_STATES` entries. Only the tests' raw indices come back (appended with
an atomic counter, then sorted on the host, so the result is the CPU's,
order included), with the number judged per stretch of `per_counter`
indices (one counter per work unit: `judge_units`). Decoding and
classifying the tests stay on the CPU (synth/cuda_run.py).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .space import Bounds
from .stream import PartitionTable

THREADS_PER_LAUNCH = 1 << 19
"""GPU threads per launch to aim for (an H200 holds 132 x 2048 resident)."""
BLOCK = 128

SOURCE = r"""
typedef long long i64;
typedef unsigned long long u64;

extern "C" __global__ void judge(
    const i64* __restrict__ place, const int* __restrict__ radices, const int* __restrict__ opt_loc,
    const int* __restrict__ contrib, const int* __restrict__ index_of, const int* __restrict__ last,
    const int* __restrict__ step_delta, const u64* __restrict__ step_bits, const u64* __restrict__ need_bits,
    const int* __restrict__ memory_of, const int* __restrict__ slot_at,
    int slots, int threads, int width, int memories, int end_lo, int end_hi,
    i64 start, i64 stop, i64 chunk, i64* found, u64* nfound, i64 capacity, u64* judged_total, i64 per_counter)
{
    i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    i64 index = start + tid * chunk;
    if (index >= stop) return;
    i64 hi = index + chunk < stop ? index + chunk : stop;
    u64* judged_here = judged_total + (tid * chunk) / per_counter;
    int digits[MAX_SLOTS];
    int maxloc[MAX_SLOTS];
    int prefix[MAX_SLOTS][8];
    short num[MAX_STATES], low[MAX_STATES], stk[MAX_STATES], order[MAX_STATES], cs_node[MAX_STATES];
    unsigned char cs_t[MAX_STATES], flag[MAX_STATES];
    for (int i = 0; i < MAX_STATES; i++) { num[i] = -1; flag[i] = 0; }
    for (int s = 0; s < slots; s++) digits[s] = (int)(index / place[s] % radices[s]);
    u64 judged = 0;
    int changed = 0;
    while (index < hi) {
        int bad = -1;
        for (int s = changed; s < slots; s++) {
            int d = digits[s];
            int here = opt_loc[s * width + d];
            int before = s > 0 ? maxloc[s - 1] : -1;
            if (here > before + 1) { bad = s; break; }
            maxloc[s] = here > before ? here : before;
            const int* c = contrib + (s * width + d) * 8;
            if (index_of[s] == 0) { for (int k = 0; k < 8; k++) prefix[s][k] = c[k]; }
            else { for (int k = 0; k < 8; k++) prefix[s][k] = prefix[s - 1][k] | c[k]; }
        }
        if (bad >= 0) {
            if (bad == 0) break;
            i64 step = place[bad - 1];
            index = (index / step + 1) * step;
            for (int s = bad; s < slots; s++) digits[s] = 0;
            int s = bad - 1;
            digits[s]++;
            while (s > 0 && digits[s] == radices[s]) { digits[s] = 0; s--; digits[s]++; }
            changed = s;
            continue;
        }
        /* static checks: space.statically_possible
           contributions: used, nonstore, xchg, back, writes, need_nonzero, need_value, written */
        bool ok = true;
        int back = 0, writes = 0, nonzero = 0;
        for (int t = 0; t < threads; t++) {
            back |= prefix[last[t]][3];
            writes |= prefix[last[t]][4];
            nonzero |= prefix[last[t]][7];
        }
        if (!back) ok = false;
        for (int t = 0; ok && t < threads; t++) {
            int row = last[t], used = 0, nonstore = 0;
            for (int u = 0; u < threads; u++) {
                if (u != t) { used |= prefix[last[u]][0]; nonstore |= prefix[last[u]][1]; }
            }
            if ((prefix[row][2] & ~nonstore) || (prefix[row][1] & ~used)) ok = false;
            if ((prefix[row][5] & ~nonzero) || (prefix[row][6] & ~writes)) ok = false;
        }
        if (ok) {
            judged++;
            u64 need = 0;
            for (int s = 0; s < slots; s++) need |= need_bits[s * width + digits[s]];
            u64 observed = 0;
            bool cycle = false, good_all = true;
            num[0] = 0; low[0] = 0; order[0] = 0; stk[0] = 0; flag[0] = 1; cs_node[0] = 0; cs_t[0] = 0;
            int count = 1, sp = 1, csp = 1;
            while (csp > 0) {
                int v = cs_node[csp - 1];
                int t = cs_t[csp - 1];
                if (t < threads) {
                    cs_t[csp - 1] = t + 1;
                    int s = slot_at[v * threads + t];
                    if (s < 0) continue;
                    int at = (s * width + digits[s]) * memories + memory_of[v];
                    observed |= step_bits[at];
                    int w = v + step_delta[at];
                    if (w == v) cycle = true;
                    else if (num[w] < 0) {
                        num[w] = count; low[w] = count; order[count] = w; count++;
                        stk[sp++] = w; flag[w] = 1;
                        cs_node[csp] = w; cs_t[csp] = 0; csp++;
                    } else if (flag[w] & 1) { if (num[w] < low[v]) low[v] = num[w]; }
                    else flag[v] |= 2;
                } else {
                    csp--;
                    if (low[v] == num[v]) {
                        bool good = false;
                        int n = 0;
                        while (true) {
                            int x = stk[--sp];
                            if ((flag[x] & 2) || (x >= end_lo && x < end_hi)) good = true;
                            flag[x] = 0;
                            n++;
                            if (x == v) break;
                        }
                        if (n > 1) cycle = true;
                        if (!good) { good_all = false; break; }
                        if (csp > 0) flag[cs_node[csp - 1]] |= 2;
                    } else {
                        int u = cs_node[csp - 1];
                        if (low[v] < low[u]) low[u] = low[v];
                    }
                }
            }
            for (int i = 0; i < count; i++) { num[order[i]] = -1; flag[order[i]] = 0; }
            if (good_all && cycle && (observed & need) == need) {
                u64 at = atomicAdd(nfound, 1ULL);
                if ((i64)at < capacity) found[at] = index;
            }
        }
        index++;
        int s = slots - 1;
        digits[s]++;
        while (s > 0 && digits[s] == radices[s]) { digits[s] = 0; s--; digits[s]++; }
        changed = s;
    }
    atomicAdd(judged_here, judged);
}
"""


class CudaUnavailable(RuntimeError):
    """No CuPy or no CUDA GPU here."""


def _cupy():
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # ImportError, or CUDA's own errors without a GPU
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise CudaUnavailable(f"the CUDA judge needs CuPy and a CUDA GPU: {first}") from None
    return cupy


def _bucket(states: int) -> int:
    size = 64
    while size < states:
        size *= 2
    return size


@lru_cache(maxsize=8)
def _kernel(max_states: int, max_slots: int):
    cp = _cupy()
    module = cp.RawModule(code=SOURCE, options=(f"-DMAX_STATES={max_states}", f"-DMAX_SLOTS={max_slots}"))
    return module.get_function("judge")


@lru_cache(maxsize=64)
def _device_tables(table: PartitionTable):
    cp = _cupy()
    width = table.options.shape[1]
    last = table.starts + table.lengths_array - 1
    as32 = lambda a: cp.asarray(np.ascontiguousarray(a, dtype=np.int32))  # noqa: E731
    return (
        cp.asarray(table.place),
        as32(table.radices),
        as32(table.options[:, :, 0]),
        as32(table.contrib),
        as32(table.index_of),
        as32(last),
        as32(table.step_delta),
        cp.asarray(table.step_bits.astype(np.uint64)),
        cp.asarray(table.need_bits.astype(np.uint64)),
        as32(table.memory_of),
        as32(table.slot_at),
        np.int32(len(table.radices)),
        np.int32(len(table.lengths)),
        np.int32(width),
        np.int32(table.memories),
        np.int32(table.end_q * table.memories),
        np.int32(table.end_q * table.memories + table.memories),
    )


def require() -> None:
    """Raise CudaUnavailable (one line) unless CuPy and a CUDA GPU are here."""
    _cupy()


def chunk_for(size: int, per_counter: int) -> int:
    """Raw indices per GPU thread: at least 32, enough for `size` indices in
    about THREADS_PER_LAUNCH threads, and a divisor of `per_counter` (so no
    thread's range straddles two counters)."""
    want = max(32, -(-size // THREADS_PER_LAUNCH))
    if want >= per_counter:
        return per_counter
    divisors: set[int] = set()
    d = 1
    while d * d <= per_counter:
        if per_counter % d == 0:
            divisors.update((d, per_counter // d))
        d += 1
    return min(x for x in divisors if x >= want)


def judge_units(table: PartitionTable, start: int, stop: int, per_counter: int) -> tuple[np.ndarray, np.ndarray]:
    """Judge raw indices `start..stop` of one partition in one launch: the
    tests' sorted raw indices, and the candidates judged in each stretch of
    `per_counter` indices from `start` (the last one may be shorter), so a
    run of consecutive units (`per_counter` = the units' raw size, `start` a
    unit's first index) gets every unit's own judged count, as
    `fast_judge.judge_range` gives them unit by unit."""
    if not 0 <= start <= stop <= table.size:
        raise ValueError(f"range {start}..{stop} outside 0..{table.size}")
    if per_counter < 1:
        raise ValueError("per_counter must be positive")
    if table.states >= 1 << 15:
        raise ValueError("too many states for the CUDA judge's 16-bit work arrays")
    size = stop - start
    counters_wanted = -(-size // per_counter)
    if size == 0:
        return np.empty(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    cp = _cupy()
    kernel = _kernel(_bucket(table.states), len(table.radices))
    tables = _device_tables(table)
    chunk = chunk_for(size, per_counter)
    workers = -(-size // chunk)
    capacity = size // 16 + 65536
    while True:
        found = cp.empty(capacity, dtype=cp.int64)
        nfound = cp.zeros(1, dtype=cp.uint64)
        judged = cp.zeros(counters_wanted, dtype=cp.uint64)
        kernel(
            (-(-workers // BLOCK),),
            (BLOCK,),
            (
                *tables,
                np.int64(start),
                np.int64(stop),
                np.int64(chunk),
                found,
                nfound,
                np.int64(capacity),
                judged,
                np.int64(per_counter),
            ),
        )
        count = int(nfound.get()[0])
        if count <= capacity:
            return np.sort(found[:count].get()), judged.get().astype(np.int64)
        capacity = count  # rare: run again with room for every test


def judge_range(table: PartitionTable, start: int, stop: int) -> tuple[np.ndarray, int]:
    """`fast_judge.judge_range` on the GPU: the same sorted raw indices and judged count."""
    found, judged = judge_units(table, start, stop, max(1, stop - start))
    return found, int(judged.sum())


def judge_unit(bounds: Bounds, unit_id: int, unit_raw: int):
    """`fast_judge.judge_unit` with the GPU kernel."""
    from .fast_judge import UnitSearch, stream_space

    space = stream_space(bounds, unit_raw)
    unit = space.unit(unit_id)
    table = space.table(unit.partition)
    indices, judged = judge_range(table, unit.start, unit.stop)
    return UnitSearch(unit_id, tuple(table.candidates(indices)), judged)
