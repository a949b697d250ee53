"""Non-termination witnesses under weak and strong fairness (docs/semantics.md section 4).

`fair[s]` is the bitmask F of state s. Both checks return the states of a
witness set (sorted), or None when the test is guaranteed to terminate.
The SCC decomposition does not depend on F, so callers checking several
models on one LTS compute it once with `cycles(lts)` and pass it in.
"""

from __future__ import annotations

from collections.abc import Iterable
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
