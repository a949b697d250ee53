"""The bit-parallel LTS judge: up to 64 candidates of one *group* at once.

Neighbouring candidates of the streamed space (synth/stream.py) differ only
in the last two slots (`vs` = the last slot - 1, and the last slot); the
other slots are the group's fixed digits. Their LTSs share every transition
but those of the two varying slots. So the compiled judge
(synth/fast_judge.py) packs up to 64 of a group's candidates that survive
static pruning into a *batch* and judges it in one search whose values are
64-bit *lane masks*, bit j standing for the batch's candidate j:

- `R[g]`: the lanes in which state g is reachable (forward propagation from
  the initial state over a work stack until nothing grows);
- observations: bit 3*s + k of a lane is observed when a reachable state of
  that lane steps slot s (constraints 5 and 6: every needed bit observed);
- `C[g]`: the lanes in which g reaches an end state (backward sweeps to the
  least fixed point); constraint 2 is "R[g] implies C[g] for every g";
- `P[g]`: the lanes in which g is *peeled*: every successor is peeled (end
  states have none); a lane has a reachable cycle (constraint 3, self-loops
  included) exactly when some reachable state is not peeled.

A varying slot's step from memory m has one edge per distinct successor
among the batch's lanes (`BatchTables`); a fixed slot's step one edge for
every lane.

Shortcuts that change no verdict: a lane dies as soon as the depth-first
propagation reaches a state whose every step is a self-loop (constraint 2
fails there), and a batch whose lanes have all died stops; the sweeps for
constraint 2 stop once every lane still in question passes; lanes with a
reachable self-loop have a cycle without peeling.

The result is, lane by lane, the same as the one-candidate depth-first judge
(`enum_engine.PartitionJudge.judge`, and the CUDA judge's kernel), which
tests/test_synth_compiled.py and tests/test_synth_cuda.py check.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from progress.jit import njit

from .stream import PartitionTable

LANES = 64
"""Candidates judged together (bits of an int64)."""

STATIC_BITS = 12
"""Static pruning by table lookup (`LaneTables.sup`, `.sub`) while locations x values
is at most this; beyond, the walk checks each class of options in turn."""


@dataclass(frozen=True)
class LaneTables:
    """What the walk and the batch builder need beyond `PartitionTable`.

    The last slot's options, chunk by chunk (c, `LANES` options each), as
    lane masks for static pruning:
    - `cls_n[c]`, `cls_contrib[c, i]`, `cls_mask[c, i]`: the options grouped
      by their contribution to the thread's signature;
    - `loc_upto[c, x]`: options whose location is at most x (first-use order);
    - `valid[c]`: options that exist at all.

    Every slot's option profiles, for building a batch's tables:
    - `profile[s, k, m]`: option k of slot s run from memory m, as a code
      among the `ncodes[s, m]` distinct behaviours of slot s from m;
    - `code_info[s, m, c]`: code c as 4 * (index of its state delta in
      `deltas[s, m, :ndeltas[s, m]]`, the distinct deltas) + 1 (it sees
      mem[loc] == cmp) + 2 (it changes memory);
    - `need[s, k]`: 1 (both branch outcomes must be observed) + 2 (a memory
      change must be observed).

    Static pruning without a loop over classes (`fast_judge._static_lanes`):
    with x an option's contribution, `sup[f, c, r]` holds the options of
    chunk c with field f of x a superset of r (f: nonstore, used, written,
    writes); `sub[f, c, z]` those with a subset of z (f: xchg, nonstore,
    need_nonzero & ~written, need_value & ~writes); `back[c]` those with a
    backward jump. Empty (0 wide) when locations x values > STATIC_BITS."""

    cls_n: np.ndarray
    cls_contrib: np.ndarray
    cls_mask: np.ndarray
    loc_upto: np.ndarray
    valid: np.ndarray
    profile: np.ndarray
    code_info: np.ndarray
    ncodes: np.ndarray
    deltas: np.ndarray
    ndeltas: np.ndarray
    need: np.ndarray
    sup: np.ndarray
    sub: np.ndarray
    back: np.ndarray


def _bit(lane: int) -> int:
    """Lane `lane` as an int64 bit (lane 63 is the sign bit)."""
    return int(np.int64(np.uint64(1) << np.uint64(lane)))


@lru_cache(maxsize=64)
def lane_tables(table: PartitionTable) -> LaneTables:
    """The tables of `table` (built once per partition, milliseconds)."""
    slots = len(table.radices)
    s = slots - 1
    radix = int(table.radices[s])
    chunks = -(-radix // LANES)
    locations = table.bounds.locations
    classes: list[dict[tuple[int, ...], int]] = [{} for _ in range(chunks)]
    loc_upto = np.zeros((chunks, locations + 1), dtype=np.int64)
    valid = np.zeros(chunks, dtype=np.int64)
    for k in range(radix):
        c, bit = k // LANES, _bit(k % LANES)
        valid[c] |= bit
        key = tuple(int(x) for x in table.contrib[s, k])
        classes[c][key] = classes[c].get(key, 0) | bit
        for x in range(int(table.options[s, k, 0]), locations + 1):
            loc_upto[c, x] |= bit
    ncls = max(len(x) for x in classes)
    cls_n = np.array([len(x) for x in classes], dtype=np.int64)
    cls_contrib = np.zeros((chunks, ncls, table.contrib.shape[2]), dtype=np.int64)
    cls_mask = np.zeros((chunks, ncls), dtype=np.int64)
    for c in range(chunks):
        for i, (key, mask) in enumerate(sorted(classes[c].items())):
            cls_contrib[c, i] = key
            cls_mask[c, i] = mask
    width = table.step_delta.shape[1]
    memories = table.memories
    profile = np.zeros((slots, width, memories), dtype=np.int64)
    need = np.zeros((slots, width), dtype=np.int64)
    behaviours: list[list[list[int]]] = []
    distinct: list[list[list[int]]] = []
    for t in range(slots):
        behaviours.append([])
        distinct.append([])
        radix_t = int(table.radices[t])
        for m in range(memories):
            deltas_m = sorted({int(d) for d in table.step_delta[t, :radix_t, m]})
            where = {d: i for i, d in enumerate(deltas_m)}
            codes: dict[int, int] = {}
            for k in range(radix_t):
                bits = int(table.step_bits[t, k, m]) >> (3 * t)
                info = 4 * where[int(table.step_delta[t, k, m])] + (bits & 1) + (2 if bits & 4 else 0)
                profile[t, k, m] = codes.setdefault(info, len(codes))
            behaviours[t].append(list(codes))
            distinct[t].append(deltas_m)
        for k in range(radix_t):
            bits = int(table.need_bits[t, k]) >> (3 * t)
            need[t, k] = (1 if bits & 1 else 0) + (2 if bits & 4 else 0)
    most_codes = max(len(x) for row in behaviours for x in row)
    most_deltas = max(len(x) for row in distinct for x in row)
    code_info = np.zeros((slots, memories, most_codes), dtype=np.int64)
    ncodes = np.zeros((slots, memories), dtype=np.int64)
    deltas = np.zeros((slots, memories, most_deltas), dtype=np.int64)
    ndeltas = np.zeros((slots, memories), dtype=np.int64)
    for t in range(slots):
        for m in range(memories):
            code_info[t, m, : len(behaviours[t][m])] = behaviours[t][m]
            ncodes[t, m] = len(behaviours[t][m])
            deltas[t, m, : len(distinct[t][m])] = distinct[t][m]
            ndeltas[t, m] = len(distinct[t][m])
    sup, sub, back = _static_tables(table)
    return LaneTables(
        cls_n, cls_contrib, cls_mask, loc_upto, valid, profile, code_info, ncodes, deltas, ndeltas, need, sup, sub, back
    )


def _static_tables(table: PartitionTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`LaneTables.sup`, `.sub` and `.back` of `table`'s last slot."""
    s = len(table.radices) - 1
    radix = int(table.radices[s])
    chunks = -(-radix // LANES)
    width = table.bounds.locations * table.bounds.values
    if width > STATIC_BITS:
        return np.zeros((4, chunks, 0), np.int64), np.zeros((4, chunks, 0), np.int64), np.zeros(chunks, np.int64)
    x = table.contrib[s, :radix].astype(np.int64)  # CONTRIBUTIONS: used, nonstore, xchg, back, writes, nn, nv, written
    supers = [x[:, 1], x[:, 0], x[:, 7], x[:, 4]]
    subsets = [x[:, 2], x[:, 1], x[:, 5] & ~x[:, 7], x[:, 6] & ~x[:, 4]]
    every = np.arange(1 << width, dtype=np.int64)
    sup = np.zeros((4, chunks, 1 << width), np.int64)
    sub = np.zeros((4, chunks, 1 << width), np.int64)
    back = np.zeros(chunks, np.int64)
    for k in range(radix):
        c, bit = k // LANES, np.int64(_bit(k % LANES))
        for f in range(4):
            sup[f, c] |= np.where(supers[f][k] & every == every, bit, np.int64(0))
            sub[f, c] |= np.where(subsets[f][k] & ~every == 0, bit, np.int64(0))
        if x[k, 3]:
            back[c] |= bit
    return sup, sub, back


@njit(cache=True, inline="always")
def popcount(x):
    """Set bits of an int64 (all 64, the sign bit included)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0x7F


@njit(cache=True)
def batch_tables(vs, ls, chosen, touched, ntouched, profiles, acc, dm, batch):
    """Fill a batch's tables: `chosen[k, o]` holds the lanes that run option
    o at varying slot vs + k, for the `ntouched[k]` options `touched[k]`:

    - `cn[k, m]`, `cd[k, m, i]`, `cm[k, m, i]`: from memory m, the lanes
      `cm` step slot vs + k by the state delta `cd` (distinct deltas);
    - `taken[k, m]`, `change[k, m]`: the lanes whose instruction, run from
      m, sees mem[loc] == cmp, changes memory;
    - `need_tf[k]`, `need_c[k]`: the lanes needing both outcomes observed,
      a memory change observed.

    `profiles` is (profile, code_info, ncodes, deltas, ndeltas, need) of
    `LaneTables`, `batch` the tables filled: (cn, cd, cm, taken, change,
    need_tf, need_c). Leaves `chosen`, `ntouched` and the scratch `acc`
    (memories x codes) and `dm` (deltas) zero."""
    profile, code_info, ncodes, deltas, ndeltas, need = profiles
    cn, cd, cm, taken, change, need_tf, need_c = batch
    memories = cn.shape[1]
    for k in range(ls - vs + 1):
        s = vs + k
        ntf = 0
        nc = 0
        for i in range(ntouched[k]):
            o = touched[k, i]
            x = chosen[k, o]
            chosen[k, o] = 0
            nd = need[s, o]
            if nd & 1:
                ntf |= x
            if nd & 2:
                nc |= x
            for m in range(memories):
                acc[m, profile[s, o, m]] |= x
        ntouched[k] = 0
        need_tf[k] = ntf
        need_c[k] = nc
        for m in range(memories):
            tk = 0
            ch = 0
            for c in range(ncodes[s, m]):
                x = acc[m, c]
                if x != 0:
                    acc[m, c] = 0
                    info = code_info[s, m, c]
                    dm[info >> 2] |= x
                    if info & 1:
                        tk |= x
                    if info & 2:
                        ch |= x
            n = 0
            for i in range(ndeltas[s, m]):
                x = dm[i]
                if x != 0:
                    dm[i] = 0
                    cd[k, m, n] = deltas[s, m, i]
                    cm[k, m, n] = x
                    n += 1
            cn[k, m] = n
            taken[k, m] = tk
            change[k, m] = ch


@njit(cache=True, inline="always")
def _edges(
    w, ne, digits, vs, threads, step_delta, memory_of, slot_at, cn, cd, cm, first, stuck, loops, dst, mask, group
):
    """Append state w's out-edges at `ne` (first[w] is where they start):
    `dst`, the lanes `mask` taking the edge, `group` = 1 where a thread's
    edges start (a varying slot's step has one edge per distinct successor
    among the batch's lanes, a fixed slot's one edge for every lane).
    `stuck[w]`: the lanes in which w is not an end state and every step
    from w is a self-loop (so constraint 2 fails); `loops[w]`: the lanes
    with a self-loop at w (a cycle: constraint 3). Returns the new end of
    the edge list."""
    first[w] = ne
    m = memory_of[w]
    sm = -1
    lp = 0
    steps = 0
    for t in range(threads):
        s = slot_at[w, t]
        if s < 0:
            continue
        steps += 1
        if s >= vs:
            k = s - vs
            z = 0
            for i in range(cn[k, m]):
                dst[ne] = w + cd[k, m, i]
                mask[ne] = cm[k, m, i]
                group[ne] = 1 if i == 0 else 0
                if cd[k, m, i] == 0:
                    z = cm[k, m, i]
                ne += 1
            sm &= z
            lp |= z
        else:
            delta = step_delta[s, digits[s], m]
            dst[ne] = w + delta
            mask[ne] = -1
            group[ne] = 1
            if delta != 0:
                sm = 0
            else:
                lp = -1
            ne += 1
    stuck[w] = sm if steps > 0 else 0
    loops[w] = lp
    return ne


@njit(cache=True, inline="always")
def _all_lanes_at_ends(X, order, count, end_lo, end_hi):
    """X = -1 (every lane) at the reached end states, where both fixed points start."""
    for k in range(count):
        v = order[k]
        if v >= end_lo and v < end_hi:
            X[v] = -1


@njit(cache=True)
def judge_batch(digits, lanes, vs, threads, model, end_lo, end_hi, batch, scratch):
    """The lanes of `lanes` that meet constraints 1, 2, 3, 5 and 6: slots
    before `vs` fixed by `digits`, the varying slots vs.. described by
    `batch` (`batch_tables`' output); `model` is the partition's
    (step_delta, step_bits, need_bits, memory_of, slot_at).

    `scratch` = (work, dst, mask, group, obs, bits), zero on entry and on
    return where it matters: `work` (8 rows of one entry per state: R, C, P
    (module docstring), each state's first and one-past-last out-edge, the
    reached states in increasing order, `stuck` and `loops` (`_edges`)); the
    edge list `dst`, `mask`, `group`; `obs` (64 entries); `bits` (2 rows of
    one bit per state: pending, reached)."""
    step_delta, step_bits, need_bits, memory_of, slot_at = model
    cn, cd, cm, taken, change, need_tf, need_c = batch
    work, dst, mask, group, obs, bits = scratch
    ls = digits.shape[0] - 1
    R = work[0]
    C = work[1]
    P = work[2]
    first = work[3]
    end = work[4]
    order = work[5]
    stuck = work[6]
    loops = work[7]
    pending = bits[0]
    seen = bits[1]
    R[0] = lanes
    seen[0] = 1
    pending[0] = 1
    low = 0  # no pending state below word `low`
    ne = _edges(
        0, 0, digits, vs, threads, step_delta, memory_of, slot_at, cn, cd, cm, first, stuck, loops, dst, mask, group
    )
    end[0] = ne
    live = lanes & ~stuck[0]  # lanes not yet known to fail: only they propagate
    words = pending.shape[0]
    # lowest pending state first: steps that advance a pc lead to higher states,
    # so without backward jumps every state is expanded once
    while live != 0:
        while low < words and pending[low] == 0:
            low += 1
        if low == words:
            break
        word = pending[low]
        lowest = word & -word
        pending[low] = word ^ lowest
        v = low * 64 + popcount(lowest - 1)
        x = R[v] & live
        for e in range(first[v], end[v]):
            w = dst[e]
            y = x & mask[e]
            if y & ~R[w]:
                if R[w] == 0:
                    seen[w >> 6] |= np.int64(1) << (w & 63)
                    ne = _edges(
                        w,
                        ne,
                        digits,
                        vs,
                        threads,
                        step_delta,
                        memory_of,
                        slot_at,
                        cn,
                        cd,
                        cm,
                        first,
                        stuck,
                        loops,
                        dst,
                        mask,
                        group,
                    )
                    end[w] = ne
                R[w] |= y
                dead = y & stuck[w]
                if dead != 0:  # these lanes reach a stuck state: constraint 2 fails
                    live &= ~dead
                    if live == 0:
                        break
                    x &= live
                    if y & live == 0:
                        continue
                pending[w >> 6] |= np.int64(1) << (w & 63)
                if w >> 6 < low:
                    low = w >> 6
    # the reached states in increasing order
    count = 0
    for i in range(words):
        pending[i] = 0
        word = seen[i]
        seen[i] = 0
        while word != 0:
            lowest = word & -word
            word ^= lowest
            order[count] = i * 64 + popcount(lowest - 1)
            count += 1
    if live == 0:
        for k in range(count):
            R[order[k]] = 0
        return 0
    # constraints 5 and 6: every needed observation bit
    for b in range(3 * ls + 3):
        obs[b] = 0
    cyc = 0  # lanes with a reachable self-loop
    for k in range(count):
        v = order[k]
        x = R[v]
        cyc |= x & loops[v]
        m = memory_of[v]
        for t in range(threads):
            s = slot_at[v, t]
            if s < 0:
                continue
            if s >= vs:
                tk = taken[s - vs, m]
                obs[3 * s] |= x & tk
                obs[3 * s + 1] |= x & ~tk
                obs[3 * s + 2] |= x & change[s - vs, m]
            else:
                b = step_bits[s, digits[s], m] >> (3 * s)
                if b & 1:
                    obs[3 * s] |= x
                else:
                    obs[3 * s + 1] |= x
                if b & 4:
                    obs[3 * s + 2] |= x
    ok = live
    for s in range(vs):
        nb = need_bits[s, digits[s]] >> (3 * s)
        if nb & 1:
            ok &= obs[3 * s] & obs[3 * s + 1]
        if nb & 4:
            ok &= obs[3 * s + 2]
    for s in range(vs, ls + 1):
        ok &= (obs[3 * s] & obs[3 * s + 1]) | ~need_tf[s - vs]
        ok &= obs[3 * s + 2] | ~need_c[s - vs]
    if ok != 0:
        # constraint 2: every reachable state reaches an end state
        _all_lanes_at_ends(C, order, count, end_lo, end_hi)
        changed = True
        while changed:
            changed = False
            for k in range(count - 1, -1, -1):
                v = order[k]
                old = C[v]
                y = old
                for e in range(first[v], end[v]):
                    y |= C[dst[e]] & mask[e]
                if y != old:
                    C[v] = y
                    changed = True
            bad = 0
            for k in range(count):
                v = order[k]
                bad |= R[v] & ~C[v]
            if bad & ok == 0:
                break  # every lane still in question already passes
        ok &= ~bad
    if ok & ~cyc != 0:
        # constraint 3: a reachable state that is not peeled reaches a cycle
        _all_lanes_at_ends(P, order, count, end_lo, end_hi)
        changed = True
        while changed:
            changed = False
            for k in range(count - 1, -1, -1):
                v = order[k]
                a = first[v]
                b = end[v]
                if a == b:
                    continue
                y = -1
                z = 0
                for e in range(a, b):
                    if group[e] and e > a:
                        y &= z
                        z = 0
                    z |= P[dst[e]] & mask[e]
                y &= z
                if y != P[v]:
                    P[v] = y
                    changed = True
        for k in range(count):
            v = order[k]
            cyc |= R[v] & ~P[v]
    ok &= cyc
    for k in range(count):
        v = order[k]
        R[v] = 0
        C[v] = 0
        P[v] = 0
    return ok
