"""The kernel reductions in the compiled explorer (issue 29): quiet steps
(docs/semantics.md section 13): `progress.core.reduce`'s normal forms,
explored by `kernel_jit.explore_kernel` over packed rows and decided by
`kernel_decide`; lassos made concrete by `reduce.expand` on the Python
`Reduced` of the same ownership (normal forms are unique: section 13.2).
And interchangeable invocations (section 12): the quotient explored there
too (`decide_quotient`), used under the same condition as the Python one
(every edge inside a cyclic SCC exact, something merged), lassos by
`unit_symmetry.Quotient.concrete`.

The ownership is guessed and checked as in section 11.4: an exploration
that meets an access contradicting it is dropped and the guess remade from
every access seen so far. Importing this module loads numba.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from progress.core.group_symmetry import Groups, initial_fixed, invariant_owner, symmetric_model
from progress.core.kernel_decide import Decided, _tarjan, decide_queries
from progress.core.kernel_jit import (
    OWNED_BY_NONE,
    READONLY,
    Broken,
    Graph,
    LoopFresh,
    Reduction,
    Round,
    explore_kernel,
)
from progress.core.lts import Budget
from progress.core.reduce import ROUNDS, Accesses, Ownership, Reduced
from progress.core.reduce import Round as PythonRound
from progress.core.system import Footprinted
from progress.core.unit_symmetry import Quotient
from progress.errors import Inconclusive
from progress.jit import njit
from progress.models.base import ProgressModel


def owner_array(ownership: Ownership, cells: int) -> np.ndarray:
    """`ownership` packed: the owning unit of each cell, OWNED_BY_NONE or READONLY."""
    owner = np.full(max(1, cells), OWNED_BY_NONE, np.int64)
    for cell, unit in ownership.owner.items():
        owner[cell] = unit
    for cell in ownership.readonly:
        owner[cell] = READONLY
    return owner


SCOUT = 100_000
"""States of the first compiled exploration of normal forms; past them it is
a probe: the guess is remade from the accesses it met and the exploration
starts again (a guess that a deep exploration met is rarely broken later)."""


def explore_reduced(system: Footprinted, budget: Budget, seen: Accesses) -> tuple[Reduced, Graph] | None:
    """The normal forms of `system` under an ownership guess its whole
    exploration confirmed, or None where the compiled explorer gives up
    (quiet steps that do not end, or ROUNDS broken guesses): the caller
    checks on the Python path then."""
    clean: tuple[Reduced, Graph] | None = None
    scout = True  # the first exploration stops at SCOUT states: a deeper probe (11.4) than the Python one
    for _ in range(ROUNDS):
        ownership = seen.guess()
        reduced = Reduced(system, ownership, seen, quiet=True)
        try:
            initial: tuple[int, ...] = reduced.initial  # type: ignore[assignment]  # a kernel's states are int tuples
            owner = owner_array(ownership, system.n_cells)  # type: ignore[attr-defined]
            reduction = Reduction(owner, initial, [], reduced.phased)
        except PythonRound:
            return None
        bound = budget.max_states
        if scout:
            bound = SCOUT if bound is None else min(bound, SCOUT)
        try:
            graph = explore_kernel(system, bound, budget.deadline, budget, reduction)  # type: ignore[arg-type]
        except Inconclusive as stop:
            if not scout or bound == budget.max_states or "state bound" not in str(stop):
                raise  # the user's bound, the time limit or the memory bound
            scout = False  # stopped at SCOUT: its accesses make the next guess
            for access in reduction.seen:
                seen.see(*access)
            continue
        except Broken:
            for access in reduction.seen:
                seen.see(*access)
            if clean is not None:
                return clean
            continue
        except Round:
            return None
        scout = False
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


@njit(cache=True)
def _inexact_inside(estart, edst, inexact, comp, count):
    """Whether some inexact edge joins two states of one SCC (so lies on a cycle)."""
    for s in range(count):
        for e in range(estart[s], estart[s + 1]):
            if inexact[e] and comp[edst[e]] == comp[s]:
                return True
    return False


def decide_quotient(
    system: Footprinted, budget: Budget, asks: Sequence[tuple[ProgressModel, str]], witnesses: bool
) -> tuple[Quotient, list[Decided]] | None:
    """Every (model, fairness) of `asks` decided on section 12's quotient,
    explored compiled; None where it merged nothing or an inexact edge lies
    inside an SCC (the caller checks otherwise). Lassos are of the quotient:
    `Quotient.concrete` makes them the original's."""
    blocks = system.interchangeable() if hasattr(system, "interchangeable") else ()
    if not blocks:
        return None
    graph = explore_kernel(system, budget.max_states, budget.deadline, budget, symmetric=True)  # type: ignore[arg-type]
    assert graph.inexact is not None
    if not graph.inexact.any():
        return None  # nothing merged: it is the original
    count = graph.count
    comp = np.empty(count, np.int32)
    _tarjan(graph.estart, graph.edst, count, np.ones(count, np.bool_), comp)
    if _inexact_inside(graph.estart, graph.edst, graph.inexact, comp, count):
        return None
    return Quotient(system, blocks), decide_queries(system, graph, asks, budget, witnesses)


