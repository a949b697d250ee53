"""The compiled explorer for kernels (issue 29): breadth-first search over
packed states with numba, driven by the kernel's own step tables.

A state is the `System`'s flat tuple (the shared cells, then one interned
local-state number per unit: invocation), stored collapsed as uint32 words:
the cells, then one number per workgroup for its units' local states.
A step is looked up, never interpreted, in three tables that the kernel
(`Tabled`, implemented by progress/front/spirv/kernel.py) fills on demand:

- access: (unit, local) -> the cells the unit's next visible action reads,
  or a barrier arrival;
- result: (access, the values read) -> the writes and the unit's next local;
- release: (unit, local at a barrier) -> its local once the workgroup is released.

The compiled loop stops at the first entry it lacks and says which; Python
asks the kernel (its interpreter runs once per entry), adds the entry, and
the loop resumes at the state it was expanding. So a step costs a hash
lookup, and a kernel's interpreter runs once per distinct (unit, local,
values read) as in `KernelSystem.successors`, whose successors (units in
increasing order, one step each, a LOOPING unit stepping to its own state,
a barrier released in the step of its last arrival) this explorer repeats
exactly: tests/test_kernel_jit.py compares the two graphs.

Memory per stored state: 4 bytes per word of the row, which is collapsed
(the cells, then one number per workgroup for its slice of local states,
kept once in a slice store), 8 to 16 in the hash table (int32 slots, at
most half full, dropped once the exploration ends), 8 for its first edge's
index and 8 for its breadth-first parent; 6 per edge (unit as uint16 up to
65,536 units, destination as int32). Importing this module loads numba.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from progress.core.lts import Budget
from progress.errors import Inconclusive
from progress.jit import njit

POISED, WAITING, LOOPING, RETURNED = 0, 1, 2, 3
"""A local state's status (as progress/front/spirv/execute.py numbers them)."""
FREE = -1
SPAN = np.int64(1) << 32
"""(unit, local) keys: unit * SPAN + local."""
DONE, MISS_ACCESS, MISS_RESULT, MISS_RELEASE, FULL, BOUND, PAUSE, BROKEN, ROUND = 0, 1, 2, 3, 4, 5, 6, 7, 8
RELEASED = 9
"""`_step_row`: done, and the step released its workgroup."""
SLICES_FULL = 10
"""`explore`: the store of workgroup slices (or its table) is full."""
LOOP_FRESH = 11
"""`explore` with `wsym`: a local loop of a workgroup that has not started (its
step would start it: not handled; the caller checks without section 14)."""
OWNED_BY_NONE, READONLY = -1, -2
"""`owner[cell]` of a reduced exploration: the unit, or one of these."""
CHAIN = 1 << 16
"""Quiet steps of one normal form beyond which a reduced exploration gives up (ROUND)."""
CHUNK = 1 << 16
"""Unit steps (states expanded times units) between two looks at the clock and the resident memory."""

_H1 = np.uint64(0x100000001B3)
_H2 = np.uint64(0x9E3779B97F4A7C15)
"""Hashing is unsigned: numba's signed arithmetic may not overflow (LLVM's nsw), unsigned wraps."""


class Tabled(Protocol):
    """What a kernel gives the compiled explorer (progress/front/spirv/kernel.py)."""

    groups: tuple[int, ...]
    per_group: int

    @property
    def initial(self) -> tuple[int, ...]: ...

    @property
    def n_cells(self) -> int: ...

    def local_status(self, local: int) -> int: ...

    def local_count(self) -> int: ...

    def barrier_of(self, local: int) -> int:
        """A number for the barrier a WAITING local waits at (equal numbers: the same barrier)."""
        ...

    def access_cells(self, unit: int, local: int) -> tuple[tuple[int, ...], bool]:
        """The cells `unit`'s step from `local` reads, and whether it is a barrier arrival."""
        ...

    def step_result(self, unit: int, local: int, values: tuple[int, ...]) -> tuple[tuple[tuple[int, int], ...], int]:
        """The writes (cell, value) and the next local of `unit`'s step from `local` having read `values`."""
        ...

    def released(self, unit: int, local: int) -> int:
        """`unit`'s local after its workgroup is released from the barrier it waits at in `local`."""
        ...


# --- hashing ------------------------------------------------------------------


@njit(cache=True)
def _mix(h):
    """A well-spread non-negative int64 of the uint64 `h`."""
    h ^= h >> np.uint64(29)
    h *= _H2
    h ^= h >> np.uint64(32)
    return np.int64(h >> np.uint64(1))


@njit(cache=True)
def _row_hash(row):
    h = _H2
    for w in range(row.shape[0]):
        h = (h ^ np.uint64(row[w])) * _H1
    return _mix(h)


@njit(cache=True)
def map_get(keys, values, key):
    """The value of `key` in an open-addressing map (keys FREE where empty), or -1."""
    mask = keys.shape[0] - 1
    slot = _mix(np.uint64(key) * _H1) & mask
    while True:
        k = keys[slot]
        if k == key:
            return values[slot]
        if k == FREE:
            return -1
        slot = (slot + 1) & mask


