"""Compiled kernels of the batch classifier: every verdict of many tiny
programs in one call (progress/batch.py prepares the inputs and reads the
outputs; this module knows no Program, model or query objects).

Per program the kernel explores the program LTS once, builds one product per
distinct model memory (tabulated: memory values are small integers and
`after[k, m, t]` is the next one), decomposes each product into SCCs once,
and decides every model on it with F read from `fair[j, enabled, memory]`:

- weak (SPEC section 4, as `progress.check.weak_witness`): some SCC with an
  edge inside in which every thread that is in F in all its states steps on an
  edge inside it;
- strong (as `progress.check.strong_witness`): the greatest fixpoint of
  "keep the states of SCCs with an edge inside whose fair steps stay inside
  their SCC", recomputing SCCs on what is kept; a witness exists iff some
  state survives. A weak pass implies a strong pass, so strong is decided
  only when weak fails.

Only verdicts are computed (no lasso). States are packed into one int64:
each location holds the index of its value among the values it can ever hold
(its initial value and the values stored to it), each thread its pc. A
program whose packed state needs more than 62 bits, or whose LTS or product
exceeds `cap` states, comes back TOO_BIG for the caller to check otherwise.

Program record in `data` from `offsets[p]` (n threads, fixed per call):
nloc, n thread lengths, nloc initial values, then 5 ints per instruction
(location index, cmp, target, xchg 0/1, val), thread by thread.
"""

from __future__ import annotations

import numpy as np

from .jit import njit

PASS = 1
FAIL = 0
INCONCLUSIVE = -1
TOO_BIG = -2

_EMPTY = -1


@njit(cache=True)
def _bits(x):
    """Bits needed to hold 0..x."""
    b = 0
    while (1 << b) <= x:
        b += 1
    return b


@njit(cache=True)
def _hash(key, mask):
    h = key * 0x5851F42D4C957F2D
    h ^= h >> 29
    return h & mask


