"""The compiled judge: a whole unit of the streamed space (synth/stream.py)
judged in one numba call, no Python per candidate.

The kernel walks the unit's raw indices in order, a *group* at a time: the
digits of every slot but the last fixed, the last slot's options (at most
`lanes.LANES` per chunk) as the bits of a lane mask. It keeps the digits
and, per slot, the signature of its thread so far (`stream.contributions`
ORed slot by slot, recomputed only from the slot whose digit changed):

1. canonical first-use order of locations: a slot whose location is more
   than one past the largest so far is skipped with every later option of
   that slot (options are location-major) in one carry; at the last slot,
   a lane mask (`LaneTables.loc_upto`);
2. `space.statically_possible` on the threads' signatures, once per class
   of last-slot options with the same contribution (`LaneTables.cls_mask`);
3. the dynamic constraints on every surviving lane at once
   (`lanes.judge_lanes`: reachability, observations, reaching an end state
   and cycles as lane masks per state), with the same result, lane by lane,
   as `enum_engine.PartitionJudge.judge` and the CUDA judge's depth-first
   search (synth/cuda_judge.py).

Candidates that pass 1-2 are *judged* (the count `enum` reports: the same
set as `Space`'s statically pruned candidates); those that pass 3 are tests,
returned as raw indices and decoded in Python (`PartitionTable.candidates`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from progress.jit import njit

from .lanes import LANES, judge_lanes, lane_tables, popcount
from .space import Bounds, Candidate
from .stream import UNIT_RAW, PartitionTable, StreamSpace

FOUND_BUFFER = 1 << 16
"""Tests one kernel call may return; a call that fills it stops and the next resumes."""


@dataclass(frozen=True)
class UnitSearch:
    """A unit's tests (canonical candidates, in raw-index order) and how many candidates were judged."""

    unit: int
    found: tuple[Candidate, ...]
    judged: int


@lru_cache(maxsize=8)
def stream_space(bounds: Bounds, unit_raw: int = UNIT_RAW) -> StreamSpace:
    """The streamed space of `bounds`, built once per process (milliseconds)."""
    return StreamSpace(bounds, unit_raw)


def judge_unit(bounds: Bounds, unit_id: int, unit_raw: int = UNIT_RAW) -> UnitSearch:
    """Judge every candidate of unit `unit_id` of `StreamSpace(bounds, unit_raw)`."""
    space = stream_space(bounds, unit_raw)
    unit = space.unit(unit_id)
    table = space.table(unit.partition)
    indices, judged = judge_range(table, unit.start, unit.stop)
    return UnitSearch(unit_id, tuple(table.candidates(indices)), judged)


def judge_range(table: PartitionTable, start: int, stop: int) -> tuple[np.ndarray, int]:
    """Raw indices in `start..stop` of the partition's tests, and the number judged."""
    if not 0 <= start <= stop <= table.size:
        raise ValueError(f"range {start}..{stop} outside 0..{table.size}")
    found = np.empty(min(stop - start, FOUND_BUFFER), dtype=np.int64)
    parts: list[np.ndarray] = []
    judged = 0
    arguments = _arguments(table)
    while start < stop:  # the buffer bounds the tests per call; a call stops early when it fills
        count, done, start = _search(*arguments, start, stop, found)  # type: ignore[call-arg]
        judged += done
        parts.append(found[:count].copy())
    return (np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)), int(judged)


def _arguments(table: PartitionTable) -> tuple:
    lanes = lane_tables(table)
    return (
        table.radices,
        table.place,
        table.options,
        table.contrib,
        table.index_of,
        table.starts,
        table.lengths_array,
        table.step_delta,
        table.step_bits,
        table.need_bits,
        table.memory_of,
        table.slot_at,
        table.memories,
        table.end_q,
        table.states,
        lanes.var_n,
        lanes.var_delta,
        lanes.var_mask,
        lanes.taken,
        lanes.change,
        lanes.need_tf,
        lanes.need_c,
        lanes.cls_n,
        lanes.cls_contrib,
        lanes.cls_mask,
        lanes.loc_upto,
        lanes.valid,
    )