@njit(cache=True)
def map_put(keys, values, key, value):
    mask = keys.shape[0] - 1
    slot = _mix(np.uint64(key) * _H1) & mask
    while keys[slot] != FREE and keys[slot] != key:
        slot = (slot + 1) & mask
    keys[slot] = key
    values[slot] = value


@njit(cache=True)
def _result_hash(aid, vals, start, length):
    h = (_H2 ^ np.uint64(aid)) * _H1
    for i in range(length):
        h = (h ^ np.uint64(vals[start + i])) * _H1
    return _mix(h)


@njit(cache=True)
def result_find(rtable, raid, rvoff, rvals, aid, vals, start, length):
    """The slot of (access aid, vals[start:start+length]) in the result table:
    (slot, result id) with id -1 when absent."""
    mask = rtable.shape[0] - 1
    slot = _result_hash(aid, vals, start, length) & mask
    while True:
        rid = rtable[slot]
        if rid == FREE:
            return slot, -1
        if raid[rid] == aid:
            base = rvoff[rid]
            same = True
            for i in range(length):
                if rvals[base + i] != vals[start + i]:
                    same = False
                    break
            if same:
                return slot, rid
        slot = (slot + 1) & mask


@njit(cache=True)
def _find_state(table, keys, row):
    """(slot, index) of `row` in the state table; index -1 when absent."""
    mask = table.shape[0] - 1
    slot = _row_hash(row) & mask
    width = row.shape[0]
    while True:
        index = table[slot]
        if index == FREE:
            return slot, -1
        same = True
        for w in range(width):
            if keys[index, w] != row[w]:
                same = False
                break
        if same:
            return slot, index
        slot = (slot + 1) & mask


@njit(cache=True)
def intern_slice(stable, slices, nslices, buf):
    """(number, new count) of the workgroup slice `buf` (its units' local
    states) in the slice store; number -1 when the store or its table is full."""
    slot, found = _find_state(stable, slices, buf)
    if found >= 0:
        return found, nslices
    if nslices >= slices.shape[0] or 2 * (nslices + 1) > stable.shape[0]:
        return -1, nslices
    for i in range(buf.shape[0]):
        slices[nslices, i] = buf[i]
    stable[slot] = nslices
    return nslices, nslices + 1


@njit(cache=True)
def rehash_states(keys, count, size):
    table = np.full(size, FREE, np.int32)  # rows are numbered in int32 (edges, parents)
    for i in range(count):
        slot, _ = _find_state(table, keys, keys[i])
        table[slot] = i
    return table


# --- the explorer ---------------------------------------------------------------


@njit(cache=True)
def _step_row(row, u, aid, status, barrier, group, per_group, ncells, acoff, aclen, acells,
              rtable, raid, rvoff, rvals, rwoff, rwlen, rwat, rwval, rnext, lkeys, lvals, vals, miss):  # fmt: skip
    """`u`'s step (its access `aid`) applied to `row` in place: DONE, or the
    table that lacks an entry (`miss` as in `explore`)."""
    length = aclen[aid]
    base = acoff[aid]
    for i in range(length):
        vals[i] = row[acells[base + i]]
    _, rid = result_find(rtable, raid, rvoff, rvals, aid, vals, 0, length)
    if rid < 0:
        miss[0] = u
        miss[1] = aid
        return MISS_RESULT
    new_local = rnext[rid]
    released = False
    if status[new_local] == WAITING:
        g = group[u]
        first = g * per_group
        where = barrier[new_local]
        all_there = True
        for m in range(first, first + per_group):
            lm = new_local if m == u else row[ncells + m]
            if status[lm] != WAITING or barrier[lm] != where:
                all_there = False
                break
        if all_there:
            for m in range(first, first + per_group):
                lm = new_local if m == u else np.int64(row[ncells + m])
                if map_get(lkeys, lvals, m * SPAN + lm) < 0:
                    miss[0] = u
                    miss[1] = m
                    miss[2] = lm
                    return MISS_RELEASE
            for m in range(first, first + per_group):
                lm = new_local if m == u else np.int64(row[ncells + m])
                row[ncells + m] = map_get(lkeys, lvals, m * SPAN + lm)
            new_local = row[ncells + u]
            released = True
    row[ncells + u] = new_local
    wbase = rwoff[rid]
    for i in range(rwlen[rid]):
        row[rwat[wbase + i]] = rwval[wbase + i]
    return RELEASED if released else DONE