@njit(cache=True)
def _explore(data, start, n, cap):
    """The program LTS: (number of states or TOO_BIG, successor table
    dst[s * n + t] (-1 where t is not enabled), enabled mask per state)."""
    nloc = data[start]
    pos = start + 1
    lengths = data[pos : pos + n]
    pos += n
    init = data[pos : pos + nloc]
    pos += nloc
    total = 0
    for t in range(n):
        total += lengths[t]
    base = np.zeros(n + 1, np.int64)
    for t in range(n):
        base[t + 1] = base[t] + lengths[t]
    raw = data[pos : pos + 5 * total]
    # value domain of each location: its initial value, then every value stored to it
    dom = np.empty((max(nloc, 1), total + 1), np.int64)
    domsize = np.zeros(max(nloc, 1), np.int64)
    for loc in range(nloc):
        dom[loc, 0] = init[loc]
        domsize[loc] = 1
    for i in range(total):
        loc = raw[5 * i]
        if raw[5 * i + 3] != 0:
            v = raw[5 * i + 4]
            found = False
            for k in range(domsize[loc]):
                if dom[loc, k] == v:
                    found = True
                    break
            if not found:
                dom[loc, domsize[loc]] = v
                domsize[loc] += 1
    # fields: locations then pcs; offset and width of each
    nf = nloc + n
    off = np.zeros(nf, np.int64)
    width = np.zeros(nf, np.int64)
    bits = 0
    for loc in range(nloc):
        width[loc] = _bits(domsize[loc] - 1)
        off[loc] = bits
        bits += width[loc]
    for t in range(n):
        width[nloc + t] = _bits(lengths[t])
        off[nloc + t] = bits
        bits += width[nloc + t]
    empty_dst = np.empty(0, np.int64)
    if bits > 62:
        return TOO_BIG, empty_dst, empty_dst
    # instructions with values as domain indices (cmp -1: never equal)
    iloc = np.empty(total, np.int64)
    icmp = np.empty(total, np.int64)
    itarget = np.empty(total, np.int64)
    ixchg = np.empty(total, np.bool_)
    ival = np.empty(total, np.int64)
    for i in range(total):
        loc = raw[5 * i]
        iloc[i] = loc
        itarget[i] = raw[5 * i + 2]
        ixchg[i] = raw[5 * i + 3] != 0
        icmp[i] = -1
        ival[i] = 0
        for k in range(domsize[loc]):
            if dom[loc, k] == raw[5 * i + 1]:
                icmp[i] = k
            if ixchg[i] and dom[loc, k] == raw[5 * i + 4]:
                ival[i] = k
    # breadth-first exploration over packed keys, open-addressing index
    size = 64
    keys = np.empty(size, np.int64)
    dst = np.empty(size * n, np.int64)
    enabled = np.empty(size, np.int64)
    tsize = 256
    tkeys = np.full(tsize, _EMPTY, np.int64)
    tvals = np.empty(tsize, np.int64)
    keys[0] = 0  # initial state: every location at domain index 0, every pc 0
    tkeys[_hash(0, tsize - 1)] = 0
    tvals[_hash(0, tsize - 1)] = 0
    count = 1
    s = 0
    while s < count:
        key = keys[s]
        mask = 0
        for t in range(n):
            pc = (key >> off[nloc + t]) & ((1 << width[nloc + t]) - 1)
            if pc >= lengths[t]:
                dst[s * n + t] = -1
                continue
            mask |= 1 << t
            i = base[t] + pc
            loc = iloc[i]
            cur = (key >> off[loc]) & ((1 << width[loc]) - 1)
            new = key
            if ixchg[i]:
                new = (new & ~(((1 << width[loc]) - 1) << off[loc])) | (ival[i] << off[loc])
            npc = itarget[i] if cur == icmp[i] else pc + 1
            new = (new & ~(((1 << width[nloc + t]) - 1) << off[nloc + t])) | (npc << off[nloc + t])
            h = _hash(new, tsize - 1)
            while tkeys[h] != _EMPTY and tkeys[h] != new:
                h = (h + 1) & (tsize - 1)
            if tkeys[h] == new:
                dst[s * n + t] = tvals[h]
                continue
            if count >= cap:
                return TOO_BIG, empty_dst, empty_dst
            tkeys[h] = new
            tvals[h] = count
            if count == size:
                size *= 2
                keys2 = np.empty(size, np.int64)
                keys2[:count] = keys[:count]
                keys = keys2
                dst2 = np.empty(size * n, np.int64)
                dst2[: count * n] = dst[: count * n]
                dst = dst2
                en2 = np.empty(size, np.int64)
                en2[:count] = enabled[:count]
                enabled = en2
            keys[count] = new
            dst[s * n + t] = count
            count += 1
            if 2 * count > tsize:  # grow and rehash the index
                tsize *= 4
                tkeys = np.full(tsize, _EMPTY, np.int64)
                tvals = np.empty(tsize, np.int64)
                for j in range(count):
                    h = _hash(keys[j], tsize - 1)
                    while tkeys[h] != _EMPTY:
                        h = (h + 1) & (tsize - 1)
                    tkeys[h] = keys[j]
                    tvals[h] = j
        enabled[s] = mask
        s += 1
    return count, dst[: count * n], enabled[:count]