def decide_groups(
    system: Footprinted,
    budget: Budget,
    asks: Sequence[tuple[ProgressModel, str]],
    witnesses: bool,
    seen: Accesses | None,
) -> tuple[Groups, Reduced | None, list[Decided]] | None:
    """Every (model, fairness) of `asks` (models of `group_symmetry.SYMMETRIC`)
    decided on section 14's quotient by workgroup permutations, explored
    compiled: over section 13's normal forms when `seen` is given (the probe
    of a kernel with barrier arrivals; the ownership must be invariant), else
    over the kernel with section 12's symmetry within workgroups too. None
    where section 14's condition fails (a workgroup id read, an initial
    state not fixed, an ownership not invariant), an inexact edge lies inside an SCC, or the explorer gives up:
    the caller checks otherwise. Lassos are of the quotient:
    `Groups.concrete` replays them on the kernel (or on `Reduced`, then
    `reduce.expand`)."""
    kernel: Any = system
    cells = kernel.workgroup_cells() if hasattr(kernel, "workgroup_cells") else None
    if cells is None or any(not symmetric_model(model) for model, _ in asks):
        return None
    if not initial_fixed(kernel, cells, kernel.initial):
        return None
    reduced: Reduced | None = None
    within = False
    if seen is None:
        within = bool(kernel.interchangeable())
        graph = _explore_groups(kernel, budget, None, within, cells)
    else:
        graph = None
        for _ in range(ROUNDS):
            ownership = seen.guess()
            owner = owner_array(ownership, kernel.n_cells)
            if not invariant_owner(owner, kernel, cells):
                return None
            reduced = Reduced(system, ownership, seen, quiet=True)
            try:
                start: Any = reduced.initial
            except PythonRound:
                return None
            if not initial_fixed(kernel, cells, start):
                return None
            reduction = Reduction(owner, start, [], reduced.phased)
            try:
                graph = _explore_groups(kernel, budget, reduction, False, cells)
            except Broken:
                for access in reduction.seen:
                    seen.see(*access)
                continue
            except Round:
                return None
            for access in reduction.seen:
                seen.see(*access)
            break  # no access contradicted the ownership: these normal forms are section 13's
        if graph is None:
            return None
    if graph is None:
        return None
    count = graph.count
    comp = np.empty(count, np.int32)
    _tarjan(graph.estart, graph.edst, count, np.ones(count, np.bool_), comp)
    assert graph.inexact is not None
    if _inexact_inside(graph.estart, graph.edst, graph.inexact, comp, count):
        return None
    slice_of = {tuple(int(v) for v in row): sid for sid, row in enumerate(graph.slices)}
    if reduced is None:
        succ = kernel.step
    else:
        normal = reduced.normal

        def succ(state, unit):
            return normal(kernel.step(state, unit))[0]

    groups = Groups(kernel, cells, within, slice_of, succ)
    return groups, reduced, decide_queries(system, graph, asks, budget, witnesses)


def _explore_groups(kernel: Any, budget: Budget, reduction: Reduction | None, within: bool, cells) -> Graph | None:
    try:
        return explore_kernel(
            kernel, budget.max_states, budget.deadline, budget, reduction, symmetric=within, group_cells=cells
        )
    except LoopFresh:
        return None