@njit(cache=True)
def _normalize(row, first, per_group, status, barrier, group, ncells, akeys, avals, acoff, aclen, acells, abar,
               rtable, raid, rvoff, rvals, rwoff, rwlen, rwat, rwval, rnext, lkeys, lvals, vals, miss,
               owner, awr, aseen, init_loc, pbit, pw):  # fmt: skip
    """The quiet steps (docs/semantics.md section 13) of the workgroup whose
    units are first..first+per_group-1, applied to `row` until none is left:
    DONE, a missing table entry (MISS_*), or ROUND past CHAIN steps. With
    phase reads (section 15; `pbit` per cell, `pw` per local, `pbit` of
    length 1 without), a read of a Workgroup cell whose variable no other
    unit of the workgroup may write before its next barrier is quiet too."""
    started = False
    for m in range(first, first + per_group):
        if row[ncells + m] != init_loc[m]:
            started = True
            break
    if not started:
        return DONE  # (quiet steps need a started workgroup; steps only start it)
    steps = 0
    phased = pbit.shape[0] > 1
    again = True
    while again:
        again = False  # another pass only after a release (or, with phase reads, any step), which may give
        # earlier units steps
        for m in range(first, first + per_group):
            while True:
                local = np.int64(row[ncells + m])
                if status[local] != POISED:
                    break
                aid = map_get(akeys, avals, m * SPAN + local)
                if aid < 0:
                    miss[0] = m
                    return MISS_ACCESS
                if aclen[aid] > vals.shape[0]:
                    return ROUND  # a wider access than the buffer: left to the Python explorer
                if abar[aid] == 0:
                    base = acoff[aid]
                    quiet = True
                    for i in range(aclen[aid]):
                        c = acells[base + i]
                        o = owner[c]
                        if o == m or (o == READONLY and awr[aid] == 0):
                            continue
                        if phased and awr[aid] == 0 and pbit[c] != 0:
                            free = True
                            for m2 in range(first, first + per_group):
                                if m2 != m and (pw[row[ncells + m2]] & pbit[c]) != 0:
                                    free = False
                                    break
                            if free:
                                continue
                        quiet = False
                        break
                    if not quiet:
                        break
                aseen[aid] = 1
                code = _step_row(row, m, aid, status, barrier, group, per_group, ncells, acoff, aclen, acells,
                                 rtable, raid, rvoff, rvals, rwoff, rwlen, rwat, rwval, rnext, lkeys, lvals,
                                 vals, miss)  # fmt: skip
                if code == RELEASED or phased:
                    again = True
                if code != DONE and code != RELEASED:
                    return code
                steps += 1
                if steps > CHAIN:
                    return ROUND
    return DONE


@njit(cache=True)
def _canonical_group(row, first, per_group, ncells, idfree, buf, at):
    """Section 12's representative, for one workgroup: the id-free local
    states of units first..first+per_group-1 sorted into their places, the
    others kept. Returns whether `row` changed (an inexact edge)."""
    k = 0
    for m in range(first, first + per_group):
        local = row[ncells + m]
        if idfree[local]:
            buf[k] = local
            at[k] = m
            k += 1
    if k < 2:
        return False
    for i in range(1, k):  # insertion sort: a workgroup's slots are few and mostly sorted
        v = buf[i]
        j = i - 1
        while j >= 0 and buf[j] > v:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = v
    changed = False
    for i in range(k):
        if row[ncells + at[i]] != buf[i]:
            row[ncells + at[i]] = buf[i]
            changed = True
    return changed