@njit(cache=True)
def _product(pdst, penabled, count, n, after, nmem, cap):
    """The reachable product with a tabulated memory: (states or TOO_BIG,
    dst, enabled, memory index per state)."""
    index = np.full(count * nmem, -1, np.int64)
    size = count * 2
    origin = np.empty(size, np.int64)
    mem = np.empty(size, np.int64)
    dst = np.empty(size * n, np.int64)
    index[0] = 0
    origin[0] = 0
    mem[0] = 0
    total = 1
    u = 0
    empty = np.empty(0, np.int64)
    while u < total:
        o = origin[u]
        m = mem[u]
        for t in range(n):
            d = pdst[o * n + t]
            if d < 0:
                dst[u * n + t] = -1
                continue
            m2 = after[m, t]
            slot = d * nmem + m2
            v = index[slot]
            if v < 0:
                if total >= cap:
                    return TOO_BIG, empty, empty, empty
                if total == size:
                    size *= 2
                    o2 = np.empty(size, np.int64)
                    o2[:total] = origin[:total]
                    origin = o2
                    m3 = np.empty(size, np.int64)
                    m3[:total] = mem[:total]
                    mem = m3
                    d2 = np.empty(size * n, np.int64)
                    d2[: total * n] = dst[: total * n]
                    dst = d2
                v = total
                index[slot] = v
                origin[v] = d
                mem[v] = m2
                total += 1
            dst[u * n + t] = v
        u += 1
    enabled = np.empty(total, np.int64)
    for v in range(total):
        enabled[v] = penabled[origin[v]]
    return total, dst[: total * n], enabled, mem[:total]


@njit(cache=True)
def _sccs(dst, count, n, allowed, comp):
    """Iterative Tarjan on the states with `allowed[s]`; fills comp[s] with a
    component number (-1 for states not allowed) and returns how many."""
    index = np.full(count, -1, np.int64)
    low = np.zeros(count, np.int64)
    onstack = np.zeros(count, np.bool_)
    stack = np.empty(count, np.int64)
    cs_node = np.empty(count, np.int64)
    cs_edge = np.empty(count, np.int64)
    sp = 0
    counter = 0
    ncomp = 0
    for s in range(count):
        comp[s] = -1
    for root in range(count):
        if not allowed[root] or index[root] >= 0:
            continue
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        onstack[root] = True
        cs_node[0] = root
        cs_edge[0] = 0
        csp = 1
        while csp > 0:
            v = cs_node[csp - 1]
            e = cs_edge[csp - 1]
            pushed = False
            while e < n:
                w = dst[v * n + e]
                e += 1
                if w < 0 or not allowed[w]:
                    continue
                if index[w] < 0:
                    cs_edge[csp - 1] = e
                    index[w] = counter
                    low[w] = counter
                    counter += 1
                    stack[sp] = w
                    sp += 1
                    onstack[w] = True
                    cs_node[csp] = w
                    cs_edge[csp] = 0
                    csp += 1
                    pushed = True
                    break
                if onstack[w] and index[w] < low[v]:
                    low[v] = index[w]
            if pushed:
                continue
            csp -= 1
            if csp > 0:
                parent = cs_node[csp - 1]
                if low[v] < low[parent]:
                    low[parent] = low[v]
            if low[v] == index[v]:
                while True:
                    sp -= 1
                    w = stack[sp]
                    onstack[w] = False
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
    return ncomp


@njit(cache=True)
def _cycles(dst, count, n, comp, ncomp, cyclic, steppers, exits):
    """Per component: has an edge inside (`cyclic`), the threads stepping
    inside (`steppers`); per state: the threads whose step leaves its
    component (`exits`). Returns whether any component is cyclic."""
    for c in range(ncomp):
        cyclic[c] = False
        steppers[c] = 0
    for s in range(count):
        exits[s] = 0
        c = comp[s]
        if c < 0:
            continue
        for t in range(n):
            w = dst[s * n + t]
            if w < 0:
                continue
            if comp[w] == c:
                cyclic[c] = True
                steppers[c] |= 1 << t
            else:
                exits[s] |= 1 << t
    for c in range(ncomp):
        if cyclic[c]:
            return True
    return False


@njit(cache=True)
def _weak_witness(count, comp, ncomp, cyclic, steppers, fair):
    always = np.full(ncomp, -1, np.int64)
    for s in range(count):
        c = comp[s]
        if c >= 0:
            always[c] &= fair[s]
    for c in range(ncomp):
        if cyclic[c] and always[c] & ~steppers[c] == 0:
            return True
    return False


