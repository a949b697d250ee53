"""A naive checker of scoped models: the oracle for tests/test_scoped_models.py.

Written straight from docs/semantics.md section 10, sharing nothing with
progress.core (no products, SCC algorithms, extended masks or model
objects): F per level comes from tests/brute.py's table of section 3 with
Python sets, fair groups are sets of units, and witnesses are found by trying
every subset of the product's states.

A system here is explicit: `succ[state]` maps each enabled unit to its
successor; a state without successors is finished.
"""

from __future__ import annotations

from itertools import combinations

from tests.brute import MODELS


class TooBig(Exception):
    """The product has more states than the caller allowed."""


def _level_fair(model: str, enabled: set[int], started: frozenset[int]) -> set[int]:
    remembers, fair = MODELS[model]
    return fair(sorted(enabled), sorted(started) if remembers else [])


def fair_groups(models, enabled_units, started, lanes, subgroups_of):
    """The fair groups of a state as frozensets of units (a fair unit is a group
    of one), by section 10: workgroups by models[0], then subgroups of each fair
    workgroup by models[1], then lanes of each fair subgroup by models[2]; a
    group of one child passes its fairness to it. `started` holds, per level,
    the children (by local index) that took a step: a dict keyed by
    ('wg',), ('sg', w), ('lane', g)."""
    groups = set()
    wg_enabled = {w for w, gs in enumerate(subgroups_of) if any(u in enabled_units for g in gs for u in lanes[g])}
    for w in _level_fair(models[0], wg_enabled, started[("wg",)]):  # no group above: the model decides
        gs = subgroups_of[w]
        groups.add(frozenset(u for g in gs for u in lanes[g]))
        sg_enabled = {i for i, g in enumerate(gs) if any(u in enabled_units for u in lanes[g])}
        for i in _pick(models[1], sg_enabled, started[("sg", w)], len(gs)):
            g = gs[i]
            groups.add(frozenset(lanes[g]))
            lane_enabled = {j for j, u in enumerate(lanes[g]) if u in enabled_units}
            for j in _pick(models[2], lane_enabled, started[("lane", g)], len(lanes[g])):
                groups.add(frozenset([lanes[g][j]]))
    return groups


def _pick(model, enabled, started, children):
    if children == 1:
        return set(enabled)
    return _level_fair(model, enabled, started)


def product(succ, workgroup, subgroup, models, limit):
    """The reachable product with the 'started' sets of the levels whose model remembers them."""
    lanes = {}
    for u, g in enumerate(subgroup):
        lanes.setdefault(g, []).append(u)
    lanes = [lanes[g] for g in sorted(lanes)]
    subgroups_of = {}
    for g, units in enumerate(lanes):
        subgroups_of.setdefault(workgroup[units[0]], []).append(g)
    subgroups_of = [subgroups_of[w] for w in sorted(subgroups_of)]
    keys = [("wg",)] + [("sg", w) for w in range(len(subgroups_of))] + [("lane", g) for g in range(len(lanes))]

    def after(started, unit):
        new = dict(started)
        w, g = workgroup[unit], subgroup[unit]
        if MODELS[models[0]][0]:
            new[("wg",)] = started[("wg",)] | {w}
        if MODELS[models[1]][0]:
            new[("sg", w)] = started[("sg", w)] | {subgroups_of[w].index(g)}
        if MODELS[models[2]][0]:
            new[("lane", g)] = started[("lane", g)] | {lanes[g].index(unit)}
        return tuple(sorted((k, frozenset(v)) for k, v in new.items()))

    start = (0, tuple(sorted((k, frozenset()) for k in keys)))
    edges, todo = {}, [start]
    while todo:
        node = todo.pop()
        if node in edges:
            continue
        if len(edges) >= limit:
            raise TooBig
        state, started = node
        out = set()
        for unit, dst in succ[state].items():
            out.add((unit, (dst, after(dict(started), unit))))
        edges[node] = out
        todo += [d for _, d in out]
    return edges, lanes, subgroups_of


def witnesses(succ, workgroup, subgroup, models, limit=12):
    """(weak witness exists, strong witness exists) by every subset of the product."""
    edges, lanes, subgroups_of = product(succ, workgroup, subgroup, models, limit)
    nodes = list(edges)
    fair = {n: fair_groups(models, set(succ[n[0]]), dict(n[1]), lanes, subgroups_of) for n in nodes}
    weak = strong = False
    for size in range(1, len(nodes) + 1):
        for subset in combinations(nodes, size):
            inside = set(subset)
            inner = [(s, u, d) for s in subset for u, d in edges[s] if d in inside]
            if not inner or not _connected(inside, inner):
                continue
            stepping = {u for _, u, _ in inner}
            always = set.intersection(*(fair[s] for s in subset))
            if all(group & stepping for group in always):
                weak = True
            closed = all(d in inside for s in subset for u, d in edges[s] if frozenset([u]) in fair[s])
            somewhere = set().union(*(fair[s] for s in subset))
            if closed and all(group & stepping for group in somewhere if len(group) > 1):
                strong = True
    return weak, strong


def _connected(inside, inner):
    start = next(iter(inside))
    forward = _reach(start, inner, 0, 2)
    backward = _reach(start, inner, 2, 0)
    return forward == inside and backward == inside


def _reach(start, inner, a, b):
    seen, todo = {start}, [start]
    while todo:
        node = todo.pop()
        for edge in inner:
            if edge[a] == node and edge[b] not in seen:
                seen.add(edge[b])
                todo.append(edge[b])
    return seen