@njit(cache=True)
def _started_bit(packed, at, g):
    """Bit g of the STARTED mask kept in words at, at+1 of a packed row."""
    return (np.int64(packed[at + g // 32]) >> np.int64(g % 32)) & 1


@njit(cache=True)
def _group_less(packed, ncells, groups, wc0, wcsize, a, b):
    """Whether workgroup a's block sorts before b's (docs/semantics.md section 14):
    by its slice number, then its Workgroup cells, then its STARTED bit."""
    sa, sb = packed[ncells + a], packed[ncells + b]
    if sa != sb:
        return sa < sb
    for k in range(wcsize):
        ca, cb = packed[wc0 + a * wcsize + k], packed[wc0 + b * wcsize + k]
        if ca != cb:
            return ca < cb
    at = ncells + groups
    return _started_bit(packed, at, a) < _started_bit(packed, at, b)


@njit(cache=True)
def _canonical_groups(packed, ncells, groups, wc0, wcsize, order, tmp):
    """Section 14's representative of a packed row: its workgroup blocks
    (slice number, Workgroup cells, STARTED bit) sorted, moved together.
    Returns whether the row changed (an inexact edge)."""
    for g in range(groups):
        order[g] = g
    moved = False
    for i in range(1, groups):  # insertion sort: only the stepping workgroup is out of place
        v = order[i]
        j = i - 1
        while j >= 0 and _group_less(packed, ncells, groups, wc0, wcsize, v, order[j]):
            order[j + 1] = order[j]
            j -= 1
            moved = True
        order[j + 1] = v
    if not moved:
        return False
    for w in range(packed.shape[0]):
        tmp[w] = packed[w]
    at = ncells + groups
    packed[at] = 0
    packed[at + 1] = 0
    for i in range(groups):
        o = order[i]
        packed[ncells + i] = tmp[ncells + o]
        for k in range(wcsize):
            packed[wc0 + i * wcsize + k] = tmp[wc0 + o * wcsize + k]
        if _started_bit(tmp, at, o):
            packed[at + i // 32] |= np.uint32(1) << np.uint32(i % 32)
    return True


@njit(cache=True)
def explore(
    keys, table, count, s, estart, eunit, edst, nedges, parent_src, parent_unit,
    status, barrier, group, per_group, ncells,
    akeys, avals, acoff, aclen, acells, abar,
    rtable, raid, rvoff, rvals, rwoff, rwlen, rwat, rwval, rnext,
    lkeys, lvals, max_states, miss, until,
    red, owner, awr, aseen, init_loc, missrow, sym, idfree, einexact,
    units, slices, stable, nslices, pbit, pw, wsym, wc0, wcsize,
):  # fmt: skip
    """Expand states s, s+1, ... until all are expanded (DONE), a table
    lacks an entry (MISS_*: `miss` holds the unit, then more), the store is
    full (FULL), the state bound passes (BOUND) or state `until` is reached (PAUSE). Returns (code, s, count,
    nedges); state s is expanded again from its first edge on resuming.

    With `red`, the states are normal forms (section 13): after each step its
    workgroup's quiet steps are applied (`_normalize`; a miss there copies the
    row it was at into `missrow` and sets miss[3]); every access met is marked
    in `aseen`, and one that contradicts `owner` stops it (BROKEN). With `sym`,
    the states are section 12's representatives (`_canonical_group` on the
    stepping workgroup; `idfree[local]`), and einexact[e] says whether edge e
    was not exact. With `wsym`, rows carry the STARTED mask in two last words
    and are section 14's representatives (`_canonical_groups`: workgroup
    blocks sorted, Workgroup memory at wc0 + g * wcsize moved with them); an
    edge that moved blocks is inexact too.

    A stored state is collapsed: its cells, then one number per workgroup,
    that of its units' local states (a *slice*) in `slices` (`stable` its hash
    table, nslices[0] its count; SLICES_FULL when full). A state being
    expanded is unpacked into a full row first (`missrow` too on a miss)."""
    width = ncells + units
    groups = units // per_group
    cap = keys.shape[0]
    ecap = eunit.shape[0]
    row = np.empty(width, np.uint32)
    cur = np.empty(width, np.uint32)
    packed = np.empty(keys.shape[1], np.uint32)
    slicebuf = np.empty(per_group, np.uint32)
    vals = np.empty(64, np.int64)
    sbuf = np.empty(max(1, per_group), np.uint32)
    sat = np.empty(max(1, per_group), np.int64)
    gorder = np.empty(max(1, groups), np.int64)
    gtmp = np.empty(keys.shape[1], np.uint32)
    while s < count:
        if s >= until:
            return PAUSE, s, count, nedges
        nedges = estart[s]
        for c in range(ncells):
            cur[c] = keys[s, c]
        for g in range(groups):
            sid = keys[s, ncells + g]
            for i in range(per_group):
                cur[ncells + g * per_group + i] = slices[sid, i]
        for u in range(units):
            local = np.int64(cur[ncells + u])
            kind = status[local]
            if kind == WAITING or kind == RETURNED:
                continue
            if nedges >= ecap:
                return FULL, s, count, nedges
            if kind == LOOPING:
                if wsym and _started_bit(keys[s], ncells + groups, group[u]) == 0:
                    return LOOP_FRESH, s, count, nedges
                eunit[nedges] = u
                edst[nedges] = s
                if sym or wsym:
                    einexact[nedges] = False
                nedges += 1
                continue
            aid = map_get(akeys, avals, u * SPAN + local)
            if aid < 0:
                miss[0] = u
                for w in range(width):
                    missrow[w] = cur[w]
                miss[3] = 1
                return MISS_ACCESS, s, count, nedges
            if red:
                aseen[aid] = 1
                if abar[aid] == 0:
                    base = acoff[aid]
                    for i in range(aclen[aid]):
                        o = owner[acells[base + i]]
                        if (o >= 0 and o != u) or (o == READONLY and awr[aid] != 0):
                            miss[0] = u
                            return BROKEN, s, count, nedges
            length = aclen[aid]
            if length > vals.shape[0]:
                vals = np.empty(2 * length, np.int64)
            base = acoff[aid]
            for i in range(length):
                vals[i] = cur[acells[base + i]]
            _, rid = result_find(rtable, raid, rvoff, rvals, aid, vals, 0, length)
            if rid < 0:
                miss[0] = u
                miss[1] = aid
                for w in range(width):
                    missrow[w] = cur[w]
                miss[3] = 1
                return MISS_RESULT, s, count, nedges
            for w in range(width):
                row[w] = cur[w]
            new_local = rnext[rid]
            row[ncells + u] = new_local
            if status[new_local] == WAITING:
                g = group[u]
                first = g * per_group
                where = barrier[new_local]
                all_there = True
                for m in range(first, first + per_group):
                    lm = row[ncells + m]
                    if status[lm] != WAITING or barrier[lm] != where:
                        all_there = False
                        break
                if all_there:
                    for m in range(first, first + per_group):
                        after = map_get(lkeys, lvals, m * SPAN + np.int64(row[ncells + m]))
                        if after < 0:
                            miss[0] = u
                            miss[1] = m
                            miss[2] = row[ncells + m]
                            miss[3] = 0
                            return MISS_RELEASE, s, count, nedges
                        row[ncells + m] = after
            wbase = rwoff[rid]
            for i in range(rwlen[rid]):
                row[rwat[wbase + i]] = rwval[wbase + i]
            if red:
                code = _normalize(row, group[u] * per_group, per_group, status, barrier, group, ncells, akeys, avals,
                                  acoff, aclen, acells, abar, rtable, raid, rvoff, rvals, rwoff, rwlen, rwat, rwval,
                                  rnext, lkeys, lvals, vals, miss, owner, awr, aseen, init_loc, pbit, pw)  # fmt: skip
                if code != DONE:
                    for w in range(width):
                        missrow[w] = row[w]
                    miss[3] = 1
                    return code, s, count, nedges
            inexact = False
            if sym:
                inexact = _canonical_group(row, group[u] * per_group, per_group, ncells, idfree, sbuf, sat)
            g = group[u]
            for i in range(per_group):
                slicebuf[i] = row[ncells + g * per_group + i]
            sid, grown = intern_slice(stable, slices, nslices[0], slicebuf)
            if sid < 0:
                return SLICES_FULL, s, count, nedges
            nslices[0] = grown
            for c in range(ncells):
                packed[c] = row[c]
            for h in range(groups):
                packed[ncells + h] = keys[s, ncells + h]
            packed[ncells + g] = sid
            if wsym:
                packed[ncells + groups] = keys[s, ncells + groups]
                packed[ncells + groups + 1] = keys[s, ncells + groups + 1]
                packed[ncells + groups + g // 32] |= np.uint32(1) << np.uint32(g % 32)
                if _canonical_groups(packed, ncells, groups, wc0, wcsize, gorder, gtmp):
                    inexact = True
            slot, dst = _find_state(table, keys, packed)
            if dst < 0:
                if count >= cap or 2 * (count + 1) > table.shape[0]:
                    return FULL, s, count, nedges
                if count >= max_states:
                    return BOUND, s, count, nedges
                dst = count
                for w in range(packed.shape[0]):
                    keys[dst, w] = packed[w]
                table[slot] = dst
                parent_src[dst] = s
                parent_unit[dst] = u
                count += 1
            eunit[nedges] = u
            edst[nedges] = dst
            if sym or wsym:
                einexact[nedges] = inexact
            nedges += 1
        estart[s + 1] = nedges
        s += 1
    return DONE, s, count, nedges


# --- the Python side -------------------------------------------------------------


class _Grown:
    """A growable int array with a fill count."""

    def __init__(self, dtype, size: int = 1024, fill: int = 0):
        self.array = np.full(size, fill, dtype)
        self.fill = fill
        self.count = 0

    def room(self, extra: int) -> np.ndarray:
        need = self.count + extra
        if need > self.array.shape[0]:
            size = max(need, 2 * self.array.shape[0])
            grown = np.full(size, self.fill, self.array.dtype)
            grown[: self.count] = self.array[: self.count]
            self.array = grown
        return self.array

    def add(self, values) -> int:
        at = self.count
        self.room(len(values))[at : at + len(values)] = values
        self.count += len(values)
        return at


class _Map:
    """An int64 -> int64 open-addressing map kept at most half full."""

    def __init__(self, size: int = 1024):
        self.keys = np.full(size, FREE, np.int64)
        self.values = np.zeros(size, np.int64)
        self.count = 0

    def put(self, key: int, value: int) -> None:
        if 2 * (self.count + 1) > self.keys.shape[0]:
            old_keys, old_values = self.keys, self.values
            self.keys = np.full(2 * old_keys.shape[0], FREE, np.int64)
            self.values = np.zeros(2 * old_keys.shape[0], np.int64)
            for k, v in zip(old_keys[old_keys != FREE], old_values[old_keys != FREE]):
                map_put(self.keys, self.values, k, v)
        map_put(self.keys, self.values, np.int64(key), np.int64(value))
        self.count += 1


class Tables:
    """The step tables of one kernel, filled from `Tabled` on demand."""

    def __init__(self, kernel: Tabled):
        self.kernel = kernel
        self.status = _Grown(np.int8, fill=0)
        self.barrier = _Grown(np.int32, fill=-1)
        self.access = _Map()
        self.acoff, self.aclen, self.abar = _Grown(np.int64), _Grown(np.int64), _Grown(np.int8)
        self.acells = _Grown(np.int64)
        self.aunit, self.awr, self.aseen = _Grown(np.int64), _Grown(np.int8), _Grown(np.int8)
        self.rtable = np.full(1024, FREE, np.int64)
        self.raid, self.rvoff, self.rwoff, self.rwlen, self.rnext = (_Grown(np.int64) for _ in range(5))
        self.rvals, self.rwat, self.rwval = _Grown(np.int64), _Grown(np.int64), _Grown(np.int64)
        self.release = _Map()
        self.idfree = _Grown(np.int8)
        self.symmetric = False
        """Whether `idfree` is filled (a quotient exploration: `KernelSystem.id_free` per local)."""
        self.pw = _Grown(np.int64)
        self.phased = False
        """Whether `pw` is filled (phase reads: `KernelSystem.phase_writes` per local, section 15)."""
        self.sync()

    def sync(self) -> None:
        """Status and barrier (and, for a quotient, id-freedom) of every local the kernel has numbered so far."""
        kernel = self.kernel
        for local in range(self.status.count, kernel.local_count()):
            self.status.add([kernel.local_status(local)])
            self.barrier.add([kernel.barrier_of(local) if kernel.local_status(local) == WAITING else -1])
        if self.symmetric:
            id_free = kernel.id_free  # type: ignore[attr-defined]
            for local in range(self.idfree.count, self.status.count):
                self.idfree.add([int(id_free(local))])
        if self.phased:
            writes = kernel.phase_writes  # type: ignore[attr-defined]
            for local in range(self.pw.count, self.status.count):
                self.pw.add([writes(local)])

    def add_access(self, unit: int, local: int) -> None:
        cells, is_barrier = self.kernel.access_cells(unit, local)
        aid = self.acoff.count
        self.acoff.add([self.acells.add(list(cells)) if cells else self.acells.count])
        self.aclen.add([len(cells)])
        self.abar.add([int(is_barrier)])
        writes = self.kernel.access_writes(unit, local) if hasattr(self.kernel, "access_writes") else True
        self.aunit.add([unit])
        self.awr.add([int(writes)])
        self.aseen.add([0])
        self.access.put(unit * int(SPAN) + local, aid)

    def seen(self) -> list[tuple[int, tuple[int, ...], bool]]:
        """(unit, cells, writes) of every access a reduced exploration marked as met."""
        found = []
        for aid in np.nonzero(self.aseen.array[: self.aseen.count])[0]:
            if self.abar.array[aid]:
                continue
            start, length = int(self.acoff.array[aid]), int(self.aclen.array[aid])
            cells = tuple(int(c) for c in self.acells.array[start : start + length])
            found.append((int(self.aunit.array[aid]), cells, bool(self.awr.array[aid])))
        return found

    def add_result(self, unit: int, local: int, aid: int, row: np.ndarray) -> None:
        start, length = int(self.acoff.array[aid]), int(self.aclen.array[aid])
        cells = [int(c) for c in self.acells.array[start : start + length]]
        values = tuple(int(row[c]) for c in cells)
        writes, new_local = self.kernel.step_result(unit, local, values)
        self.sync()
        rid = self.raid.count
        if 2 * (rid + 1) > self.rtable.shape[0]:
            self._rehash_results(2 * self.rtable.shape[0])
        self.raid.add([aid])
        self.rvoff.add([self.rvals.add(list(values)) if values else self.rvals.count])
        self.rwoff.add([self.rwat.count])
        self.rwat.add([at for at, _ in writes])
        self.rwval.add([value for _, value in writes])
        self.rwlen.add([len(writes)])
        self.rnext.add([new_local])
        probe = np.array(values, np.int64)
        slot, found = result_find(
            self.rtable, self.raid.array, self.rvoff.array, self.rvals.array, aid, probe, 0, length
        )
        assert found < 0
        self.rtable[slot] = rid

    def _rehash_results(self, size: int) -> None:
        self.rtable = np.full(size, FREE, np.int64)
        for rid in range(self.raid.count):
            aid = int(self.raid.array[rid])
            start, length = int(self.rvoff.array[rid]), int(self.aclen.array[aid])
            slot, _ = result_find(
                self.rtable, self.raid.array, self.rvoff.array, self.rvals.array, aid, self.rvals.array, start, length
            )
            self.rtable[slot] = rid

    def add_release(self, unit: int, local: int) -> None:
        after = self.kernel.released(unit, local)
        self.sync()
        self.release.put(unit * int(SPAN) + local, after)

    def bytes(self) -> int:
        arrays = [
            self.status.array, self.barrier.array, self.access.keys, self.access.values, self.acoff.array,
            self.aclen.array, self.abar.array, self.acells.array, self.aunit.array, self.awr.array,
            self.aseen.array, self.rtable, self.raid.array, self.rvoff.array,
            self.rwoff.array, self.rwlen.array, self.rnext.array, self.rvals.array, self.rwat.array,
            self.rwval.array, self.release.keys, self.release.values,
        ]  # fmt: skip
        return sum(a.nbytes for a in arrays)


@dataclass
class Graph:
    """The reachable states of a kernel, breadth first from 0: `keys[s]` the
    packed state s, its edges `eunit[estart[s]:estart[s+1]]` (units, increasing)
    to `edst[...]`; `parent_src[s]`, `parent_unit[s]` the edge that found s
    (-1 for state 0); `deadlocks` the states without edges that are not finished."""

    keys: np.ndarray
    count: int
    estart: np.ndarray
    eunit: np.ndarray
    edst: np.ndarray
    parent_src: np.ndarray
    parent_unit: np.ndarray
    deadlocks: tuple[int, ...]
    tables: Tables
    slices: np.ndarray
    """The workgroup slices (rows of local-state numbers) that `keys` rows name after their cells."""
    ncells: int
    inexact: np.ndarray | None = None
    """Of a quotient exploration: per edge, whether it was not exact (sections 12, 14)."""
    started_words: int = 0
    """2 when each row ends with its STARTED mask (section 14's quotient), else 0."""

    @property
    def edges(self) -> int:
        return int(self.estart[self.count])

    def state(self, s: int) -> tuple[int, ...]:
        """State s as the kernel's flat tuple (cells, then every unit's local state)."""
        row = self.keys[s]
        cells = [int(v) for v in row[: self.ncells]]
        end = row.shape[0] - self.started_words
        return tuple(cells + [int(v) for sid in row[self.ncells : end] for v in self.slices[sid]])

    def started(self) -> np.ndarray:
        """Of a section 14 exploration: each state's STARTED mask (bit w: workgroup w has stepped)."""
        assert self.started_words == 2
        end = self.keys.shape[1]
        low = self.keys[: self.count, end - 2].astype(np.int64)
        return low | (self.keys[: self.count, end - 1].astype(np.int64) << np.int64(32))

    def bytes(self) -> int:
        """What the graph holds in memory (the arrays at their capacity, step tables included)."""
        arrays = (self.keys, self.estart, self.eunit, self.edst, self.parent_src, self.parent_unit, self.slices)
        return sum(a.nbytes for a in arrays) + 8 * max(1, self.count) + self.tables.bytes()


@dataclass
class Reduction:
    """What a reduced exploration needs (docs/semantics.md section 13):
    `owner[cell]` (a unit, OWNED_BY_NONE or READONLY) and the normal form
    of the initial state. `explore_kernel` raises `Broken` when an access
    contradicts `owner`, `Round` when quiet steps do not end; either way,
    `seen` gets every access met (unit, cells, writes), also when the state
    bound stops it."""

    owner: np.ndarray
    initial: tuple[int, ...]
    seen: list[tuple[int, tuple[int, ...], bool]]
    phased: bool = False
    """Whether reads of Workgroup memory that no other unit may write before a barrier are quiet too (section 15)."""


class Broken(Exception):
    """A reduced exploration met an access that contradicts its ownership."""


class Round(Exception):
    """A reduced exploration met quiet steps that go on past CHAIN."""


class LoopFresh(Exception):
    """A section 14 exploration met a local loop of a workgroup that has not started."""


def explore_kernel(
    kernel: Tabled,
    max_states: int | None = None,
    deadline: float | None = None,
    budget: Budget | None = None,
    reduction: Reduction | None = None,
    symmetric: bool = False,
    group_cells: tuple[int, int] | None = None,
) -> Graph:
    """Every state of `kernel` reachable from its initial one (raises
    Inconclusive past `max_states`, the monotonic `deadline`, or `budget`'s
    memory bound, looked at every CHUNK unit steps; its message is the budget's).
    With `reduction`, the normal forms of section 13 reachable from its
    initial one, each edge a step and the quiet steps of its workgroup.
    With `symmetric` (not with `reduction`), section 12's quotient: the
    representatives reachable from the initial one's (`KernelSystem.canonical`
    over its `interchangeable` blocks, one per workgroup), `Graph.inexact`
    marking the edges that were not exact. With `group_cells` (the first
    Workgroup cell and the Workgroup cells per workgroup), section 14's
    quotient by workgroup permutations, with or without the others: rows
    carry the STARTED mask (`Graph.started`), blocks sorted (the caller
    checks section 14's condition, `group_symmetry.condition`); raises
    LoopFresh where a workgroup that has not started loops locally."""
    if getattr(kernel, "collective", False):
        raise ValueError(
            "the compiled explorer has no collective (subgroup) steps: explore_system explores this kernel"
        )
    hint = "" if budget is None else budget.hint
    which = "the default state bound" if budget is not None and budget.default else "the state bound"

    start = kernel.initial if reduction is None else reduction.initial
    if symmetric:
        start = kernel.canonical(start, kernel.interchangeable())  # type: ignore[attr-defined]
    full = np.array(start, np.uint32)
    ncells = kernel.n_cells
    per_group = kernel.per_group
    units = full.shape[0] - ncells
    init_loc = np.array(kernel.initial[ncells:], np.int64)
    owner = np.zeros(1, np.int64) if reduction is None else reduction.owner
    missrow = np.zeros(full.shape[0], np.uint32)
    slices = np.zeros((1024, per_group), np.uint32)
    stable = np.full(4096, FREE, np.int64)
    nslices = np.zeros(1, np.int64)
    wsym = group_cells is not None
    wc0, wcsize = group_cells if group_cells is not None else (0, 0)
    initial = np.zeros(ncells + units // per_group + (2 if wsym else 0), np.uint32)
    initial[:ncells] = full[:ncells]
    for g in range(units // per_group):
        first = ncells + g * per_group
        sid, nslices[0] = intern_slice(stable, slices, nslices[0], full[first : first + per_group].copy())
        initial[ncells + g] = sid
    width = initial.shape[0]
    tables = Tables(kernel)
    if symmetric:
        tables.symmetric = True
        tables.sync()
    pbit = np.zeros(1, np.int64)
    if reduction is not None and reduction.phased:
        phase_bit = kernel.phase_bit  # type: ignore[attr-defined]
        pbit = np.array([phase_bit(c) for c in range(ncells)] + [0, 0], np.int64)  # (length > 1: phased)
        tables.phased = True
        tables.sync()
    group = np.array(kernel.groups, np.int64)
    cap = 1024
    keys = np.zeros((cap, width), np.uint32)
    keys[0] = initial
    table = rehash_states(keys, 1, 2 * cap)
    estart = np.zeros(cap + 1, np.int64)
    eunit = np.zeros(4 * cap, np.uint16 if units <= 1 << 16 else np.int32)  # 1024 x 64 units at most
    edst = np.zeros(4 * cap, np.int32)
    einexact = np.zeros(4 * cap if symmetric or wsym else 1, np.uint8)
    parent_src = np.full(cap, -1, np.int32)
    parent_unit = np.full(cap, -1, np.int32)
    miss = np.zeros(4, np.int64)
    count, s, nedges = 1, 0, 0
    limit = np.int64(max_states if max_states is not None else np.iinfo(np.int64).max)
    chunk = max(16, CHUNK // max(1, units))  # states per look at the clock: fewer when each has many units
    while True:
        t = tables
        code, s, count, nedges = explore(
            keys, table, count, s, estart, eunit, edst, nedges, parent_src, parent_unit,
            t.status.array, t.barrier.array, group, kernel.per_group, ncells,
            t.access.keys, t.access.values, t.acoff.array, t.aclen.array, t.acells.array, t.abar.array,
            t.rtable, t.raid.array, t.rvoff.array, t.rvals.array, t.rwoff.array, t.rwlen.array, t.rwat.array,
            t.rwval.array, t.rnext.array, t.release.keys, t.release.values, limit, miss, s + chunk,
            reduction is not None, owner, t.awr.array, t.aseen.array, init_loc, missrow,
            symmetric, t.idfree.array, einexact, units, slices, stable, nslices, pbit, t.pw.array, wsym, wc0, wcsize,
        )  # fmt: skip
        if code in (DONE, BROKEN, ROUND, BOUND) and reduction is not None:
            reduction.seen.extend(tables.seen())
            if code == BROKEN:
                raise Broken()
            if code == ROUND:
                raise Round()
        if code == DONE:
            break
        if code == LOOP_FRESH:
            raise LoopFresh()
        if deadline is not None and time.monotonic() > deadline:
            raise Inconclusive("stopped at the time limit", count)
        if code == BOUND:
            raise Inconclusive(f"stopped at {which} of {max_states}{hint}", count + 1)
        if code == PAUSE:
            if budget is not None:
                budget.check_memory(count)
        elif code == MISS_ACCESS:
            u = int(miss[0])
            tables.add_access(u, int(missrow[ncells + u]))
        elif code == MISS_RESULT:
            u = int(miss[0])
            tables.add_result(u, int(missrow[ncells + u]), int(miss[1]), missrow)
        elif code == SLICES_FULL:
            slices = _grow2(slices, 2 * slices.shape[0])
            stable = rehash_states(slices, int(nslices[0]), 4 * slices.shape[0])
        elif code == MISS_RELEASE:
            tables.add_release(int(miss[1]), int(miss[2]))
        else:  # FULL: the store, its table or the edges
            if count >= keys.shape[0] or 2 * (count + 1) > table.shape[0]:
                cap = 2 * keys.shape[0]
                keys = _grow2(keys, cap)
                parent_src = _grow1(parent_src, cap, -1)
                parent_unit = _grow1(parent_unit, cap, -1)
                estart = _grow1(estart, cap + 1, 0)
                table = rehash_states(keys, count, 2 * cap)
            else:
                eunit = _grow1(eunit, 2 * eunit.shape[0], 0)
                edst = _grow1(edst, 2 * edst.shape[0], 0)
                if symmetric or wsym:
                    einexact = _grow1(einexact, 2 * einexact.shape[0], 0)
        tables.sync()
    slices = slices[: int(nslices[0])]
    groups = units // per_group
    finished = _finished_states(keys, count, slices, tables.status.array, ncells, groups)
    deadlocks = tuple(int(x) for x in np.nonzero((estart[1 : count + 1] == estart[:count]) & ~finished)[0])
    inexact = einexact[: int(estart[count])] if symmetric or wsym else None
    return Graph(
        keys, count, estart, eunit, edst, parent_src, parent_unit, deadlocks, tables, slices, ncells, inexact,
        2 if wsym else 0,
    )  # fmt: skip


def _finished_states(
    keys: np.ndarray, count: int, slices: np.ndarray, status: np.ndarray, ncells: int, groups: int
) -> np.ndarray:
    """Whether every unit of each state has returned (every unit of each of its slices)."""
    done = (status[slices] == RETURNED).all(axis=1)
    return np.asarray(done[keys[:count, ncells : ncells + groups]].all(axis=1))


def _grow1(array: np.ndarray, size: int, fill: int) -> np.ndarray:
    grown = np.full(size, fill, array.dtype)
    grown[: array.shape[0]] = array
    return grown


def _grow2(array: np.ndarray, rows: int) -> np.ndarray:
    grown = np.zeros((rows, array.shape[1]), array.dtype)
    grown[: array.shape[0]] = array
    return grown