@njit(cache=True)
def _strong_witness(dst, count, n, comp, cyclic, exits, fair):
    """Prune from the shared decomposition; recompute SCCs only on what is kept."""
    active = np.zeros(count, np.bool_)
    dropped = False
    kept = 0
    for s in range(count):
        c = comp[s]
        if c >= 0 and cyclic[c]:
            if fair[s] & exits[s]:
                dropped = True
            else:
                active[s] = True
                kept += 1
    if not dropped:
        return kept > 0
    comp2 = np.empty(count, np.int64)
    cyc2 = np.empty(count, np.bool_)
    step2 = np.empty(count, np.int64)
    exits2 = np.empty(count, np.int64)
    while kept > 0:
        ncomp = _sccs(dst, count, n, active, comp2)
        _cycles(dst, count, n, comp2, ncomp, cyc2, step2, exits2)
        dropped = False
        for s in range(count):
            if active[s] and (not cyc2[comp2[s]] or fair[s] & exits2[s]):
                active[s] = False
                kept -= 1
                dropped = True
        if not dropped:
            return True
    return False


@njit(cache=True)
def check_batch(data, offsets, n, after, nmem, fair, model_mem, query_model, query_strong, max_states, cap, out):
    """Fill out[p, q] with PASS, FAIL, INCONCLUSIVE or TOO_BIG.

    after[k, m, t]: memory k's next value index; nmem[k]: its number of
    values (index 0 is the initial one); fair[j, enabled, m]: F of model j;
    model_mem[j]: the memory of model j; query q asks model query_model[q]
    under strong fairness iff query_strong[q]. max_states < 0: no bound."""
    nprog = offsets.shape[0]
    nmodels = model_mem.shape[0]
    nmems = nmem.shape[0]
    nq = query_model.shape[0]
    weak_fail = np.zeros(nmodels, np.bool_)
    strong_fail = np.zeros(nmodels, np.bool_)
    bounded = max_states >= 0 and max_states <= cap  # past the bound: inconclusive; past cap alone: TOO_BIG
    limit = max_states if bounded else cap
    stopped = INCONCLUSIVE if bounded else TOO_BIG
    for p in range(nprog):
        count, pdst, penabled = _explore(data, offsets[p], n, limit)
        code = 0
        if count < 0:
            code = stopped
        else:
            for k in range(nmems):
                if code != 0:
                    break
                if nmem[k] == 1:
                    total = count
                    dst = pdst
                    enabled = penabled
                    mem = np.zeros(count, np.int64)
                else:
                    total, dst, enabled, mem = _product(pdst, penabled, count, n, after[k], nmem[k], limit)
                    if total < 0:
                        code = stopped
                        break
                allowed = np.ones(total, np.bool_)
                comp = np.empty(total, np.int64)
                ncomp = _sccs(dst, total, n, allowed, comp)
                cyclic = np.empty(ncomp, np.bool_)
                steppers = np.empty(ncomp, np.int64)
                exits = np.empty(total, np.int64)
                any_cycle = _cycles(dst, total, n, comp, ncomp, cyclic, steppers, exits)
                f = np.empty(total, np.int64)
                for j in range(nmodels):
                    if model_mem[j] != k:
                        continue
                    if not any_cycle:
                        weak_fail[j] = False
                        strong_fail[j] = False
                        continue
                    table = fair[j]
                    for s in range(total):
                        f[s] = table[enabled[s], mem[s]]
                    weak_fail[j] = _weak_witness(total, comp, ncomp, cyclic, steppers, f)
                    # a weak pass implies a strong pass (no weak witness, no strong one)
                    strong_fail[j] = weak_fail[j] and _strong_witness(dst, total, n, comp, cyclic, exits, f)
        for q in range(nq):
            if code != 0:
                out[p, q] = code
            else:
                j = query_model[q]
                failed = strong_fail[j] if query_strong[q] else weak_fail[j]
                out[p, q] = FAIL if failed else PASS
