"""Workgroup symmetry (docs/semantics.md section 14): which kernels and
models it applies to, its representatives in Python (the same as the
compiled explorer's `kernel_jit._canonical_groups`), and lassos of the
quotient replayed on the system it quotients (the kernel, or its normal
forms with quiet steps: section 13).

A permutation pi of workgroups moves each workgroup's units (unit i of w to
unit i of pi(w)), its copy of Workgroup memory and its STARTED bit, and
fixes every other cell. It maps runs to runs when no instruction names a
workgroup id built-in (`KernelSystem.workgroup_cells`; pointers into
Workgroup memory are relative to the workgroup's copy) and the initial state
is fixed (every workgroup starts alike). Only unfair, fair and OBE have
F(pi x) = pi F(x); HSA, HSA+OBE and LOBE read the order of workgroup ids.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from typing import Any

from progress.core.witness import Lasso, LassoStep
from progress.models import fair as fair_model
from progress.models import obe, unfair
from progress.models.base import ProgressModel

SYMMETRIC = frozenset({unfair.MODEL, fair_model.MODEL, obe.MODEL})
"""The built-in models whose F commutes with every permutation of workgroups (section 14.2)."""


def symmetric_model(model: ProgressModel) -> bool:
    """Whether section 14's quotient keeps `model`'s verdicts."""
    return model in SYMMETRIC


def initial_fixed(system: Any, cells: tuple[int, int], state: tuple[int, ...]) -> bool:
    """Whether every workgroup starts alike in `state`: the same local states
    at the same places and the same Workgroup memory (the state is fixed by
    every permutation)."""
    n, per = system.n_cells, system.per_group
    at, size = cells
    groups = len(system.groups) // per
    first_locals = state[n : n + per]
    first_cells = state[at : at + size]
    return all(
        state[n + g * per : n + (g + 1) * per] == first_locals
        and state[at + g * size : at + (g + 1) * size] == first_cells
        for g in range(groups)
    )


def invariant_owner(owner: Any, system: Any, cells: tuple[int, int]) -> bool:
    """Whether a packed ownership (section 13: a unit, -1 none, -2 read-only
    per cell) is mapped to itself by every workgroup permutation: cells
    outside Workgroup memory owned by no unit, and Workgroup cell k of every
    workgroup owned alike (by its own unit i, or by none, or read-only)."""
    at, size = cells
    per = system.per_group
    groups = len(system.groups) // per
    for c in range(len(owner)):
        if not at <= c < at + groups * size and owner[c] >= 0:
            return False
    for k in range(size):
        kinds = set()
        for g in range(groups):
            o = int(owner[at + g * size + k])
            if o >= 0 and o // per != g:
                return False
            kinds.add(o % per if o >= 0 else o - per)
        if len(kinds) > 1:
            return False
    return True


class Groups:
    """Section 14's representatives of (state, STARTED mask) pairs of `system`
    (a kernel's flat states), with section 12's within each workgroup when
    `within`; `slice_of` numbers each workgroup's local states as the compiled
    exploration did (its sort key), `succ(state, unit)` steps the system the
    quotient was explored over (the kernel, or its normal forms)."""

    def __init__(
        self,
        system: Any,
        cells: tuple[int, int],
        within: bool,
        slice_of: dict[tuple[int, ...], int],
        succ: Callable[[Any, int], Any],
    ):
        self.system, self.cells, self.within, self.slice_of, self.succ = system, cells, within, slice_of, succ
        self.per = system.per_group
        self.n_groups = len(system.groups) // self.per
        self.blocks = system.interchangeable() if within else ()

    def _block(self, state: tuple[int, ...], mask: int, g: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        n, per = self.system.n_cells, self.per
        at, size = self.cells
        return state[n + g * per : n + (g + 1) * per], state[at + g * size : at + (g + 1) * size], mask >> g & 1

    def rep(self, state: tuple[int, ...], mask: int) -> tuple[tuple[int, ...], int] | None:
        """The representative of (state, mask), None if a slice of it was never met."""
        if self.within:
            state = self.system.canonical(state, self.blocks)
        blocks = [self._block(state, mask, g) for g in range(self.n_groups)]
        keys = []
        for locals_, cells, bit in blocks:
            sid = self.slice_of.get(locals_)
            if sid is None:
                return None
            keys.append((sid, cells, bit))
        order = sorted(range(self.n_groups), key=lambda g: keys[g])
        return self._moved(state, mask, order)

    def _moved(self, state: tuple[int, ...], mask: int, order: Sequence[int]) -> tuple[tuple[int, ...], int]:
        """Block i of the result is block order[i] of (state, mask)."""
        n, per = self.system.n_cells, self.per
        at, size = self.cells
        new = list(state)
        new_mask = 0
        for i, o in enumerate(order):
            new[n + i * per : n + (i + 1) * per] = state[n + o * per : n + (o + 1) * per]
            new[at + i * size : at + (i + 1) * size] = state[at + o * size : at + (o + 1) * size]
            new_mask |= (mask >> o & 1) << i
        return tuple(new), new_mask

    def matching(self, rep: tuple[int, ...], mask: int, target: tuple[int, ...], target_mask: int) -> tuple[int, ...]:
        """A unit permutation tau of the group (workgroups, and id-free local
        states within them when `within`) with tau(rep, mask) = (target, target_mask)."""
        system, per = self.system, self.per
        n = system.n_cells
        free_groups = list(range(self.n_groups))
        tau = list(range(len(system.groups)))
        canon = (lambda s: system.canonical(s, self.blocks)) if self.within else (lambda s: s)
        target_canon = canon(target)
        for g in range(self.n_groups):
            want = self._block(rep, mask, g)
            h = next(h for h in free_groups if self._block(target_canon, target_mask, h) == want)
            free_groups.remove(h)
            taken: set[int] = set()
            for i in range(per):
                u, local = g * per + i, rep[n + g * per + i]
                if self.within and system.id_free(local):
                    v = next(
                        h * per + j
                        for j in range(per)
                        if h * per + j not in taken
                        and target[n + h * per + j] == local
                        and system.id_free(target[n + h * per + j])
                    )
                else:
                    v = h * per + i
                taken.add(v)
                tau[u] = v
        return tuple(tau)

    def permuted(self, state: tuple[int, ...], tau: Sequence[int]) -> tuple[int, ...]:
        """`state` with unit u's local state at tau[u] and Workgroup memory moved with the workgroups."""
        n, per = self.system.n_cells, self.per
        at, size = self.cells
        new = list(state)
        for u, v in enumerate(tau):
            new[n + v] = state[n + u]
        for g in range(self.n_groups):
            h = tau[g * per] // per
            new[at + h * size : at + (h + 1) * size] = state[at + g * size : at + (g + 1) * size]
        return tuple(new)

    def concrete(self, lasso: Lasso, initial: tuple[int, ...]) -> Lasso:
        """`lasso` of the quotient (its units those of representatives) as a
        lasso of the system explored from `initial`: the stem replayed (from a
        state x over r_i, a unit whose step lands over r_i+1), ending on tau r
        for the loop's first representative r, and the loop (exact edges) moved
        by tau. F is left as the quotient's: the caller recomputes it."""
        system, groups = self.system, self.system.groups
        start = self.rep(initial, 0)
        assert start is not None
        reps = [start]
        for step in lasso.steps:
            state, mask = reps[-1]
            nxt = self.rep(self.succ(state, step.thread), mask | 1 << groups[step.thread])
            assert nxt is not None, "section 14: a quotient step leads to a representative"
            reps.append(nxt)
        here: Any = initial
        mask = 0
        stem = lasso.loop_start
        steps: list[LassoStep] = []
        for i in range(stem):
            t = lasso.steps[i].thread
            local = reps[i][0][system.n_cells + t]
            for u in range(len(groups)):
                if here[system.n_cells + u] != local or not system.active(here, u):
                    continue
                after = self.succ(here, u)
                new_mask = mask | 1 << groups[u]
                if self.rep(after, new_mask) == reps[i + 1]:
                    break
            else:
                raise AssertionError("section 14: a quotient edge has a concrete step over it")
            steps.append(_step(system, here, u))
            here, mask = after, new_mask
        if stem == len(lasso.steps):  # a deadlock: `here` is it
            waits = system.waits(here)
            return replace(lasso, steps=tuple(steps), waits=waits, starving=tuple(u for u, _ in waits))
        tau = self.matching(reps[stem][0], reps[stem][1], here, mask)
        assert self.permuted(reps[stem][0], tau) == here
        for step, (state, _) in zip(lasso.steps[stem:], reps[stem:]):
            steps.append(_step(system, self.permuted(state, tau), tau[step.thread]))
        return replace(
            lasso,
            steps=tuple(steps),
            running=tuple(sorted(tau[u] for u in lasso.running)),
            starving=tuple(sorted(tau[u] for u in lasso.starving)),
            escapes=tuple((i, tau[t]) for i, t in lasso.escapes),
        )


def _step(system: Any, state: Hashable, unit: int) -> LassoStep:
    positions = system.positions(state)
    return LassoStep(system.cells(state), positions, (), unit, positions[unit], system.note(state, unit))


def refair(system: Any, lasso: Lasso, fair: Callable[[int, int | None], int], started: bool) -> Lasso:
    """`lasso` (of the kernel `system`) with the F of each step computed by
    `fair(enabled units, STARTED mask or None)` at its own state."""
    groups = system.groups
    state, memory = system.initial, 0
    steps = []
    for step in lasso.steps:
        enabled = sum(1 << u for u in range(len(groups)) if system.active(state, u))
        mask = fair(enabled, memory if started else None)
        steps.append(step._replace(fair=tuple(u for u in range(len(groups)) if mask >> u & 1)))
        memory |= 1 << groups[step.thread]
        state = system.step(state, step.thread)
    return replace(lasso, steps=tuple(steps))
