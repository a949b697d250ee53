"""Non-termination witnesses under weak and strong fairness (SPEC section 4).

`fair[s]` is the bitmask F of state s. Both checks return the states of a
witness set (sorted), or None when the test is guaranteed to terminate.
"""

from __future__ import annotations

from .graph import has_internal_edge, sccs
from .lts import LTS

WEAK = "weak"
STRONG = "strong"


def weak_witness(lts: LTS, fair: list[int]) -> list[int] | None:
    """An SCC C with a cycle in which every thread that is in F in all states
    of C takes a step on some edge inside C."""
    succ = lts.succ
    found = []
    for component in sccs(succ):
        if not has_internal_edge(succ, component):
            continue
        members = set(component)
        always_fair = -1
        steppers = 0
        for s in component:
            always_fair &= fair[s]
            for t, dst in succ[s]:
                if dst in members:
                    steppers |= 1 << t
        if always_fair & ~steppers == 0:
            found.append(sorted(component))
    return min(found) if found else None


def strong_witness(lts: LTS, fair: list[int]) -> list[int] | None:
    """A set S with a cycle, strongly connected and closed under fair steps:
    for every s in S and t in F(s), t's step from s stays in S."""
    succ = lts.succ
    found = []
    pending = [None]  # None: the whole LTS
    while pending:
        nodes = pending.pop()
        for component in sccs(succ, nodes):
            if not has_internal_edge(succ, component):
                continue
            members = set(component)
            leaving = {s for s in component if _fair_step_leaves(succ[s], fair[s], members)}
            if not leaving:
                found.append(sorted(component))
            elif len(leaving) < len(component):
                pending.append(members - leaving)
    return min(found) if found else None


def _fair_step_leaves(edges: list[tuple[int, int]], fair_mask: int, members: set[int]) -> bool:
    return any(fair_mask >> t & 1 and dst not in members for t, dst in edges)


def witness(lts: LTS, fair: list[int], fairness: str) -> list[int] | None:
    return weak_witness(lts, fair) if fairness == WEAK else strong_witness(lts, fair)
