"""Symmetry of interchangeable invocations of a kernel (docs/semantics.md section 12).

A System that names blocks of units (`interchangeable()`: each workgroup's
invocations) and says which local states can no longer read an invocation id
(`id_free`) is explored up to permutations within blocks of the units in
such states: `Quotient` keeps one representative per orbit (`canonical`: the
id-free local states of each block sorted, the others in place), with one
edge r -t-> rep(succ_t(r)) per enabled unit. An edge is *exact* when succ_t(r) is
already a representative. When every edge inside every cyclic SCC is exact,
section 9.3's argument decides every query on the quotient as on the
original; otherwise `check_quotient` gives up (None) and the caller checks the
original. Lassos are made concrete again by `concrete`.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from functools import cached_property
from typing import Any

from progress.core.check import cycles
from progress.core.lts import ProgramLTS
from progress.core.witness import Lasso, LassoStep


class Quotient:
    """`system` up to permutations of units within each of `blocks`: a System itself."""

    def __init__(self, system: Any, blocks: tuple[tuple[int, ...], ...]):
        self.system = system
        self.blocks = blocks
        self.block_of = {u: block for block in blocks for u in block}
        self.inexact: dict[Hashable, int] = {}
        """Representative -> the units whose edge from it is not exact (a bitmask)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.system, name)  # name, digest, groups, cells, note, ...

    def rep(self, state: Hashable) -> Hashable:
        return self.system.canonical(state, self.blocks)

    @cached_property
    def initial(self) -> Hashable:
        return self.rep(self.system.initial)

    def successors(self, state: Hashable) -> list[tuple[int, Hashable]]:
        found = []
        inexact = 0
        for unit, new in self.system.successors(state):
            image = self.rep(new)
            if image != new:
                inexact |= 1 << unit
            found.append((unit, image))
        if inexact:
            self.inexact[state] = inexact
        return found

    def exact_cycles(self, explored: ProgramLTS) -> bool:
        """Whether every edge inside every cyclic SCC of the explored quotient is exact."""
        states = explored.states
        for cycle in cycles(explored.lts):
            for s in cycle.states:
                bad = self.inexact.get(states[s], 0)
                if bad and any(bad >> t & 1 and d in cycle.members for t, d in explored.lts.succ[s]):
                    return False
        return True

    def concrete(self, lasso: Lasso) -> Lasso:
        """`lasso` of the quotient as one of the original. The stem is
        replayed on the original from its initial state (from a state x over
        r_i, the unit of t's block holding t's local state, t itself if that
        state may read its id, whose step lands over r_i+1); it ends on some
        x = tau r, r the loop's first representative, and the loop (exact
        edges: a loop of representatives) is moved by tau onto x."""
        system = self.system
        reps = [self.initial]
        for step in lasso.steps:
            reps.append(self.rep(system.step(reps[-1], step.thread)))
        stem_length = lasso.loop_start
        here = system.initial
        steps = []
        for i in range(stem_length):
            t = lasso.steps[i].thread
            want = system.local(reps[i], t)
            candidates = self.block_of.get(t, (t,)) if system.id_free(want) else (t,)
            for u in candidates:
                if system.local(here, u) == want and system.active(here, u):
                    after = system.step(here, u)
                    if self.rep(after) == reps[i + 1]:
                        break
            else:
                raise AssertionError("section 12: a quotient edge has a concrete step over it")
            steps.append(self._step(here, u, lasso.steps[i].fair))
            here = after
        tau = self._matching(reps[stem_length], here)
        for step, state in zip(lasso.steps[stem_length:], reps[stem_length:]):
            steps.append(self._step(system.permuted(state, tau), tau[step.thread], step.fair))
        if stem_length == len(lasso.steps):  # a deadlock: `here` is it
            waits = system.waits(here)
            return replace(lasso, steps=tuple(steps), waits=waits, starving=tuple(u for u, _ in waits))
        return replace(
            lasso,
            steps=tuple(steps),
            running=tuple(sorted(tau[u] for u in lasso.running)),
            starving=tuple(sorted(tau[u] for u in lasso.starving)),
            escapes=tuple((i, tau[t]) for i, t in lasso.escapes),
        )

    def _step(self, state: Hashable, unit: int, fair_units: tuple[int, ...]) -> LassoStep:
        """The step of `unit` from `state`; F is the enabled units of the
        workgroups of `fair_units` (F over workgroups, lifted: section 8)."""
        system = self.system
        groups = system.groups
        fair_groups = {groups[v] for v in fair_units}
        fair = tuple(v for v in range(len(groups)) if groups[v] in fair_groups and system.active(state, v))
        positions = system.positions(state)
        return LassoStep(system.cells(state), positions, fair, unit, positions[unit], system.note(state, unit))

    def _matching(self, state: Hashable, target: Hashable) -> tuple[int, ...]:
        """A permutation within blocks, fixing the units whose local state may
        read their id, taking `state` to `target` (of the same orbit)."""
        system = self.system
        sigma = list(range(len(system.groups)))
        for block in self.blocks:
            free = [v for v in block if system.id_free(system.local(target, v))]
            for u in block:
                if not system.id_free(system.local(state, u)):
                    continue
                v = next(v for v in free if system.local(target, v) == system.local(state, u))
                free.remove(v)
                sigma[u] = v
        result = tuple(sigma)
        assert system.permuted(state, result) == target
        return result
