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


@njit(cache=True)
def parents(dst, count, n):
    """(state, thread) of the breadth-first edge that found each state
    (-1 for state 0 and states no edge reaches): the first edge into it in
    (source, thread) order, as states are numbered when found."""
    parent = np.full(count, -1, np.int64)
    thread = np.full(count, -1, np.int64)
    for s in range(count):
        for t in range(n):
            d = dst[s * n + t]
            if d > 0 and parent[d] < 0:
                parent[d] = s
                thread[d] = t
    return parent, thread


@njit(cache=True)
def witness_members(dst, count, n, comp, ncomp, cyclic, steppers, exits, skip, f, strong):
    """The states (sorted) of one witness set among the SCCs not in `skip`,
    the one holding the lowest state: a weak-failing SCC, or a strong
    witness found by `decide`'s pruning; empty when there is none."""
    always = np.full(ncomp, -1, np.int64)
    for u in range(count):
        always[comp[u]] &= f[u]
    active = np.zeros(count, np.bool_)
    for u in range(count):
        c = comp[u]
        if cyclic[c] and not skip[c] and (strong or always[c] & ~steppers[c] == 0):
            active[u] = True
    label = comp
    if strong:
        label = np.empty(count, np.int32)
        exits2 = np.empty(count, np.int64)
        dropped = True
        first = True
        while dropped:
            dropped = False
            if first:
                label[:] = comp
                exits2[:] = exits
                cyc2 = cyclic
                first = False
            else:
                ncomp2 = _tarjan(dst, count, n, active, label)
                cyc2 = np.empty(ncomp2, np.bool_)
                step2 = np.empty(ncomp2, np.int64)
                _cycles(dst, count, n, label, ncomp2, cyc2, step2, exits2)
            for u in range(count):
                if active[u] and (not cyc2[label[u]] or f[u] & exits2[u]):
                    active[u] = False
                    dropped = True
    size = 0
    c = -1
    for u in range(count):
        if active[u]:
            if c < 0:
                c = label[u]
            if label[u] == c:
                size += 1
    members = np.empty(size, np.int64)
    k = 0
    for u in range(count):
        if active[u] and label[u] == c:
            members[k] = u
            k += 1
    return members


@njit(cache=True)
def _bfs(dst, n, start, kind, x, f, nonempty, seen, via, queue):
    """A shortest path from `start` to a goal in the graph `dst` (-1: no
    edge), as rows (source, thread, destination); goals by `kind`: 0 a
    state with a step of thread x, 1 a state where x is not fair, 2 the
    state x. At least one edge if `nonempty`. `seen`, `via`, `queue`:
    scratch arrays of the states' size (seen all False on entry and exit)."""
    if not nonempty and _goal(dst, n, start, kind, x, f):
        return np.empty((0, 3), np.int64)
    head = 0
    tail = 0
    queue[tail] = start
    tail += 1
    if not nonempty:
        seen[start] = True
    end = -1
    while head < tail and end < 0:
        u = queue[head]
        head += 1
        for t in range(n):
            d = dst[u * n + t]
            if d < 0 or seen[d]:
                continue
            seen[d] = True
            via[d] = u * n + t
            queue[tail] = d
            tail += 1
            if _goal(dst, n, d, kind, x, f):
                end = d
                break
    for i in range(tail):
        seen[queue[i]] = False
    seen[start] = False
    if end < 0:
        raise AssertionError("the witness set is not strongly connected")
    length = 0
    v = end
    while True:
        length += 1
        v = via[v] // n
        if v == start:
            break
    path = np.empty((length, 3), np.int64)
    v = end
    for i in range(length - 1, -1, -1):
        u = via[v] // n
        path[i, 0] = u
        path[i, 1] = via[v] % n
        path[i, 2] = v
        v = u
    return path


@njit(cache=True)
def _goal(dst, n, s, kind, x, f):
    if kind == 0:
        return dst[s * n + x] >= 0
    if kind == 1:
        return not (f[s] >> x) & 1
    return s == x


@njit(cache=True)
def _append(walk, length, path):
    """`walk` with `path` written from row `length` on (grown if needed)."""
    if length + path.shape[0] > walk.shape[0]:
        bigger = np.empty((2 * (length + path.shape[0]), 3), np.int64)
        bigger[:length] = walk[:length]
        walk = bigger
    walk[length : length + path.shape[0]] = path
    return walk