@njit(cache=True)
def _search(
    radices,
    place,
    options,
    contrib,
    index_of,
    starts,
    lengths,
    step_delta,
    step_bits,
    need_bits,
    memory_of,
    slot_at,
    memories,
    end_q,
    states,
    var_n,
    var_delta,
    var_mask,
    taken,
    change,
    need_tf,
    need_c,
    cls_n,
    cls_contrib,
    cls_mask,
    loc_upto,
    valid,
    start,
    stop,
    found,
):
    """Judge raw indices start..stop; returns (tests written to `found`,
    candidates judged, the index to resume from: `stop` unless `found` filled).

    The walk goes group by group: the digits of every slot but the last
    (`ls`) fixed, the last slot's options in chunks of `LANES`, each chunk
    pruned with lane masks and judged at once (synth/lanes.py)."""
    slots = radices.shape[0]
    ls = slots - 1
    threads = lengths.shape[0]
    ncontrib = contrib.shape[2]
    radix = radices[ls]
    digits = np.zeros(slots, dtype=np.int64)
    rest = start
    for s in range(slots):
        digits[s] = rest // place[s] % radices[s]
    maxloc = np.zeros(slots, dtype=np.int64)
    prefix = np.zeros((slots, ncontrib), dtype=np.int64)
    last = np.zeros(threads, dtype=np.int64)
    for t in range(threads):
        last[t] = starts[t] + lengths[t] - 1
    # the lane judge's work arrays, reused by every chunk (see lanes.judge_lanes)
    work = np.zeros((10, states), dtype=np.int64)
    width = var_delta.shape[2]
    cn = np.zeros(memories, dtype=np.int64)
    cd = np.zeros((memories, width), dtype=np.int64)
    cm = np.zeros((memories, width), dtype=np.int64)
    edges = states * (threads + width)
    dst = np.zeros(edges, dtype=np.int64)
    mask = np.zeros(edges, dtype=np.int64)
    group = np.zeros(edges, dtype=np.int64)
    obs = np.zeros(64, dtype=np.int64)
    end_lo = end_q * memories
    end_hi = end_lo + memories
    nfound = 0
    judged = 0
    index = start
    changed = 0  # first slot whose prefix must be recomputed
    while index < stop:
        bad = -1
        for s in range(changed, ls):
            d = digits[s]
            here = options[s, d, 0]
            before = maxloc[s - 1] if s > 0 else -1
            if here > before + 1:
                bad = s
                break
            maxloc[s] = here if here > before else before
            if index_of[s] == 0:
                for c in range(ncontrib):
                    prefix[s, c] = contrib[s, d, c]
            else:
                for c in range(ncontrib):
                    prefix[s, c] = prefix[s - 1, c] | contrib[s, d, c]
        if bad >= 0:
            if bad == 0:
                break
            # every later option of slot `bad` is as bad: carry into slot bad - 1
            step = place[bad - 1]
            index = (index // step + 1) * step
            for s in range(bad, slots):
                digits[s] = 0
            changed = _increment(digits, radices, bad - 1)
            continue
        # one chunk of the last slot's options: lanes lo..hi - 1 of chunk `chunk`
        first = digits[ls]
        chunk = first // LANES
        lo = first - chunk * LANES
        base = index - lo  # the raw index of lane 0
        hi = min(LANES, radix - chunk * LANES, stop - base)
        lanes = valid[chunk]
        if hi < LANES:
            lanes &= (np.int64(1) << hi) - 1
        lanes &= ~((np.int64(1) << lo) - 1)
        lanes &= loc_upto[chunk, (maxloc[ls - 1] if ls > 0 else -1) + 1]
        # static pruning, one option class at a time
        passing = 0
        for i in range(cls_n[chunk]):
            if cls_mask[chunk, i] & lanes == 0:
                continue
            for c in range(ncontrib):
                own = prefix[ls - 1, c] if index_of[ls] > 0 else 0
                prefix[ls, c] = own | cls_contrib[chunk, i, c]
            if _static_ok(prefix, last, threads):
                passing |= cls_mask[chunk, i]
        lanes &= passing
        if lanes != 0:
            tests = judge_lanes(
                digits,
                lanes,
                chunk,
                threads,
                step_delta,
                step_bits,
                need_bits,
                memory_of,
                slot_at,
                end_lo,
                end_hi,
                var_n,
                var_delta,
                var_mask,
                taken,
                change,
                need_tf,
                need_c,
                work,
                cn,
                cd,
                cm,
                dst,
                mask,
                group,
                obs,
            )
            for j in range(lo, hi):
                if tests >> j & 1:
                    if nfound == found.shape[0]:
                        # resume at this test: count only the lanes before it
                        judged += popcount(lanes & ((np.int64(1) << j) - 1))
                        return nfound, judged, base + j
                    found[nfound] = base + j
                    nfound += 1
            judged += popcount(lanes)
        index = base + hi
        if chunk * LANES + hi < radix:
            digits[ls] = chunk * LANES + hi  # the next chunk (or the stop)
            changed = ls
        else:
            digits[ls] = 0
            if ls == 0:
                break
            changed = _increment(digits, radices, ls - 1)
    return nfound, judged, stop


@njit(cache=True, inline="always")
def _increment(digits, radices, s):
    """Add one at slot `s` of the mixed-radix number `digits`, carrying
    leftwards; the leftmost slot changed."""
    digits[s] += 1
    while s > 0 and digits[s] == radices[s]:
        digits[s] = 0
        s -= 1
        digits[s] += 1
    return s


@njit(cache=True, inline="always")
def _static_ok(prefix, last, threads):
    """space.statically_possible on the threads' signatures (rows `last[t]` of `prefix`)."""
    # contributions: used, nonstore, xchg, back, writes, need_nonzero, need_value, written
    back = 0
    writes = 0
    nonzero = 0
    for t in range(threads):
        row = last[t]
        back |= prefix[row, 3]
        writes |= prefix[row, 4]
        nonzero |= prefix[row, 7]
    if back == 0:
        return False
    for t in range(threads):
        row = last[t]
        others_used = 0
        others_nonstore = 0
        for u in range(threads):
            if u != t:
                others_used |= prefix[last[u], 0]
                others_nonstore |= prefix[last[u], 1]
        if prefix[row, 2] & ~others_nonstore or prefix[row, 1] & ~others_used:
            return False
        if prefix[row, 5] & ~nonzero or prefix[row, 6] & ~writes:
            return False
    return True
