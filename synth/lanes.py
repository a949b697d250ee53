"""The bit-parallel LTS judge: every option of a partition's last slot at once.

Neighbouring candidates of the streamed space (synth/stream.py) differ only
in the last slot (the last instruction of the last thread), whose options are
at most 64 per *chunk* (`LANES`). They share every transition of their LTSs
but those of the last thread at its last instruction. So the compiled judge
(synth/fast_judge.py) judges a chunk of options in one search whose values are
64-bit *lane masks*, bit j standing for option 64 * chunk + j:

- `R[g]`: the lanes in which state g is reachable (forward propagation from
  the initial state over a work queue until nothing grows);
- observations: bit 3*s + k of a lane is observed when a reachable state of
  that lane steps slot s (constraints 5 and 6: every needed bit observed);
- `C[g]`: the lanes in which g reaches an end state (backward sweeps to the
  least fixed point); constraint 2 is "R[g] implies C[g] for every g";
- `P[g]`: the lanes in which g is *peeled*: every successor is peeled (end
  states have none); a lane has a reachable cycle (constraint 3, self-loops
  included) exactly when some reachable state is not peeled.

Shortcuts that change no verdict: a lane dies as soon as the depth-first
propagation reaches a state whose every step is a self-loop (constraint 2
fails there), and a chunk whose lanes have all died stops; the sweeps for
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
"""Options of the last slot judged together (bits of an int64)."""


@dataclass(frozen=True)
class LaneTables:
    """The last slot's options, chunk by chunk (c), as lane masks (int64 arrays).

    - `var_n[c, m]`, `var_delta[c, m, i]`, `var_mask[c, m, i]`: from memory m,
      the lanes in `var_mask` step the state by `var_delta` (distinct deltas);
    - `taken[c, m]`, `change[c, m]`: lanes whose instruction, run from m,
      sees mem[loc] == cmp, changes memory;
    - `need_tf[c]`, `need_c[c]`: lanes needing both outcomes observed (a
      branch), a memory change observed (an exchange);
    - `cls_n[c]`, `cls_contrib[c, i]`, `cls_mask[c, i]`: the options grouped
      by their contribution to the thread's signature (static pruning);
    - `loc_upto[c, x]`: lanes whose location is at most x (first-use order);
    - `valid[c]`: lanes that are options at all."""

    var_n: np.ndarray
    var_delta: np.ndarray
    var_mask: np.ndarray
    taken: np.ndarray
    change: np.ndarray
    need_tf: np.ndarray
    need_c: np.ndarray
    cls_n: np.ndarray
    cls_contrib: np.ndarray
    cls_mask: np.ndarray
    loc_upto: np.ndarray
    valid: np.ndarray


def _bit(lane: int) -> int:
    """Lane `lane` as an int64 bit (lane 63 is the sign bit)."""
    return int(np.int64(np.uint64(1) << np.uint64(lane)))


@lru_cache(maxsize=64)
def lane_tables(table: PartitionTable) -> LaneTables:
    """The tables of `table`'s last slot (built once per partition, milliseconds)."""
    s = len(table.radices) - 1
    radix = int(table.radices[s])
    chunks = -(-radix // LANES)
    memories = table.memories
    locations = table.bounds.locations
    var: list[list[dict[int, int]]] = [[{} for _ in range(memories)] for _ in range(chunks)]
    taken = np.zeros((chunks, memories), dtype=np.int64)
    change = np.zeros((chunks, memories), dtype=np.int64)
    need_tf = np.zeros(chunks, dtype=np.int64)
    need_c = np.zeros(chunks, dtype=np.int64)
    classes: list[dict[tuple[int, ...], int]] = [{} for _ in range(chunks)]
    loc_upto = np.zeros((chunks, locations + 1), dtype=np.int64)
    valid = np.zeros(chunks, dtype=np.int64)
    for k in range(radix):
        c, bit = k // LANES, _bit(k % LANES)
        valid[c] |= bit
        for m in range(memories):
            delta = int(table.step_delta[s, k, m])
            var[c][m][delta] = var[c][m].get(delta, 0) | bit
            bits = int(table.step_bits[s, k, m]) >> (3 * s)
            if bits & 1:
                taken[c, m] |= bit
            if bits & 4:
                change[c, m] |= bit
        need = int(table.need_bits[s, k]) >> (3 * s)
        if need & 1:
            need_tf[c] |= bit
        if need & 4:
            need_c[c] |= bit
        key = tuple(int(x) for x in table.contrib[s, k])
        classes[c][key] = classes[c].get(key, 0) | bit
        for x in range(int(table.options[s, k, 0]), locations + 1):
            loc_upto[c, x] |= bit
    width = max(len(var[c][m]) for c in range(chunks) for m in range(memories))
    var_n = np.zeros((chunks, memories), dtype=np.int64)
    var_delta = np.zeros((chunks, memories, width), dtype=np.int64)
    var_mask = np.zeros((chunks, memories, width), dtype=np.int64)
    for c in range(chunks):
        for m in range(memories):
            var_n[c, m] = len(var[c][m])
            for i, (delta, mask) in enumerate(sorted(var[c][m].items())):
                var_delta[c, m, i] = delta
                var_mask[c, m, i] = mask
    ncls = max(len(x) for x in classes)
    cls_n = np.array([len(x) for x in classes], dtype=np.int64)
    cls_contrib = np.zeros((chunks, ncls, table.contrib.shape[2]), dtype=np.int64)
    cls_mask = np.zeros((chunks, ncls), dtype=np.int64)
    for c in range(chunks):
        for i, (key, mask) in enumerate(sorted(classes[c].items())):
            cls_contrib[c, i] = key
            cls_mask[c, i] = mask
    return LaneTables(
        var_n, var_delta, var_mask, taken, change, need_tf, need_c, cls_n, cls_contrib, cls_mask, loc_upto, valid
    )


@njit(cache=True, inline="always")
def popcount(x):
    """Set bits of an int64 (all 64, the sign bit included)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0x7F


@njit(cache=True, inline="always")
def _edges(
    w, ne, digits, ls, threads, step_delta, memory_of, slot_at, cn, cd, cm, first, stuck, loops, dst, mask, group
):
    """Append state w's out-edges at `ne` (first[w] is where they start):
    `dst`, the lanes `mask` taking the edge, `group` = 1 where a thread's
    edges start (the last slot's step has one edge per distinct successor
    among the live lanes, the other threads one edge for every lane).
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
        if s == ls:
            z = 0
            for i in range(cn[m]):
                dst[ne] = w + cd[m, i]
                mask[ne] = cm[m, i]
                group[ne] = 1 if i == 0 else 0
                if cd[m, i] == 0:
                    z = cm[m, i]
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


@njit(cache=True)
def judge_lanes(
    digits,
    lanes,
    c,
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
):
    """The lanes of `lanes` (chunk c of the last slot's options; slots before
    it fixed by `digits`) that meet constraints 1, 2, 3, 5 and 6.

    Work arrays, zero on entry and on return where it matters: `work`
    (10 rows of one entry per state: R, C, P (module docstring), each
    state's first and one-past-last out-edge, the states reached in any lane
    in order, the work stack, stack membership, `stuck` and `loops`
    (`_edges`));
    `cn`, `cd`, `cm` (the last slot's distinct steps among the live lanes,
    per memory); the edge list `dst`, `mask`, `group`; `obs` (64 entries)."""
    ls = digits.shape[0] - 1
    R = work[0]
    C = work[1]
    P = work[2]
    first = work[3]
    end = work[4]
    order = work[5]
    stack = work[6]
    instack = work[7]
    stuck = work[8]
    loops = work[9]
    for m in range(cn.shape[0]):
        n = 0
        for i in range(var_n[c, m]):
            y = var_mask[c, m, i] & lanes
            if y != 0:
                cd[m, n] = var_delta[c, m, i]
                cm[m, n] = y
                n += 1
        cn[m] = n
    R[0] = lanes
    order[0] = 0
    count = 1
    ne = _edges(
        0, 0, digits, ls, threads, step_delta, memory_of, slot_at, cn, cd, cm, first, stuck, loops, dst, mask, group
    )
    end[0] = ne
    stack[0] = 0
    instack[0] = 1
    sp = 1
    live = lanes & ~stuck[0]  # lanes not yet known to fail: only they propagate
    while sp > 0 and live != 0:  # depth first, so that stuck states show up early
        sp -= 1
        v = stack[sp]
        instack[v] = 0
        x = R[v] & live
        for e in range(first[v], end[v]):
            w = dst[e]
            y = x & mask[e]
            if y & ~R[w]:
                if R[w] == 0:
                    order[count] = w
                    count += 1
                    ne = _edges(
                        w,
                        ne,
                        digits,
                        ls,
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
                if instack[w] == 0:
                    instack[w] = 1
                    stack[sp] = w
                    sp += 1
        if live == 0:
            break
    for i in range(sp):
        instack[stack[i]] = 0
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
            if s == ls:
                tk = taken[c, m]
                obs[3 * s] |= x & tk
                obs[3 * s + 1] |= x & ~tk
                obs[3 * s + 2] |= x & change[c, m]
            else:
                b = step_bits[s, digits[s], m] >> (3 * s)
                if b & 1:
                    obs[3 * s] |= x
                else:
                    obs[3 * s + 1] |= x
                if b & 4:
                    obs[3 * s + 2] |= x
    ok = live
    for s in range(ls):
        nb = need_bits[s, digits[s]] >> (3 * s)
        if nb & 1:
            ok &= obs[3 * s] & obs[3 * s + 1]
        if nb & 4:
            ok &= obs[3 * s + 2]
    ok &= (obs[3 * ls] & obs[3 * ls + 1]) | ~need_tf[c]
    ok &= obs[3 * ls + 2] | ~need_c[c]
    if ok != 0:
        # constraint 2: every reachable state reaches an end state
        for k in range(count):
            v = order[k]
            if v >= end_lo and v < end_hi:
                C[v] = -1
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
        for k in range(count):
            v = order[k]
            if v >= end_lo and v < end_hi:
                P[v] = -1
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
