"""Quiet steps in the compiled explorer (docs/semantics.md section 13,
issue 29): `progress.core.reduce`'s normal forms, explored by
`kernel_jit.explore_kernel` over packed rows and decided by
`kernel_decide`; lassos made concrete by `reduce.expand` on the Python
`Reduced` of the same ownership (normal forms are unique: section 13.2).

The ownership is guessed and checked as in section 11.4: an exploration
that meets an access contradicting it is dropped and the guess remade from
every access seen so far. Importing this module loads numba.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from progress.core.kernel_decide import Decided, decide_queries
from progress.core.kernel_jit import OWNED_BY_NONE, READONLY, Broken, Graph, Reduction, Round, explore_kernel
from progress.core.lts import Budget
from progress.core.reduce import ROUNDS, Accesses, Ownership, Reduced
from progress.core.reduce import Round as PythonRound
from progress.core.system import Footprinted
from progress.models.base import ProgressModel


def owner_array(ownership: Ownership, cells: int) -> np.ndarray:
    """`ownership` packed: the owning unit of each cell, OWNED_BY_NONE or READONLY."""
    owner = np.full(max(1, cells), OWNED_BY_NONE, np.int64)
    for cell, unit in ownership.owner.items():
        owner[cell] = unit
    for cell in ownership.readonly:
        owner[cell] = READONLY
    return owner


def explore_reduced(system: Footprinted, budget: Budget, seen: Accesses) -> tuple[Reduced, Graph] | None:
    """The normal forms of `system` under an ownership guess its whole
    exploration confirmed, or None where the compiled explorer gives up
    (quiet steps that do not end, or ROUNDS broken guesses): the caller
    checks on the Python path then."""
    clean: tuple[Reduced, Graph] | None = None
    for _ in range(ROUNDS):
        ownership = seen.guess()
        reduced = Reduced(system, ownership, seen, quiet=True)
        try:
            initial: tuple[int, ...] = reduced.initial  # type: ignore[assignment]  # a kernel's states are int tuples
            reduction = Reduction(owner_array(ownership, system.n_cells), initial, [])  # type: ignore[attr-defined]
        except PythonRound:
            return None
        try:
            graph = explore_kernel(system, budget.max_states, budget.deadline, budget, reduction)  # type: ignore[arg-type]
        except Broken:
            for access in reduction.seen:
                seen.see(*access)
            if clean is not None:
                return clean
            continue
        except Round:
            return None
        for access in reduction.seen:
            seen.see(*access)
        if clean is not None or ownership == seen.guess():
            return reduced, graph
        clean = reduced, graph
    return clean


def decide_reduced(
    system: Footprinted,
    budget: Budget,
    seen: Accesses,
    asks: Sequence[tuple[ProgressModel, str]],
    witnesses: bool,
) -> tuple[Reduced, list[Decided]] | None:
    """Every (model, fairness) of `asks` decided on the compiled normal forms
    (lassos still of the normal forms: `reduce.expand` makes them concrete)."""
    found = explore_reduced(system, budget, seen)
    if found is None:
        return None
    reduced, graph = found
    return reduced, decide_queries(system, graph, asks, budget, witnesses)
