"""Compiled kernels of the large-test checker (progress/core/scale.py drives
them; docs/semantics.md sections 4 and 9 say what they compute).

`explore` builds, resumably, the reachable product of one program with a
model memory on packed states (progress/core/packed.py): a state is a key
of `Layout.n_words` words (locations and pcs) and a memory word, which is 0 (memory kind NONE), the
bitmask of threads that have stepped (STARTED) or an index into a
tabulated memory (`after[m, t]`). With symmetry groups every successor is
replaced by its orbit's representative (progress/core/symmetry.py), and
`exact[s * n + t]` records whether it already was one. `components` gives
the SCCs and, per SCC, whether some edge inside was not exact (such SCCs
are decided on their lift instead). `decide` is
progress.core.check's weak and strong test on every SCC not skipped.

Importing this module loads numba (progress/jit.py): only large tests do.
"""

from __future__ import annotations

import numpy as np

from progress.core.fastcheck import _cycles, _sccs
from progress.jit import njit

DONE = 0
CHUNK = 1  # `stop` states processed: call again
FULL = 2  # the arrays are full: grow them and call again
LIMIT = 3  # more states than `limit`

_H1 = 0x5851F42D4C957F2D
_H2 = 0x2545F4914F6CDD1D


@njit(cache=True)
def _slot(key, mem, tmask):
    h = mem * _H2
    for w in range(key.shape[0]):
        h = (h ^ key[w]) * _H1
    return ((h ^ (h >> 29)) >> 17) & tmask


@njit(cache=True)
def _get(key, word, sh, fmask, f):
    return (key[word[f]] >> sh[f]) & fmask[f]


@njit(cache=True)
def _put(key, word, sh, fmask, f, v):
    """Field f of `key` (a row of words, changed in place) set to v."""
    w = word[f]
    key[w] = (key[w] & ~(fmask[f] << sh[f])) | (v << sh[f])


@njit(cache=True)
def _same(a, b):
    for w in range(a.shape[0]):
        if a[w] != b[w]:
            return False
    return True


@njit(cache=True)
def _canon(key, mem, gstart, gmembers, fields, use_mem, buf):
    """The orbit representative of (key, mem), `key` changed in place and
    the memory word returned: each group's (pc, stepped) pairs sorted and
    handed out in member order."""
    word, sh, fmask, nloc = fields
    for g in range(gstart.shape[0] - 1):
        a = gstart[g]
        k = gstart[g + 1] - a
        for i in range(k):
            t = gmembers[a + i]
            v = _get(key, word, sh, fmask, nloc + t) * 2
            if use_mem:
                v += (mem >> t) & 1
            j = i
            while j > 0 and buf[j - 1] > v:
                buf[j] = buf[j - 1]
                j -= 1
            buf[j] = v
        for i in range(k):
            t = gmembers[a + i]
            v = buf[i]
            _put(key, word, sh, fmask, nloc + t, v >> 1)
            if use_mem:
                mem = (mem & ~(1 << t)) | ((v & 1) << t)
    return mem


@njit(cache=True)
def rehash(space, count):
    """Fill the empty table of `space` (all -1) with states 0..count-1."""
    keys, mems, _, _, _, table = space
    tmask = table.shape[0] - 1
    for s in range(count):
        h = _slot(keys[s], mems[s], tmask)
        while table[h] >= 0:
            h = (h + 1) & tmask
        table[h] = s


