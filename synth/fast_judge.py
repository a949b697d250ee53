"""The compiled judge: a whole unit of the streamed space (synth/stream.py)
judged in one numba call, no Python per candidate.

The kernel walks the unit's raw indices in order, a *group* at a time: the
digits of every slot before the last two fixed. Inside a group, for each
option `a` of the next-to-last slot (a *row*), the last slot's options (at
most `lanes.LANES` per chunk) are the bits of a lane mask. The walk keeps
the digits and, per slot, the signature of its thread so far
(`stream.contributions` ORed slot by slot, recomputed only from the slot
whose digit changed), and prunes:

1. canonical first-use order of locations: a slot whose location is more
   than one past the largest so far is skipped with every later option of
   that slot (options are location-major) in one carry; at the last slot,
   a lane mask (`LaneTables.loc_upto`);
2. `space.statically_possible` on the threads' signatures: per row, a few
   keys computed from the other threads (`_static_keys`) select the passing
   options by table lookup (`LaneTables.sup`, `.sub`); beyond
   `lanes.STATIC_BITS`, once per class of options with the same
   contribution (`LaneTables.cls_mask`, `_static_ok`).

The survivors of a group's rows fill *batches* of up to 64 candidates, and
3. each batch is judged at once (`lanes.judge_batch`: reachability,
   observations, reaching an end state and cycles as lane masks per state),
   with the same result, lane by lane, as `enum_engine.PartitionJudge.judge`
   and the CUDA judge's depth-first search (synth/cuda_judge.py).

Candidates that pass 1-2 are *judged* (the count `enum` reports: the same
set as `Space`'s statically pruned candidates); those that pass 3 are tests,
returned as raw indices and decoded in Python (`PartitionTable.candidates`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from progress.jit import njit

from .lanes import LANES, batch_tables, judge_batch, lane_tables, popcount
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
        lanes.cls_n,
        lanes.cls_contrib,
        lanes.cls_mask,
        lanes.loc_upto,
        lanes.valid,
        lanes.profile,
        lanes.code_info,
        lanes.ncodes,
        lanes.deltas,
        lanes.ndeltas,
        lanes.need,
        lanes.sup,
        lanes.sub,
        lanes.back,
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
    cls_n,
    cls_contrib,
    cls_mask,
    loc_upto,
    valid,
    profile,
    code_info,
    ncodes,
    deltas,
    ndeltas,
    need,
    sup,
    sub,
    back,
    start,
    stop,
    found,
):
    """Judge raw indices start..stop; returns (tests written to `found`,
    candidates judged, the index to resume from: `stop` unless `found` filled).

    The walk goes group by group: the digits of every slot before `vs` (the
    first varying slot) fixed; inside a group, for each option `a` of slot
    vs, the last slot's options in chunks of `LANES`, pruned with lane masks;
    the survivors fill batches of up to `LANES` candidates, each judged at
    once (synth/lanes.py). A batch never spans two groups."""
    slots = radices.shape[0]
    ls = slots - 1
    vs = ls - 1 if ls > 0 else 0
    pair = vs < ls
    varying = ls - vs + 1
    threads = lengths.shape[0]
    ncontrib = contrib.shape[2]
    radix = radices[ls]
    digits = np.zeros(slots, dtype=np.int64)
    for s in range(slots):
        digits[s] = start // place[s] % radices[s]
    maxloc = np.zeros(slots, dtype=np.int64)
    prefix = np.zeros((slots, ncontrib), dtype=np.int64)
    last = np.zeros(threads, dtype=np.int64)
    for t in range(threads):
        last[t] = starts[t] + lengths[t] - 1
    # the batch judge's tables and work arrays (see lanes.batch_tables, lanes.judge_batch)
    width = deltas.shape[2]
    options_at = options.shape[1]
    chosen = np.zeros((varying, options_at), dtype=np.int64)
    touched = np.zeros((varying, options_at), dtype=np.int64)
    ntouched = np.zeros(varying, dtype=np.int64)
    acc = np.zeros((memories, code_info.shape[2]), dtype=np.int64)
    dm = np.zeros(width, dtype=np.int64)
    cn = np.zeros((varying, memories), dtype=np.int64)
    cd = np.zeros((varying, memories, width), dtype=np.int64)
    cm = np.zeros((varying, memories, width), dtype=np.int64)
    taken = np.zeros((varying, memories), dtype=np.int64)
    change = np.zeros((varying, memories), dtype=np.int64)
    need_tf = np.zeros(varying, dtype=np.int64)
    need_c = np.zeros(varying, dtype=np.int64)
    work = np.zeros((8, states), dtype=np.int64)
    edges = states * threads * width
    dst = np.zeros(edges, dtype=np.int64)
    mask = np.zeros(edges, dtype=np.int64)
    group = np.zeros(edges, dtype=np.int64)
    obs = np.zeros(64, dtype=np.int64)
    bits = np.zeros((2, (states + 63) // 64), dtype=np.int64)
    lane_raw = np.zeros(LANES, dtype=np.int64)
    model = (step_delta, step_bits, need_bits, memory_of, slot_at)
    profiles = (profile, code_info, ncodes, deltas, ndeltas, need)
    choice = (chosen, touched, ntouched, acc, dm)
    batch = (cn, cd, cm, taken, change, need_tf, need_c)
    scratch = (work, dst, mask, group, obs, bits)
    nl = 0
    end_lo = end_q * memories
    end_hi = end_lo + memories
    context = (digits, vs, ls, threads, end_lo, end_hi, model, profiles, choice, batch, scratch)
    group_size = radices[vs] * place[vs]
    tabled = sup.shape[2] > 0
    keys = np.zeros(18, dtype=np.int64)
    nfound = 0
    judged = 0
    index = start
    changed = 0  # first slot whose prefix must be recomputed
    while index < stop:
        bad = -1
        for s in range(changed, vs):
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
        group_base = index - index % group_size
        group_end = min(stop, group_base + group_size)
        before = maxloc[vs - 1] if vs > 0 else -1
        first_a = digits[vs] if pair else 0
        for a in range(first_a, radices[vs] if pair else 1):
            row = group_base + a * radix if pair else group_base
            if row >= group_end:
                break
            top = before
            if pair:
                here = options[vs, a, 0]
                if here > before + 1:
                    break  # options are location-major: every later one is as bad
                if here > before:
                    top = here
                for c in range(ncontrib):
                    own = prefix[vs - 1, c] if index_of[vs] > 0 else 0
                    prefix[vs, c] = own | contrib[vs, a, c]
            if tabled:
                _static_keys(prefix, last, threads, ls, index_of[ls] > 0, keys)
            b = digits[ls] if a == first_a else 0
            b_stop = min(radix, group_end - row)
            while b < b_stop:
                chunk = b // LANES
                lo = b - chunk * LANES
                hi = min(LANES, b_stop - chunk * LANES)
                lanes = valid[chunk]
                if hi < LANES:
                    lanes &= (np.int64(1) << hi) - 1
                lanes &= ~((np.int64(1) << lo) - 1)
                lanes &= loc_upto[chunk, top + 1]
                if tabled:
                    lanes &= _static_lanes(keys, sup, sub, back, chunk)
                else:  # one option class at a time
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
                while lanes != 0:
                    j = popcount((lanes & -lanes) - 1)
                    lanes &= lanes - 1
                    if nl == LANES:
                        nfound, done = _flush(nl, lane_raw, context, found, nfound)
                        judged += done
                        if done < nl:
                            return nfound, judged, lane_raw[done]
                        nl = 0
                    bit = np.int64(1) << nl
                    if pair:
                        if chosen[0, a] == 0:
                            touched[0, ntouched[0]] = a
                            ntouched[0] += 1
                        chosen[0, a] |= bit
                    o = chunk * LANES + j
                    if chosen[varying - 1, o] == 0:
                        touched[varying - 1, ntouched[varying - 1]] = o
                        ntouched[varying - 1] += 1
                    chosen[varying - 1, o] |= bit
                    lane_raw[nl] = row + o
                    nl += 1
                b = chunk * LANES + hi
        if nl > 0:
            nfound, done = _flush(nl, lane_raw, context, found, nfound)
            judged += done
            if done < nl:
                return nfound, judged, lane_raw[done]
            nl = 0
        index = group_end
        if index >= stop or vs == 0:
            break
        for s in range(vs, slots):
            digits[s] = 0
        changed = _increment(digits, radices, vs - 1)
    return nfound, judged, stop


@njit(cache=True)
def _flush(nl, lane_raw, context, found, nfound):
    """Judge the batch's `nl` lanes and append its tests' raw indices to
    `found` from `nfound`; returns (the new count, the lanes done: `nl`, or
    the lane whose test found no room, from which the walk resumes).
    `context` is (digits, vs, ls, threads, end_lo, end_hi, model, profiles,
    choice, batch, scratch), the last five tuples themselves: `model` (step_delta, step_bits, need_bits, memory_of,
    slot_at of the partition), `profiles` (`LaneTables` profile, code_info,
    ncodes, deltas, ndeltas, need), `choice` (the options chosen per lane
    and their scratch: `lanes.batch_tables`), `batch` (its output), `scratch`
    (`lanes.judge_batch`'s work arrays)."""
    digits, vs, ls, threads, end_lo, end_hi, model, profiles, choice, batch, scratch = context
    chosen, touched, ntouched, acc, dm = choice
    batch_tables(vs, ls, chosen, touched, ntouched, profiles, acc, dm, batch)
    lanes = -1 if nl == LANES else (np.int64(1) << nl) - 1
    tests = judge_batch(digits, lanes, vs, threads, model, end_lo, end_hi, batch, scratch)
    for j in range(nl):
        if tests >> j & 1:
            if nfound == found.shape[0]:
                return nfound, j
            found[nfound] = lane_raw[j]
            nfound += 1
    return nfound, nl


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


@njit(cache=True)
def _static_keys(prefix, last, threads, ls, extends, keys):
    """What `_static_lanes` looks up for the last slot's options, given the
    other threads' signatures (rows `last[t]` of `prefix`) and, when
    `extends`, the last thread's signature so far (row ls - 1): keys for
    `sup` (fields nonstore, used, written, writes), for `sub` (xchg,
    nonstore, need_nonzero & ~written, need_value & ~writes), whether a
    backward jump is still needed, and 0 when no option can pass; written
    into `keys` (10 entries), the last thread's signature so far into
    `keys[10:18]`."""
    used = nonstore = writes = written = backs = 0
    for t in range(threads - 1):
        r = last[t]
        used |= prefix[r, 0]
        nonstore |= prefix[r, 1]
        backs |= prefix[r, 3]
        writes |= prefix[r, 4]
        written |= prefix[r, 7]
    lone_xchg = lone_nonstore = nn = nv = 0
    for t in range(threads - 1):
        r = last[t]
        others_used = others_nonstore = 0
        for u in range(threads - 1):
            if u != t:
                others_used |= prefix[last[u], 0]
                others_nonstore |= prefix[last[u], 1]
        lone_xchg |= prefix[r, 2] & ~others_nonstore  # needs the last thread's nonstore
        lone_nonstore |= prefix[r, 1] & ~others_used  # needs the last thread's use
        nn |= prefix[r, 5]
        nv |= prefix[r, 6]
    own = keys[10:18]
    for c in range(8):
        own[c] = prefix[ls - 1, c] if extends else 0
    zw = written | own[7]
    zv = writes | own[4]
    keys[0] = lone_xchg & ~own[1]
    keys[1] = lone_nonstore & ~own[0]
    keys[2] = (nn | own[5]) & ~zw
    keys[3] = (nv | own[6]) & ~zv
    keys[4] = nonstore
    keys[5] = used
    keys[6] = zw
    keys[7] = zv
    keys[8] = 0 if backs | own[3] else 1
    keys[9] = 0 if own[2] & ~nonstore or own[1] & ~used else 1


@njit(cache=True, inline="always")
def _static_lanes(keys, sup, sub, back, chunk):
    """The options of the last slot's chunk `chunk` that pass
    `space.statically_possible` (`_static_keys`, `LaneTables.sup`)."""
    if keys[9] == 0:
        return 0
    y = sup[0, chunk, keys[0]] & sup[1, chunk, keys[1]] & sup[2, chunk, keys[2]] & sup[3, chunk, keys[3]]
    y &= sub[0, chunk, keys[4]] & sub[1, chunk, keys[5]] & sub[2, chunk, keys[6]] & sub[3, chunk, keys[7]]
    if keys[8]:
        y &= back[chunk]
    return y


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
