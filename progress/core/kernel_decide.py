"""Verdicts on the compiled kernel explorer's graph (issue 29): the product
with a model's memory and the fair-cycle tests on integer arrays, with numba.

The same decisions as `progress.core.analyze._decide_all` over
`progress.core.check` (docs/semantics.md sections 4 and 8): a deadlock fails
every query; otherwise weak fairness fails when an SCC with a cycle has
every unit that is in F in all its states stepping inside it, strong
fairness when pruning the states with a fair step out of their SCC leaves a
cyclic SCC with none. F is the model's `fair` over the workgroups enabled and
the memory, lifted to the enabled units of those workgroups; it is called
once per distinct (enabled workgroups, memory) pair of the product.

Memories: NONE (the product is the graph itself) and STARTED (a word, one
bit per workgroup: at most 64). `decides(query)` says whether a query is
decided here (a plain model, or a scoped one whose inner scopes are fair);
`progress.core.analyze` decides the others on the Python LTS.

Lassos are the Python checker's (`progress.core.witness`), built over views
of these arrays that make a state's successors, parent, enabled units and F
on demand: concrete kernel states, in source lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from progress.core.check import STRONG, WEAK
from progress.core.kernel_jit import Graph
from progress.core.lts import LTS, Budget, ProgramLTS
from progress.core.scoped import ScopedModel
from progress.core.system import System
from progress.core.witness import Plans, build_lasso, deadlock_lasso
from progress.errors import Inconclusive
from progress.jit import njit
from progress.models.base import NONE, STARTED, ProgressModel

MAX_WORKGROUPS = 64
"""STARTED is one int64 word, a bit per workgroup."""


def model_of(query_model: Any) -> ProgressModel | None:
    """The plain model a query is decided with here, or None (decided in Python)."""
    model = query_model
    if isinstance(model, ScopedModel):
        if not model.plain:
            return None
        model = model.workgroup
    if not isinstance(model, ProgressModel) or model.memory not in (NONE, STARTED):
        return None
    return model


# --- compiled parts ---------------------------------------------------------------


@njit(cache=True)
def _thread_masks(estart, eunit, group, count):
    """The workgroups enabled in each program state, as a bit mask."""
    out = np.zeros(count, np.int64)
    for s in range(count):
        m = np.int64(0)
        for e in range(estart[s], estart[s + 1]):
            m |= np.int64(1) << np.int64(group[eunit[e]])
        out[s] = m
    return out


@njit(cache=True)
def _pair_slot(table, origin, memory, o, m):
    mask = table.shape[0] - 1
    h = (np.uint64(o) * np.uint64(0x9E3779B97F4A7C15)) ^ (np.uint64(m) * np.uint64(0x100000001B3))
    h ^= h >> np.uint64(31)
    slot = np.int64(h >> np.uint64(1)) & mask
    while True:
        p = table[slot]
        if p == -1 or (origin[p] == o and memory[p] == m):
            return slot, p
        slot = (slot + 1) & mask


@njit(cache=True)
def _started_memory(estart, eunit, edst, group, count):
    """STARTED as a function of the program state, when it is one: the
    memory word each state is reached with, states in breadth-first order
    (each found from an earlier one), or an empty array when some state is
    reached with two words (the product is then built)."""
    memory = np.full(count, -1, np.int64)
    memory[0] = 0
    for s in range(count):
        m = memory[s]
        for e in range(estart[s], estart[s + 1]):
            d = edst[e]
            dm = m | (np.int64(1) << np.int64(group[eunit[e]]))
            if memory[d] == -1:
                memory[d] = dm
            elif memory[d] != dm:
                return np.empty(0, np.int64)
    return memory


@njit(cache=True)
def _started_product(estart, eunit, edst, group, count, max_states):
    """The product with STARTED: (origin, memory word) pairs breadth first from
    (0, 0); a step of unit u sets its workgroup's bit. A product state's
    edges are its origin's, in order (so their units are the graph's, not
    stored). Returns (origin, memory, pstart, pdst, parent, size), size -1
    past `max_states`. The hash table is int32 (at most half full): product
    states are numbered in int32 (pdst)."""
    cap = 1024
    while cap < count:
        cap *= 2  # a power of two: the table's probes are masked
    origin = np.empty(cap, np.int32)
    memory = np.empty(cap, np.int64)
    parent = np.empty(cap, np.int32)
    pstart = np.empty(cap + 1, np.int64)
    ecap = max(1024, estart[count])
    pdst = np.empty(ecap, np.int32)
    table = np.full(2 * cap, -1, np.int32)
    origin[0] = 0
    memory[0] = 0
    parent[0] = -1
    slot, _ = _pair_slot(table, origin, memory, 0, 0)
    table[slot] = 0
    size = 1
    nedges = 0
    p = 0
    while p < size:
        pstart[p] = nedges
        o = origin[p]
        m = memory[p]
        for e in range(estart[o], estart[o + 1]):
            d = edst[e]
            dm = m | (np.int64(1) << np.int64(group[eunit[e]]))
            slot, q = _pair_slot(table, origin, memory, d, dm)
            if q == -1:
                if size >= max_states:
                    return origin, memory, pstart, pdst, parent, -1
                if size >= cap:
                    cap *= 2
                    origin = _grown32(origin, cap)
                    memory = _grown64(memory, cap)
                    parent = _grown32(parent, cap)
                    pstart = _grown64(pstart, cap + 1)
                    table = np.full(2 * cap, -1, np.int32)
                    for i in range(size):
                        s2, _ = _pair_slot(table, origin, memory, origin[i], memory[i])
                        table[s2] = i
                    slot, _ = _pair_slot(table, origin, memory, d, dm)
                q = size
                origin[q] = d
                memory[q] = dm
                parent[q] = p
                table[slot] = q
                size += 1
            if nedges >= pdst.shape[0]:
                pdst = _grown32(pdst, pdst.shape[0] + pdst.shape[0] // 2 + 1024)  # RLIMIT_AS counts capacity
            pdst[nedges] = q
            nedges += 1
        p += 1
    pstart[size] = nedges
    return origin[:size], memory[:size], pstart[: size + 1], pdst[:nedges], parent[:size], size


@njit(cache=True)
def _grown32(a, n):
    b = np.empty(n, np.int32)
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _grown64(a, n):
    b = np.empty(n, np.int64)
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _tarjan(pstart, pdst, n, alive, comp):
    """Strongly connected components of the states with `alive` set, edges
    between them only; comp[v] its component (-1 if not alive). Returns their number."""
    index = np.full(n, -1, np.int32)
    low = np.zeros(n, np.int32)
    onstack = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int32)
    cs_node = np.empty(n, np.int32)
    cs_edge = np.empty(n, np.int64)
    sp = 0
    idx = 0
    ncomp = 0
    for v in range(n):
        comp[v] = -1
    for root in range(n):
        if not alive[root] or index[root] >= 0:
            continue
        cs_node[0] = root
        cs_edge[0] = pstart[root]
        csp = 1
        index[root] = idx
        low[root] = idx
        idx += 1
        stack[sp] = root
        sp += 1
        onstack[root] = True
        while csp > 0:
            v = cs_node[csp - 1]
            e = cs_edge[csp - 1]
            if e < pstart[v + 1]:
                cs_edge[csp - 1] = e + 1
                w = pdst[e]
                if not alive[w]:
                    continue
                if index[w] < 0:
                    index[w] = idx
                    low[w] = idx
                    idx += 1
                    stack[sp] = w
                    sp += 1
                    onstack[w] = True
                    cs_node[csp] = w
                    cs_edge[csp] = pstart[w]
                    csp += 1
                elif onstack[w] and index[w] < low[v]:
                    low[v] = index[w]
            else:
                csp -= 1
                if csp > 0:
                    u = cs_node[csp - 1]
                    if low[v] < low[u]:
                        low[u] = low[v]
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
def _by_component(comp, n, ncomp):
    """States grouped by component (ascending within each), components in
    order of their smallest state: (order, start, first)."""
    size = np.zeros(ncomp + 1, np.int64)
    first = np.full(ncomp, n, np.int64)
    for v in range(n):
        c = comp[v]
        if c >= 0:
            size[c + 1] += 1
            if v < first[c]:
                first[c] = v
    start = np.cumsum(size)
    fill = start.copy()
    order = np.empty(start[ncomp], np.int32)
    for v in range(n):
        c = comp[v]
        if c >= 0:
            order[fill[c]] = v
            fill[c] += 1
    return order, start, first


@njit(cache=True)
def _cyclic(pstart, pdst, comp, order, start, c):
    if start[c + 1] - start[c] > 1:
        return True
    v = order[start[c]]
    for e in range(pstart[v], pstart[v + 1]):
        if pdst[e] == v:
            return True
    return False


AGAIN, FOUND, NONE_FOUND = 0, 1, 2
"""What one round of `_judge` ends with."""


@njit(cache=True)
def _components(pstart, pdst, n, alive, comp):
    """Tarjan's SCCs of the alive states (into `comp`), grouped: (ncomp,
    order, start, ranked), `ranked` the components in order of their
    smallest state."""
    ncomp = _tarjan(pstart, pdst, n, alive, comp)
    order, start, first = _by_component(comp, n, ncomp)
    return ncomp, order, start, np.argsort(first)


@njit(cache=True)
def _judge(pstart, pdst, origin, estart, eunit, ugroup, kinds, ftable, strong, alive, comp, ncomp, order, start,
           ranked, count, stepper, seen, touched):  # fmt: skip
    """The weak test, or one pass of strong pruning, over SCCs already
    computed (`_components` of the alive states). The unit of product edge
    e of state v is its origin's program edge's: eunit[estart[origin[v]] +
    e - pstart[v]]; F of v over workgroups is ftable[kinds[v]]. (FOUND,
    witness), (NONE_FOUND, empty), or (AGAIN, empty) when strong pruning
    removed states."""
    removed = False
    for r in range(ncomp):
        c = ranked[r]
        if not _cyclic(pstart, pdst, comp, order, start, c):
            if strong:
                for i in range(start[c], start[c + 1]):
                    alive[order[i]] = False
            continue
        if not strong:
            nt = 0
            for i in range(start[c], start[c + 1]):
                v = order[i]
                shift = estart[origin[v]] - pstart[v]
                f = ftable[kinds[v]]
                for e in range(pstart[v], pstart[v + 1]):
                    u = eunit[shift + e]
                    if not seen[u]:
                        seen[u] = True
                        touched[nt] = u
                        nt += 1
                    if (f >> np.int64(ugroup[u])) & 1:
                        count[u] += 1
                    if comp[pdst[e]] == c:
                        stepper[u] = True
            ok = True
            size = start[c + 1] - start[c]
            for k in range(nt):
                u = touched[k]
                if count[u] == size and not stepper[u]:
                    ok = False
                count[u] = 0
                stepper[u] = False
                seen[u] = False
            if ok:
                return FOUND, order[start[c] : start[c + 1]].copy()
        else:
            kept = 0
            for i in range(start[c], start[c + 1]):
                v = order[i]
                shift = estart[origin[v]] - pstart[v]
                f = ftable[kinds[v]]
                leaves = False
                for e in range(pstart[v], pstart[v + 1]):
                    if comp[pdst[e]] != c and (f >> np.int64(ugroup[eunit[shift + e]])) & 1:
                        leaves = True
                        break
                if leaves:
                    alive[v] = False
                    removed = True
                else:
                    kept += 1
            if kept == start[c + 1] - start[c]:
                return FOUND, order[start[c] : start[c + 1]].copy()
    if strong and removed:
        return AGAIN, np.empty(0, np.int32)
    return NONE_FOUND, np.empty(0, np.int32)


@dataclass
class Components:
    """The SCCs of a whole product (`_components` with every state alive),
    computed once and shared by every query's weak test and first round of
    strong pruning."""

    comp: np.ndarray
    ncomp: int
    order: np.ndarray
    start: np.ndarray
    ranked: np.ndarray

    def bytes(self) -> int:
        return sum(a.nbytes for a in (self.comp, self.order, self.start, self.ranked))


def components(prod: Product) -> Components:
    n = prod.size
    comp = np.empty(n, np.int32)
    ncomp, order, start, ranked = _components(prod.pstart, prod.pdst, n, np.ones(n, np.bool_), comp)
    return Components(comp, int(ncomp), order, start, ranked)


def decide(prod: Product, sccs: Components, ugroup, kinds, ftable, units, strong, deadline: float | None = None):
    """A witness for weak (strong False) or strong fairness: its states as
    an array (ascending), empty when every fair run terminates. F of unit u
    in state v: u steps from v and its workgroup is in ftable[kinds[v]].
    The first round uses `sccs` (the whole product's); past the monotonic
    `deadline` (looked at between rounds of strong pruning) raises
    Inconclusive."""
    n = prod.size
    graph = prod.graph
    alive = np.ones(n, np.bool_)
    count = np.zeros(units, np.int64)
    stepper = np.zeros(units, np.bool_)
    seen = np.zeros(units, np.bool_)
    touched = np.empty(units, np.int64)
    comp, ncomp, order, start, ranked = sccs.comp, sccs.ncomp, sccs.order, sccs.start, sccs.ranked
    own = None
    while True:
        code, members = _judge(
            prod.pstart, prod.pdst, prod.origin, graph.estart, graph.eunit, ugroup, kinds, ftable, strong, alive,
            comp, ncomp, order, start, ranked, count, stepper, seen, touched,
        )  # fmt: skip
        if code != AGAIN:
            return members
        _in_time(deadline, n, "pruning strong witnesses")
        if own is None:
            own = np.empty(n, np.int32)  # the shared components stay as they are
        comp = own
        ncomp, order, start, ranked = _components(prod.pstart, prod.pdst, n, alive, comp)


DECIDING_HINT = " (the exploration finished: try a longer --time-limit, a smaller launch, or --reduce if not given)"


def _in_time(deadline: float | None, states: int, phase: str) -> None:
    """Raise Inconclusive past the monotonic `deadline` (the time limit), naming the phase."""
    if deadline is not None and time.monotonic() > deadline:
        raise Inconclusive(f"stopped at the time limit while {phase}{DECIDING_HINT}", states)


@njit(cache=True)
def _pair_kinds(enabled, memory, origin, n):
    """Each product state's (enabled workgroups, memory) pair numbered:
    (kinds per state, the distinct enabled masks, the distinct memories);
    `memory` empty for the product with NONE (every memory 0)."""
    cap = 1024
    keys_e = np.empty(cap, np.int64)
    keys_m = np.empty(cap, np.int64)
    table = np.full(2 * cap, -1, np.int64)
    kinds = np.empty(n, np.int32)
    size = 0
    for p in range(n):
        e = enabled[origin[p]]
        m = memory[p] if memory.shape[0] else np.int64(0)
        slot, k = _pair_slot(table, keys_e, keys_m, e, m)
        if k == -1:
            if size >= cap:
                cap *= 2
                keys_e = _grown64(keys_e, cap)
                keys_m = _grown64(keys_m, cap)
                table = np.full(2 * cap, -1, np.int64)
                for i in range(size):
                    s2, _ = _pair_slot(table, keys_e, keys_m, keys_e[i], keys_m[i])
                    table[s2] = i
                slot, _ = _pair_slot(table, keys_e, keys_m, e, m)
            k = size
            keys_e[k] = e
            keys_m[k] = m
            table[slot] = k
            size += 1
        kinds[p] = k
    return kinds, keys_e[:size], keys_m[:size]


# --- the Python side --------------------------------------------------------------


@dataclass
class Product:
    """A product of the graph with one memory: `origin[p]` the program state,
    `memory[p]` its word, edges pstart/pdst (a state's edges are its
    origin's, in order: `unit(p, e)`), `parent[p]` the state that found p by
    the edge whose unit is the graph's step (-1 for 0). `own` says whether
    its arrays are its own (a STARTED product that is not the graph)."""

    graph: Graph
    started: bool
    origin: np.ndarray
    memory: np.ndarray
    pstart: np.ndarray
    pdst: np.ndarray
    parent: np.ndarray
    own: bool = False

    @property
    def size(self) -> int:
        return int(self.origin.shape[0])

    @property
    def edges(self) -> int:
        return int(self.pstart[self.size])

    def unit(self, p: int, e: int) -> int:
        """The unit of product edge e (of state p)."""
        graph = self.graph
        return int(graph.eunit[int(graph.estart[int(self.origin[p])]) + e - int(self.pstart[p])])

    def bytes(self) -> int:
        """What the product holds beyond the graph."""
        arrays = [self.memory] if self.started else []
        if self.own:
            arrays += [self.origin, self.pstart, self.pdst, self.parent]
        return sum(a.nbytes for a in arrays)


def product(graph: Graph, started: bool, budget: Budget, group: np.ndarray) -> Product:
    """The product of `graph` with NONE (`started` False) or STARTED: the
    graph itself when STARTED is a function of the program state (always for
    section 14's quotient, whose states carry their STARTED mask: `Graph.started`)."""
    n = graph.count
    same = (np.arange(n, dtype=np.int32), graph.estart[: n + 1], graph.edst, graph.parent_src[:n])
    if not started:
        return Product(graph, False, same[0], np.zeros(0, np.int64), *same[1:])
    if graph.started_words:
        memory = graph.started()
    else:
        memory = _started_memory(graph.estart, graph.eunit, graph.edst, group, n)
    if memory.shape[0]:
        return Product(graph, True, same[0], memory, *same[1:])
    limit = budget.max_states if budget.max_states is not None else np.iinfo(np.int64).max
    origin, memory, pstart, pdst, parent, size = _started_product(
        graph.estart, graph.eunit, graph.edst, group, n, np.int64(min(limit, np.iinfo(np.int32).max))
    )
    if size < 0:
        if limit > np.iinfo(np.int32).max:
            raise Inconclusive(f"stopped: the product with STARTED passes 2^31 states{budget.hint}", size)
        which = "the default state bound" if budget.default else "the state bound"
        raise Inconclusive(f"stopped at {which} of {budget.max_states}{budget.hint}", limit + 1)
    budget.check_memory(size)
    return Product(graph, True, origin, memory, pstart, pdst, parent, own=True)


@dataclass
class Kinds:
    """The distinct (enabled workgroups, memory) pairs of a product and each
    state's pair: a model's F is computed once per pair (`fair_table`)."""

    kinds: np.ndarray
    enabled: np.ndarray
    memory: np.ndarray


def pair_kinds(prod: Product, tmasks: np.ndarray) -> Kinds:
    kinds, enabled, memories = _pair_kinds(tmasks, prod.memory, prod.origin, prod.size)
    return Kinds(kinds, enabled, memories)


def fair_table(kinds: Kinds, model: ProgressModel, n: int, started: bool) -> np.ndarray:
    """F over workgroups of each pair of `kinds` under `model`."""
    full = (1 << 64) - 1
    table = np.empty(max(1, kinds.enabled.shape[0]), np.int64)
    for k in range(kinds.enabled.shape[0]):
        memory = int(kinds.memory[k]) & full if started else None
        value = model.fair(int(kinds.enabled[k]) & full, memory, n)
        table[k] = np.int64(value - (1 << 64) if value >= 1 << 63 else value)
    return table


class _View(Sequence):
    """A read-only sequence computed per index (what the lasso builder reads)."""

    def __init__(self, length: int, get: Callable[[int], Any]):
        self._length, self._get = length, get

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._get(i) for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self._get(int(index))


def _units_of(prod: Product, p: int) -> list[tuple[int, int]]:
    """(unit, destination) of each edge of product state p."""
    graph = prod.graph
    e0, e1 = int(prod.pstart[p]), int(prod.pstart[p + 1])
    shift = int(graph.estart[int(prod.origin[p])]) - e0
    return [(int(graph.eunit[shift + e]), int(prod.pdst[e])) for e in range(e0, e1)]


def lts_view(prod: Product) -> LTS:
    """The product as an `LTS` whose lists are views of its arrays."""
    parent, origin = prod.parent, prod.origin

    def succ(p: int) -> list[tuple[int, int]]:
        return _units_of(prod, p)

    def enabled(p: int) -> int:
        mask = 0
        for u, _ in _units_of(prod, p):
            mask |= 1 << u
        return mask

    def parent_of(p: int) -> tuple[int, int] | None:
        if p == 0:
            return None
        src = int(parent[p])
        unit = next(u for u, d in _units_of(prod, src) if d == p)
        return (src, unit)

    memory = (lambda p: int(prod.memory[p]) & ((1 << 64) - 1)) if prod.started else (lambda p: None)
    n = prod.size
    succ_v: Any = _View(n, succ)
    origin_v: Any = _View(n, lambda p: int(origin[p]))
    memory_v: Any = _View(n, memory)
    enabled_v: Any = _View(n, enabled)
    parent_v: Any = _View(n, parent_of)
    return LTS(succ_v, origin_v, memory_v, enabled_v, parent_v)


def fair_view(prod: Product, kinds: np.ndarray, ftable: np.ndarray, ugroup: np.ndarray) -> Sequence[int]:
    """F lifted to units, per product state, on demand."""

    def fair(p: int) -> int:
        mask = 0
        f = int(ftable[int(kinds[p])])
        for u, _ in _units_of(prod, p):
            if f >> int(ugroup[u]) & 1:
                mask |= 1 << u
        return mask

    return _View(prod.size, fair)


def program_view(system: System, graph: Graph) -> ProgramLTS:
    """The graph as a `ProgramLTS` whose states are made on demand (for lassos)."""
    return ProgramLTS(system, _View(graph.count, graph.state), None, graph.deadlocks)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Decided:
    terminates: bool
    states: int
    transitions: int
    witness: Any = None


def decide_queries(
    system: System, graph: Graph, models: Sequence[tuple[ProgressModel, str]], budget: Budget, witnesses: bool
) -> list[Decided]:
    """A verdict per (model, fairness) on the compiled graph; fairness 'weak' or 'strong'.
    One product per memory (NONE: the graph; STARTED: the graph too when
    the memory is a function of the program state), one SCC pass per
    product shared by all queries."""
    group = np.array(system.groups, np.int64)
    n = int(group[-1]) + 1 if len(group) else 0
    if n > MAX_WORKGROUPS:
        raise ValueError(f"{n} workgroups: the compiled checker takes at most {MAX_WORKGROUPS}")
    tmasks = _thread_masks(graph.estart, graph.eunit, group, graph.count)
    products: dict[bool, Product] = {}
    views: dict[bool, LTS] = {}
    kinds_of: dict[bool, Kinds] = {}
    sccs_of: dict[bool, Components] = {}
    fairs: dict[str, np.ndarray] = {}
    answers: dict[tuple[str, str], np.ndarray] = {}
    chosen_of: dict[tuple[str, str], list[int]] = {}  # kept alive: build_lasso caches plans by id(members)
    program = program_view(system, graph)
    plans: Plans = {}
    out = []
    for model, fairness in models:
        started = model.memory is STARTED
        _in_time(budget.deadline, graph.count, "building the product")
        if started not in products:
            products[started] = product(graph, started, budget, group)
            views[started] = lts_view(products[started])
            kinds_of[started] = pair_kinds(products[started], tmasks)
        prod = products[started]
        kinds = kinds_of[started]
        if model.name not in fairs:
            fairs[model.name] = fair_table(kinds, model, n, started)
        ftable = fairs[model.name]
        lasso = None
        if graph.deadlocks:
            if witnesses:
                fair = fair_view(prod, kinds.kinds, ftable, group)
                lasso = deadlock_lasso(program, views[started], fair, fairness, plans)  # type: ignore[arg-type]
            out.append(Decided(False, prod.size, prod.edges, lasso))
            continue
        key = (model.name, fairness)
        if key not in answers:
            if fairness == STRONG and answers.get((model.name, WEAK), np.ones(1)).shape[0] == 0:
                answers[key] = np.empty(0, np.int32)  # a weak pass is a strong pass
            else:
                _in_time(budget.deadline, prod.size, "looking for witnesses")
                if started not in sccs_of:
                    sccs_of[started] = components(prod)
                answers[key] = decide(
                    prod, sccs_of[started], group, kinds.kinds, ftable, len(group), fairness == STRONG, budget.deadline
                )
        members = answers[key]
        if members.shape[0] and witnesses:
            _in_time(budget.deadline, prod.size, "building lassos")
            fair = fair_view(prod, kinds.kinds, ftable, group)
            chosen = chosen_of.setdefault(key, [int(v) for v in members])
            lasso = build_lasso(program, views[started], fair, chosen, fairness, plans)  # type: ignore[arg-type]
        out.append(Decided(members.shape[0] == 0, prod.size, prod.edges, lasso))
    return out


def python_lts(system: System, graph: Graph) -> ProgramLTS:
    """The graph as the Python checker's `ProgramLTS` (for the queries decided there)."""
    succ = [
        [(int(graph.eunit[e]), int(graph.edst[e])) for e in range(graph.estart[s], graph.estart[s + 1])]
        for s in range(graph.count)
    ]
    enabled = [sum(1 << u for u, _ in edges) for edges in succ]
    parent: list[tuple[int, int] | None] = [None] + [
        (int(graph.parent_src[s]), int(graph.parent_unit[s])) for s in range(1, graph.count)
    ]
    lts = LTS(succ, list(range(graph.count)), [None] * graph.count, enabled, parent)
    return ProgramLTS(system, [graph.state(s) for s in range(graph.count)], lts, graph.deadlocks)
