"""Compiled kernels of the batch classifier: every verdict of many tiny
programs in one call (progress/core/batch.py prepares the inputs and reads the
outputs; this module knows no Program, model or query objects).

Per program the kernel explores the program LTS once, builds one product per
distinct model memory (tabulated: memory values are small integers and
`after[k, m, t]` is the next one), decomposes each product into SCCs once,
and decides every model on it with F read from `fair[j, enabled, memory]`:

- weak (docs/semantics.md section 4, as `progress.core.check.weak_witness`): some SCC with an
  edge inside in which every thread that is in F in all its states steps on an
  edge inside it;
- strong (as `progress.core.check.strong_witness`): the greatest fixpoint of
  "keep the states of SCCs with an edge inside whose fair steps stay inside
  their SCC", recomputing SCCs on what is kept; a witness exists iff some
  state survives. A weak pass implies a strong pass, so strong is decided
  only when weak fails.

Only verdicts are computed (no lasso). Every buffer is allocated once per
call and reused by each program (grown and the program redone when one is
too small), so the cost per program is the work on its own states. States are packed into one int64:
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

from progress.jit import njit

PASS = 1
FAIL = 0
INCONCLUSIVE = -1
TOO_BIG = -2
_GROW = -3  # a buffer is too small: grow the workspace and redo the program
_WIDE = -4  # the packed state needs more than 62 bits
_LIMIT = -5  # more states than the limit (the state bound, else the cap)


@njit(cache=True)
def _bits(x):
    """Bits needed to hold 0..x."""
    b = 0
    while (1 << b) <= x:
        b += 1
    return b


@njit(cache=True)
def _workspace(size, n, nmem):
    """Buffers for LTSs of up to `size` states, carved into named slices by _one."""
    ints = np.empty(size * (3 * n + 26 + 2 * nmem), np.int64)
    flags = np.empty(size * 5, np.bool_)
    return ints, flags


@njit(cache=True)
def _sccs(dst, count, n, allowed, comp, index, low, onstack, stack, cs_node, cs_edge):
    """Iterative Tarjan on the states with `allowed[s]`; fills comp[s] with a
    component number (-1 for states not allowed) and returns how many."""
    for s in range(count):
        index[s] = -1
        comp[s] = -1
        onstack[s] = False
    sp = 0
    counter = 0
    ncomp = 0
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
def _one(data, start, n, after, nmem, fair, model_mem, limit, ints, flags, size, weak_fail, strong_fail):
    """Decide every model on one program: 0 (weak_fail/strong_fail filled),
    _LIMIT (an LTS past `limit` states), _WIDE (a state past 62 bits) or
    _GROW (past the workspace's `size` states)."""
    nmodels = model_mem.shape[0]
    nmems = nmem.shape[0]
    maxmem = 1
    for k in range(nmems):
        maxmem = max(maxmem, nmem[k])
    # carve the workspace
    at = 0
    keys = ints[at : at + size]
    at += size
    pdst = ints[at : at + size * n]
    at += size * n
    penabled = ints[at : at + size]
    at += size
    tkeys = ints[at : at + 4 * size]
    at += 4 * size
    tvals = ints[at : at + 4 * size]
    at += 4 * size
    pindex = ints[at : at + size * maxmem]
    at += size * maxmem
    origin = ints[at : at + size]
    at += size
    mem = ints[at : at + size]
    at += size
    xdst = ints[at : at + size * n]
    at += size * n
    xenabled = ints[at : at + size]
    at += size
    comp = ints[at : at + size]
    at += size
    index = ints[at : at + size]
    at += size
    low = ints[at : at + size]
    at += size
    stack = ints[at : at + size]
    at += size
    cs_node = ints[at : at + size]
    at += size
    cs_edge = ints[at : at + size]
    at += size
    steppers = ints[at : at + size]
    at += size
    exits = ints[at : at + size]
    at += size
    f = ints[at : at + size]
    at += size
    always = ints[at : at + size]
    at += size
    comp2 = ints[at : at + size]
    at += size
    step2 = ints[at : at + size]
    at += size
    exits2 = ints[at : at + size]
    at += size
    zeros = ints[at : at + size]
    at += size
    onstack = flags[0:size]
    allowed = flags[size : 2 * size]
    cyclic = flags[2 * size : 3 * size]
    active = flags[3 * size : 4 * size]
    cyc2 = flags[4 * size : 5 * size]
    # decode the record: value domains, packed layout
    nloc = data[start]
    lengths = data[start + 1 : start + 1 + n]
    init = data[start + 1 + n : start + 1 + n + nloc]
    raw_at = start + 1 + n + nloc
    total = 0
    for t in range(n):
        total += lengths[t]
    base = np.empty(n + 1, np.int64)
    base[0] = 0
    for t in range(n):
        base[t + 1] = base[t] + lengths[t]
    dom = np.empty((nloc, total + 1), np.int64)
    domsize = np.ones(nloc, np.int64)
    for loc in range(nloc):
        dom[loc, 0] = init[loc]
    for i in range(total):
        loc = data[raw_at + 5 * i]
        if data[raw_at + 5 * i + 3] != 0:
            v = data[raw_at + 5 * i + 4]
            found = False
            for k in range(domsize[loc]):
                if dom[loc, k] == v:
                    found = True
                    break
            if not found:
                dom[loc, domsize[loc]] = v
                domsize[loc] += 1
    nf = nloc + n
    off = np.empty(nf, np.int64)
    fmask = np.empty(nf, np.int64)
    bits = 0
    for fld in range(nf):
        w = _bits(domsize[fld] - 1) if fld < nloc else _bits(lengths[fld - nloc])
        off[fld] = bits
        fmask[fld] = (1 << w) - 1
        bits += w
    if bits > 62:
        return _WIDE
    code = np.empty((total, 5), np.int64)  # loc, cmp index (-1 never), target, xchg, val index
    for i in range(total):
        loc = data[raw_at + 5 * i]
        code[i, 0] = loc
        code[i, 1] = -1
        code[i, 2] = data[raw_at + 5 * i + 2]
        code[i, 3] = data[raw_at + 5 * i + 3]
        code[i, 4] = 0
        for k in range(domsize[loc]):
            if dom[loc, k] == data[raw_at + 5 * i + 1]:
                code[i, 1] = k
            if code[i, 3] != 0 and dom[loc, k] == data[raw_at + 5 * i + 4]:
                code[i, 4] = k
    # the program LTS, breadth first over packed keys (open addressing, 4*size slots)
    tmask = 4 * size - 1
    for h in range(4 * size):
        tkeys[h] = -1
    keys[0] = 0
    tkeys[0] = 0  # hash of key 0 is slot 0
    tvals[0] = 0
    count = 1
    s = 0
    while s < count:
        key = keys[s]
        emask = 0
        for t in range(n):
            pc = (key >> off[nloc + t]) & fmask[nloc + t]
            if pc >= lengths[t]:
                pdst[s * n + t] = -1
                continue
            emask |= 1 << t
            i = base[t] + pc
            loc = code[i, 0]
            new = key
            if code[i, 3] != 0:
                new = (new & ~(fmask[loc] << off[loc])) | (code[i, 4] << off[loc])
            npc = code[i, 2] if ((key >> off[loc]) & fmask[loc]) == code[i, 1] else pc + 1
            new = (new & ~(fmask[nloc + t] << off[nloc + t])) | (npc << off[nloc + t])
            h = ((new * 0x5851F42D4C957F2D) >> 20) & tmask
            while tkeys[h] != -1 and tkeys[h] != new:
                h = (h + 1) & tmask
            if tkeys[h] == new:
                pdst[s * n + t] = tvals[h]
                continue
            if count >= limit:
                return _LIMIT
            if count >= size:
                return _GROW
            tkeys[h] = new
            tvals[h] = count
            keys[count] = new
            pdst[s * n + t] = count
            count += 1
        penabled[s] = emask
        s += 1
    for k in range(nmems):
        if nmem[k] == 1:
            states = count
            dst = pdst
            enabled = penabled
            memory = zeros
            for u in range(count):
                zeros[u] = 0
        else:
            m_k = nmem[k]
            for slot in range(count * m_k):
                pindex[slot] = -1
            pindex[0] = 0
            origin[0] = 0
            mem[0] = 0
            states = 1
            u = 0
            while u < states:
                o = origin[u]
                m = mem[u]
                for t in range(n):
                    d = pdst[o * n + t]
                    if d < 0:
                        xdst[u * n + t] = -1
                        continue
                    m2 = after[k, m, t]
                    slot = d * m_k + m2
                    v = pindex[slot]
                    if v < 0:
                        if states >= limit:
                            return _LIMIT
                        if states >= size:
                            return _GROW
                        v = states
                        pindex[slot] = v
                        origin[v] = d
                        mem[v] = m2
                        states += 1
                    xdst[u * n + t] = v
                xenabled[u] = penabled[o]
                u += 1
            dst = xdst
            enabled = xenabled
            memory = mem
        for u in range(states):
            allowed[u] = True
        ncomp = _sccs(dst, states, n, allowed, comp, index, low, onstack, stack, cs_node, cs_edge)
        any_cycle = _cycles(dst, states, n, comp, ncomp, cyclic, steppers, exits)
        for j in range(nmodels):
            if model_mem[j] != k:
                continue
            weak_fail[j] = False
            strong_fail[j] = False
            if not any_cycle:
                continue
            for u in range(states):
                f[u] = fair[j, enabled[u], memory[u]]
            # weak: an SCC with a cycle whose always-fair threads all step inside
            for c in range(ncomp):
                always[c] = -1
            for u in range(states):
                always[comp[u]] &= f[u]
            for c in range(ncomp):
                if cyclic[c] and always[c] & ~steppers[c] == 0:
                    weak_fail[j] = True
                    break
            if not weak_fail[j]:
                continue  # a weak pass implies a strong pass
            # strong: prune states with a fair step leaving their SCC, recompute, repeat
            kept = 0
            dropped = False
            for u in range(states):
                active[u] = False
                if cyclic[comp[u]]:
                    if f[u] & exits[u]:
                        dropped = True
                    else:
                        active[u] = True
                        kept += 1
            while dropped and kept > 0:
                ncomp2 = _sccs(dst, states, n, active, comp2, index, low, onstack, stack, cs_node, cs_edge)
                _cycles(dst, states, n, comp2, ncomp2, cyc2, step2, exits2)
                dropped = False
                for u in range(states):
                    if active[u] and (not cyc2[comp2[u]] or f[u] & exits2[u]):
                        active[u] = False
                        kept -= 1
                        dropped = True
            strong_fail[j] = kept > 0
    return 0


@njit(cache=True)
def check_batch(data, offsets, n, after, nmem, fair, model_mem, query_model, query_strong, max_states, cap, out):
    """Fill out[p, q] with PASS, FAIL, INCONCLUSIVE or TOO_BIG.

    after[k, m, t]: memory k's next value index; nmem[k]: its number of
    values (index 0 is the initial one); fair[j, enabled, m]: F of model j;
    model_mem[j]: the memory of model j; query q asks model query_model[q]
    under strong fairness iff query_strong[q]. max_states < 0: no bound."""
    nprog = offsets.shape[0]
    nmodels = model_mem.shape[0]
    nq = query_model.shape[0]
    # np.int64: a constant passed on (maxmem, size) would make numba compile
    # _workspace and _one once more for it (a Literal type), 4 s of CPU
    maxmem = np.int64(1)
    for k in range(nmem.shape[0]):
        maxmem = max(maxmem, nmem[k])
    weak_fail = np.zeros(nmodels, np.bool_)
    strong_fail = np.zeros(nmodels, np.bool_)
    bounded = max_states >= 0 and max_states <= cap  # past the bound: inconclusive; past cap alone: TOO_BIG
    limit = max_states if bounded else cap
    size = np.int64(256)
    ints, flags = _workspace(size, n, maxmem)
    for p in range(nprog):
        result = _one(
            data, offsets[p], n, after, nmem, fair, model_mem, limit, ints, flags, size, weak_fail, strong_fail
        )
        while result == _GROW:
            size *= 4
            ints, flags = _workspace(size, n, maxmem)
            result = _one(
                data, offsets[p], n, after, nmem, fair, model_mem, limit, ints, flags, size, weak_fail, strong_fail
            )
        if result == _LIMIT:
            result = INCONCLUSIVE if bounded else TOO_BIG
        elif result == _WIDE:
            result = TOO_BIG
        for q in range(nq):
            if result != 0:
                out[p, q] = result
            else:
                j = query_model[q]
                failed = strong_fail[j] if query_strong[q] else weak_fail[j]
                out[p, q] = FAIL if failed else PASS
