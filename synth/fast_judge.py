"""The compiled judge: a whole unit of the streamed space (synth/stream.py)
judged in one numba call, no Python per candidate.

For every raw index of the unit, in order, the kernel keeps the candidate's
digits and, per slot, the signature of its thread so far (`stream.contributions`
ORed slot by slot, recomputed only from the slot whose digit changed):

1. canonical first-use order of locations: a slot whose location is more
   than one past the largest so far is skipped with every later option of
   that slot (options are location-major) in one carry;
2. `space.statically_possible` on the threads' signatures;
3. the dynamic constraints, with the same result as
   `enum_engine.PartitionJudge.judge`: one depth-first search (Tarjan's
   strongly connected components, iterative) over the reachable states
   g = m + sum(pc_t * stride_t), steps looked up in per-option tables
   (`PartitionTable.step_delta`, `step_bits`), recording the observation bits
   3*s + (taken, falls, changes) of each slot s. A component is *good* when
   it holds an end state or has an edge into a good component; components
   are completed in reverse topological order, so constraint 2 (every state
   reaches an end state; it implies 1) is "every component is good" and the
   search stops at the first bad one. Constraint 3 (a cycle) is "a component
   of two or more states, or a self-loop"; 5 and 6 are "every needed bit
   observed".

Candidates that pass 1-2 are *judged* (the count `enum` reports: the same
set as `Space`'s statically pruned candidates); those that pass 3 are tests,
returned as raw indices and decoded in Python (`PartitionTable.candidates`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from progress.jit import njit

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
    while start < stop:  # the buffer bounds the tests per call; a call stops early when it fills
        count, done, start = _search(*_arguments(table), start, stop, found)  # type: ignore[call-arg]
        judged += done
        parts.append(found[:count].copy())
    return (np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)), int(judged)


def _arguments(table: PartitionTable) -> tuple:
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
    start,
    stop,
    found,
):
    """Judge raw indices start..stop; returns (tests written to `found`,
    candidates judged, the index to resume from: `stop` unless `found` filled)."""
    slots = radices.shape[0]
    threads = lengths.shape[0]
    ncontrib = contrib.shape[2]
    digits = np.zeros(slots, dtype=np.int64)
    rest = start
    for s in range(slots):
        digits[s] = rest // place[s] % radices[s]
    maxloc = np.zeros(slots, dtype=np.int64)
    prefix = np.zeros((slots, ncontrib), dtype=np.int64)
    last = np.zeros(threads, dtype=np.int64)
    for t in range(threads):
        last[t] = starts[t] + lengths[t] - 1
    # work arrays of the LTS judge, reused by every candidate
    # the judge's work arrays, reused by every candidate (see _judge)
    num = np.full(states, -1, dtype=np.int64)
    low = np.zeros(states, dtype=np.int64)
    stack = np.zeros(states, dtype=np.int64)
    order = np.zeros(states, dtype=np.int64)
    cs_node = np.zeros(states, dtype=np.int64)
    cs_t = np.zeros(states, dtype=np.int64)
    flag = np.zeros(states, dtype=np.int64)
    nfound = 0
    judged = 0
    index = start
    changed = 0  # first slot whose prefix must be recomputed
    while index < stop:
        bad = -1
        for s in range(changed, slots):
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
        if _static_ok(prefix, last, threads):
            judged += 1
            ends = end_q * memories
            if _judge(
                digits,
                threads,
                step_delta,
                step_bits,
                need_bits,
                memory_of,
                slot_at,
                ends,
                ends + memories,
                num,
                low,
                stack,
                order,
                cs_node,
                cs_t,
                flag,
            ):
                found[nfound] = index
                nfound += 1
        index += 1
        changed = _increment(digits, radices, slots - 1)
        if nfound == found.shape[0]:
            return nfound, judged, index
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


@njit(cache=True)
def _judge(
    digits,
    threads,
    step_delta,
    step_bits,
    need_bits,
    memory_of,
    slot_at,
    end_lo,
    end_hi,
    num,
    low,
    stack,
    order,
    cs_node,
    cs_t,
    flag,
):
    """Constraints 1, 2, 3, 5, 6 on the candidate's LTS (the module docstring, 3).

    Work arrays have one entry per state: `num` (DFS number, -1 when
    unvisited: reset on return), `low`, the component `stack`, `order` (the
    visited states), the call stack (`cs_node`, `cs_t`: the next thread to
    step), `flag` (bit 0: on the component stack; bit 1: an edge into a
    completed, hence good, component)."""
    need = 0
    for s in range(digits.shape[0]):
        need |= need_bits[s, digits[s]]
    observed = 0
    cycle = False
    ok = True
    num[0] = 0
    low[0] = 0
    order[0] = 0
    count = 1
    stack[0] = 0
    sp = 1
    flag[0] = 1
    cs_node[0] = 0
    cs_t[0] = 0
    csp = 1
    while csp > 0:
        v = cs_node[csp - 1]
        t = cs_t[csp - 1]
        if t < threads:
            cs_t[csp - 1] = t + 1
            s = slot_at[v, t]
            if s < 0:
                continue
            d = digits[s]
            m = memory_of[v]
            observed |= step_bits[s, d, m]
            w = v + step_delta[s, d, m]
            if w == v:
                cycle = True
            elif num[w] < 0:
                num[w] = count
                low[w] = count
                order[count] = w
                count += 1
                stack[sp] = w
                sp += 1
                flag[w] = 1
                cs_node[csp] = w
                cs_t[csp] = 0
                csp += 1
            elif flag[w] & 1:
                if num[w] < low[v]:
                    low[v] = num[w]
            else:
                flag[v] |= 2
        else:
            csp -= 1
            if low[v] == num[v]:
                good = False
                n = 0
                while True:
                    sp -= 1
                    x = stack[sp]
                    if flag[x] & 2 or (x >= end_lo and x < end_hi):
                        good = True
                    flag[x] = 0
                    n += 1
                    if x == v:
                        break
                if n > 1:
                    cycle = True
                if not good:
                    ok = False
                    break
                if csp > 0:
                    flag[cs_node[csp - 1]] |= 2
            else:
                u = cs_node[csp - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    for i in range(count):
        num[order[i]] = -1
        flag[order[i]] = 0
    return ok and cycle and observed & need == need
