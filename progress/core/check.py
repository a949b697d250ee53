"""Non-termination witnesses under weak and strong fairness (docs/semantics.md section 4).

`fair[s]` is the bitmask F of state s. Both checks return the states of a
witness set (sorted), or None when the test is guaranteed to terminate.
The SCC decomposition does not depend on F, so callers checking several
models on one LTS compute it once with `cycles(lts)` and pass it in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from progress.core.graph import sccs
from progress.core.lts import LTS

WEAK = "weak"
STRONG = "strong"


class Cycle(NamedTuple):
    """A strongly connected set of states with at least one edge inside.

    `steppers`: threads that step on some edge inside; `exits[i]`: threads
    whose step from `states[i]` leaves the set."""

    states: list[int]
    members: frozenset[int]
    steppers: int
    exits: list[int]


def cycles(lts: LTS, nodes: Iterable[int] | None = None) -> list[Cycle]:
    """The SCCs of `lts` (restricted to `nodes`) that contain a cycle."""
    succ = lts.succ
    found = []
    for component in sccs(succ, nodes):
        if len(component) == 1:
            node = component[0]
            for _, dst in succ[node]:
                if dst == node:
                    break
            else:
                continue  # a single state without a self-loop
        component.sort()
        members = frozenset(component)
        steppers = 0
        exits = []
        for s in component:
            leaving = 0
            for t, dst in succ[s]:
                if dst in members:
                    steppers |= 1 << t
                else:
                    leaving |= 1 << t
            exits.append(leaving)
        found.append(Cycle(component, members, steppers, exits))
    return found


def weak_witness(lts: LTS, fair: list[int], found: list[Cycle] | None = None) -> list[int] | None:
    """An SCC C with a cycle in which every thread that is in F in all states
    of C takes a step on some edge inside C."""
    best = None
    for cycle in cycles(lts) if found is None else found:
        always_fair = -1
        for s in cycle.states:
            always_fair &= fair[s]
        if always_fair & ~cycle.steppers == 0 and (best is None or cycle.states < best):
            best = cycle.states
    return best


def strong_witness(lts: LTS, fair: list[int], found: list[Cycle] | None = None) -> list[int] | None:
    """A set S with a cycle, strongly connected and closed under fair steps:
    for every s in S and t in F(s), t's step from s stays in S. Found by
    pruning: drop states with a fair step leaving their SCC, repeat."""
    best = None
    pending = list(cycles(lts) if found is None else found)
    while pending:
        cycle = pending.pop()
        kept = [s for s, leaving in zip(cycle.states, cycle.exits) if not fair[s] & leaving]
        if len(kept) == len(cycle.states):
            if best is None or cycle.states < best:
                best = cycle.states
        elif kept:
            pending += cycles(lts, kept)
    return best


def witness(lts: LTS, fair: list[int], fairness: str, found: list[Cycle] | None = None) -> list[int] | None:
    return weak_witness(lts, fair, found) if fairness == WEAK else strong_witness(lts, fair, found)


def scoped_weak_witness(
    lts: LTS, fair: list[int], lift: Callable[[int], int], found: list[Cycle] | None = None
) -> list[int] | None:
    """`weak_witness` with extended F (`progress.core.scoped`): every unit or
    group fair in all states of C steps on some edge inside C; `lift` gives
    the extended bits of a set of units."""
    best = None
    for cycle in cycles(lts) if found is None else found:
        always_fair = -1
        for s in cycle.states:
            always_fair &= fair[s]
        if always_fair & ~lift(cycle.steppers) == 0 and (best is None or cycle.states < best):
            best = cycle.states
    return best


def scoped_strong_witness(
    lts: LTS,
    fair: list[int],
    lift: Callable[[int], int],
    units: int,
    groups: int,
    found: list[Cycle] | None = None,
) -> list[int] | None:
    """`strong_witness` with extended F: closed under the steps of the
    individually fair units (the low `units` bits), and every group of
    `groups` (extended bits) fair in some state of the set steps inside it.
    Pruning: drop states with an individually fair step leaving; where a
    fair group never steps inside, drop the states where it is fair; repeat."""
    unit_mask = (1 << units) - 1
    best = None
    pending = list(cycles(lts) if found is None else found)
    while pending:
        cycle = pending.pop()
        kept = [s for s, leaving in zip(cycle.states, cycle.exits) if not fair[s] & unit_mask & leaving]
        if len(kept) == len(cycle.states):
            somewhere = 0
            for s in cycle.states:
                somewhere |= fair[s]
            idle = somewhere & groups & ~lift(cycle.steppers)
            if not idle:
                if best is None or cycle.states < best:
                    best = cycle.states
                continue
            kept = [s for s in cycle.states if not fair[s] & idle]
        if kept:
            pending += cycles(lts, kept)
    return best
