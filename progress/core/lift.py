"""Deciding a symmetric quotient's SCC on its lift (docs/semantics.md section 9).

In a quotient by permutations of identical threads, an edge inside an SCC
may carry a permutation, so "thread t steps inside" cannot be read off the
quotient. The lift of a quotient SCC from one of its states is the set of
original states reachable from it through states whose representative lies
in that SCC: it is exactly one original SCC (section 9, lemma 2), and every
other original SCC over the quotient SCC is a permutation of it, with the
same verdict. The lift is small in practice (spin loops), so it is built
here in Python and decided by progress.core.check.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from progress.core.check import cycles, strong_witness, weak_witness
from progress.core.lts import LTS
from progress.core.packed import Layout
from progress.core.symmetry import canonical
from progress.errors import Inconclusive
from progress.models.base import ProgressModel

MAX_LIFT = 1 << 22
"""States of one lift beyond which the check is inconclusive (without a state bound)."""


class Lifted(NamedTuple):
    """The lift of one quotient SCC from its quotient state `state`: `lts`
    (its last state stands for every state outside), F per state, the
    concrete (key, memory word) of each other state, and the states of a
    weak and of a strong witness in it (None: there is none)."""

    state: int
    lts: LTS
    fair: list[int]
    order: list[tuple[int, Any]]
    weak: list[int] | None
    strong: list[int] | None


def lift_fails(shape: Layout, run, model: ProgressModel, max_states: int | None) -> tuple[bool, bool]:
    """(weak_fail, strong_fail) over the lifts of the cyclic SCCs of `run`
    (a progress.core.scale.Explored) that have a non-exact edge inside."""
    weak = False
    for lifted in lifts(shape, run, model, max_states):
        if lifted.strong is not None:
            return True, True
        weak = weak or lifted.weak is not None
    return weak, False


def lifts(shape: Layout, run, model: ProgressModel, max_states: int | None) -> Iterator[Lifted]:
    """The lift of each cyclic SCC of `run` with a non-exact edge inside,
    from its lowest state, in the order of those states."""
    comp, _, cyclic, _, _, inexact = run.sccs
    targets = np.flatnonzero(cyclic & inexact)
    members = np.flatnonzero(np.isin(comp, targets))
    owners = comp[members].tolist()
    keys = [shape.join(row) for row in run.keys[members].tolist()]
    where = dict(zip(zip(keys, run.mems[members].tolist()), owners))
    first: dict[int, int] = {}
    for state, owner in zip(members.tolist(), owners):
        first.setdefault(owner, state)
    cap = MAX_LIFT if max_states is None else max_states
    for state, owner in sorted((state, owner) for owner, state in first.items()):
        start = (shape.join(run.keys[state].tolist()), int(run.mems[state]))
        lts, fair, order = _lift(shape, run.product, model, where, owner, start, cap)
        found = cycles(lts)
        yield Lifted(state, lts, fair, order, weak_witness(lts, fair, found), strong_witness(lts, fair, found))


def _lift(shape: Layout, product, model: ProgressModel, where: dict, owner: int, start: tuple[int, int], cap: int):
    """The lift from `start` as an LTS whose last state stands for every
    state outside it, with F per state, and its states but the last."""
    n = len(shape.machine.lengths)

    def inside(state: tuple[int, int]) -> bool:
        return where.get(canonical(shape, product.groups, *state)) == owner

    lts, order = explore_within(shape, start, product.step, inside, cap, "a lifted component")
    fair = [model.fair(e, product.value(m), n) for e, (_, m) in zip(lts.enabled, order)] + [0]
    return lts, fair, order


def explore_within(shape: Layout, start: tuple, step, inside, cap: int, what: str) -> tuple[LTS, list]:
    """The concrete states (key, memory) reachable from `start` through
    states that `inside` keeps, as an LTS whose last state stands for every
    step out of them, and the states but the last. `step(memory, t)` is the
    memory after thread t's step. Past `cap` states: Inconclusive naming `what`."""
    lengths = shape.machine.lengths
    n = len(lengths)
    index = {start: 0}
    order = [start]
    succ: list[list[tuple[int, int]]] = []
    for key, mem in order:  # grows while iterating
        edges = []
        for t in range(n):
            if shape.pc(key, t) >= lengths[t]:
                continue
            state = (shape.step(key, t), step(mem, t))
            if not inside(state):
                edges.append((t, -1))
                continue
            if state not in index:
                if len(order) >= cap:
                    raise Inconclusive(f"stopped at the state bound of {cap} ({what})", len(order))
                index[state] = len(order)
                order.append(state)
            edges.append((t, index[state]))
        succ.append(edges)
    outside = len(order)
    succ = [[(t, outside if d < 0 else d) for t, d in edges] for edges in succ] + [[]]
    enabled = [shape.enabled(key) for key, _ in order] + [0]
    size = outside + 1
    return LTS(succ, list(range(size)), [None] * size, enabled, [None] * size), order