@njit(cache=True)
def explore(prog, memkind, after, gstart, gmembers, space, s, count, stop, limit):
    """Expand states s.. (breadth first) until none is left (DONE), `stop`
    were expanded (CHUNK), the arrays are full (FULL) or `limit` is passed
    (LIMIT); returns (status, s, count). `prog` = (code, bases, lengths,
    (word, shift, mask per field, number of locations)); `space` = (keys
    (one row of words per state), mems, dst, exact, enabled, table): the
    table holds state numbers, -1 in a free slot."""
    code, bases, lengths, fields = prog
    word, sh, fmask, nloc = fields
    keys, mems, dst, exact, enabled, table = space
    n = lengths.shape[0]
    cap = keys.shape[0]
    tmask = table.shape[0] - 1
    buf = np.empty(max(n, 1), np.int64)
    b = np.empty(keys.shape[1], np.int64)
    c = np.empty(keys.shape[1], np.int64)
    symmetric = gstart.shape[0] > 1
    done = 0
    while s < count:
        if done >= stop:
            return CHUNK, s, count
        if count + n > cap:
            return FULL, s, count
        a = keys[s]
        m = mems[s]
        emask = 0
        for t in range(n):
            e = s * n + t
            pc = _get(a, word, sh, fmask, nloc + t)
            if pc >= lengths[t]:
                dst[e] = -1
                exact[e] = 1
                continue
            emask |= 1 << t
            i = bases[t] + pc
            loc = code[i, 0]
            old = _get(a, word, sh, fmask, loc)
            b[:] = a
            if code[i, 3] != 0:
                _put(b, word, sh, fmask, loc, code[i, 4])
            _put(b, word, sh, fmask, nloc + t, code[i, 2] if old == code[i, 1] else pc + 1)
            m2 = 0
            if memkind == 1:
                m2 = m | (1 << t)
            elif memkind == 2:
                m2 = after[m, t]
            cm = m2
            c[:] = b
            if symmetric:
                cm = _canon(c, m2, gstart, gmembers, fields, memkind == 1, buf)
            exact[e] = 1 if cm == m2 and _same(b, c) else 0
            h = _slot(c, cm, tmask)
            v = table[h]
            while v >= 0 and not (mems[v] == cm and _same(keys[v], c)):
                h = (h + 1) & tmask
                v = table[h]
            if v >= 0:
                dst[e] = v
                continue
            if count >= limit:
                return LIMIT, s, count
            table[h] = count
            keys[count] = c
            mems[count] = cm
            dst[e] = count
            count += 1
        enabled[s] = emask
        s += 1
        done += 1
    return DONE, s, count


@njit(cache=True)
def components(dst, exact, count, n):
    """(comp, ncomp, cyclic, steppers, exits, inexact): the SCCs, which have
    an edge inside, the threads stepping inside, per state the threads
    whose step leaves its SCC, and the SCCs with a non-exact edge inside."""
    comp = np.empty(count, np.int32)
    allowed = np.ones(count, np.bool_)
    ncomp = _tarjan(dst, count, n, allowed, comp)
    cyclic = np.empty(ncomp, np.bool_)
    steppers = np.empty(ncomp, np.int64)
    exits = np.empty(count, np.int64)
    _cycles(dst, count, n, comp, ncomp, cyclic, steppers, exits)
    inexact = np.zeros(ncomp, np.bool_)
    for s in range(count):
        c = comp[s]
        for t in range(n):
            w = dst[s * n + t]
            if w >= 0 and comp[w] == c and exact[s * n + t] == 0:
                inexact[c] = True
    return comp, ncomp, cyclic, steppers, exits, inexact


@njit(cache=True)
def _tarjan(dst, count, n, allowed, comp):
    index = np.empty(count, np.int32)
    low = np.empty(count, np.int32)
    onstack = np.empty(count, np.bool_)
    stack = np.empty(count, np.int32)
    cs_node = np.empty(count, np.int32)
    cs_edge = np.empty(count, np.int32)
    return _sccs(dst, count, n, allowed, comp, index, low, onstack, stack, cs_node, cs_edge)


@njit(cache=True)
def decide(dst, count, n, comp, ncomp, cyclic, steppers, exits, skip, f):
    """(weak_fail, strong_fail) over the SCCs not in `skip`, F of state u
    being f[u] (progress.core.check.weak_witness and strong_witness)."""
    always = np.full(ncomp, -1, np.int64)
    for u in range(count):
        always[comp[u]] &= f[u]
    weak = False
    for c in range(ncomp):
        if cyclic[c] and not skip[c] and always[c] & ~steppers[c] == 0:
            weak = True
            break
    if not weak:
        return False, False  # a weak pass implies a strong pass
    active = np.zeros(count, np.bool_)
    kept = 0
    dropped = False
    for u in range(count):
        c = comp[u]
        if cyclic[c] and not skip[c]:
            if f[u] & exits[u]:
                dropped = True
            else:
                active[u] = True
                kept += 1
    comp2 = np.empty(count, np.int32)
    exits2 = np.empty(count, np.int64)
    while dropped and kept > 0:
        ncomp2 = _tarjan(dst, count, n, active, comp2)
        cyc2 = np.empty(ncomp2, np.bool_)
        step2 = np.empty(ncomp2, np.int64)
        _cycles(dst, count, n, comp2, ncomp2, cyc2, step2, exits2)
        dropped = False
        for u in range(count):
            if active[u] and (not cyc2[comp2[u]] or f[u] & exits2[u]):
                active[u] = False
                kept -= 1
                dropped = True
    return True, kept > 0