@njit(cache=True)
def _with_edge(path, s, t, d):
    out = np.empty((path.shape[0] + 1, 3), np.int64)
    out[: path.shape[0]] = path
    out[-1, 0] = s
    out[-1, 1] = t
    out[-1, 2] = d
    return out


@njit(cache=True)
def loop_walk(dst, count, n, members, f, enabled, strong):
    """A closed walk from members[0] inside the witness set `members` (sorted
    states) that is a witness itself (progress.core.witness._loop, compiled):
    every thread stepping inside steps on it; under weak fairness it visits,
    for each other enabled thread somewhere not fair in the set, a state
    where that thread is not fair; under strong fairness it takes every fair
    step from every state it visits. Edges as rows (source, thread,
    destination) of states of `dst`."""
    size = members.shape[0]
    local = np.full(count, -1, np.int64)
    for i in range(size):
        local[members[i]] = i
    sub = np.full(size * n, -1, np.int64)  # the edges inside, renumbered
    subf = np.empty(size, np.int64)
    steppers = 0
    unfair_somewhere = 0
    for i in range(size):
        s = members[i]
        subf[i] = f[s]
        unfair_somewhere |= ~f[s]
        for t in range(n):
            d = dst[s * n + t]
            if d >= 0 and local[d] >= 0:
                sub[i * n + t] = local[d]
                steppers |= 1 << t
    goals = 0  # weak: threads still to be seen not fair at a visited state
    if not strong:
        goals = enabled[members[0]] & ~steppers & unfair_somewhere
    seen = np.zeros(size, np.bool_)
    via = np.empty(size, np.int64)
    queue = np.empty(size, np.int64)
    visited = np.zeros(size, np.bool_)
    taken = np.zeros(size * n, np.bool_)
    pending = np.empty(size * n if strong else 1, np.int64)  # strong: fair steps from visited states
    npending = 0
    walk = np.empty((16, 3), np.int64)
    length = 0
    # _bfs's goal kinds, state 0 and False as run-time values: numba compiles a
    # function once per constant argument it is called with (Literal types),
    # which made 8 compiles of _bfs (and of _goal) out of one
    STEPS, UNFAIR, STATE, first, no = np.int64(0), np.int64(1), np.int64(2), np.int64(0), np.bool_(False)
    current = np.int64(0)
    stepped = 0
    fresh = np.zeros(1, np.int64)
    while True:
        for v in fresh:
            if visited[v]:
                continue
            visited[v] = True
            goals &= subf[v]
            if strong:
                for t in range(n):
                    if (subf[v] >> t) & 1 and sub[v * n + t] >= 0:
                        pending[npending] = v * n + t
                        npending += 1
        remaining = steppers & ~stepped
        untaken = -1
        if strong and not remaining:
            while npending > 0 and untaken < 0:
                npending -= 1
                if not taken[pending[npending]]:
                    untaken = pending[npending]
        if remaining:
            thread = 0
            while not (remaining >> thread) & 1:
                thread += 1
            path = _bfs(sub, n, current, STEPS, thread, subf, no, seen, via, queue)
            end = path[-1, 2] if path.shape[0] else current
            path = _with_edge(path, end, thread, sub[end * n + thread])
        elif goals:
            goal = 0
            while not (goals >> goal) & 1:
                goal += 1
            path = _bfs(sub, n, current, UNFAIR, goal, subf, no, seen, via, queue)
        elif untaken >= 0:
            s = untaken // n
            path = _bfs(sub, n, current, STATE, s, subf, no, seen, via, queue)
            path = _with_edge(path, s, untaken % n, sub[untaken])
        elif length > 0 and current == 0:
            out = walk[:length].copy()
            for i in range(length):
                out[i, 0] = members[out[i, 0]]
                out[i, 2] = members[out[i, 2]]
            return out
        else:
            path = _bfs(sub, n, current, STATE, first, subf, length == 0, seen, via, queue)
        walk = _append(walk, length, path)
        for i in range(path.shape[0]):
            stepped |= 1 << path[i, 1]
            taken[path[i, 0] * n + path[i, 1]] = True
        length += path.shape[0]
        fresh = path[:, 2].copy()
        current = walk[length - 1, 2]
