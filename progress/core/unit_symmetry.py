"""Symmetry of interchangeable invocations of a kernel (docs/semantics.md section 12).

A System that names blocks of interchangeable units (`interchangeable()`:
each workgroup's invocations when the kernel reads no id that tells them
apart) is explored up to permutations within blocks: `Quotient` keeps one
representative per orbit (each block's local states sorted), with one edge
r -t-> rep(succ_t(r)) per enabled unit. An edge is *exact* when succ_t(r) is
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
        """`lasso` of the quotient as one of the original: its loop is
        already concrete (exact edges); the stem is replayed on the original
        (from a state over r_i, a unit of t's block with t's local state whose
        step lands over r_i+1), then permuted so that it ends on the loop's
        first state (the initial state is fixed by every permutation)."""
        system = self.system
        reps = [self.initial]
        for step in lasso.steps:
            reps.append(self.rep(system.step(reps[-1], step.thread)))
        stem_length = lasso.loop_start
        concrete = [system.initial]
        units = []
        for i in range(stem_length):
            here, t = concrete[-1], lasso.steps[i].thread
            want = system.local(reps[i], t)
            for u in self.block_of.get(t, (t,)):
                if system.local(here, u) == want and system.active(here, u):
                    after = system.step(here, u)
                    if self.rep(after) == reps[i + 1]:
                        break
            else:
                raise AssertionError("section 12: a quotient edge has a concrete step over it")
            units.append(u)
            concrete.append(after)
        sigma = self._matching(concrete[-1], reps[stem_length])
        steps = []
        for i in range(stem_length):
            state = system.permuted(concrete[i], sigma)
            unit = sigma[units[i]]
            fair_groups = {system.groups[v] for v in lasso.steps[i].fair}
            fair = tuple(
                v for v in range(len(system.groups)) if system.groups[v] in fair_groups and system.active(state, v)
            )
            positions = system.positions(state)
            steps.append(
                LassoStep(system.cells(state), positions, fair, unit, positions[unit], system.note(state, unit))
            )
        return replace(lasso, steps=tuple(steps) + lasso.steps[stem_length:])

    def _matching(self, state: Hashable, target: Hashable) -> tuple[int, ...]:
        """A permutation within blocks taking `state` to `target` (same orbit)."""
        system = self.system
        sigma = list(range(len(system.groups)))
        for block in self.blocks:
            free = list(block)
            for u in block:
                v = next(v for v in free if system.local(target, v) == system.local(state, u))
                free.remove(v)
                sigma[u] = v
        result = tuple(sigma)
        assert system.permuted(state, result) == target
        return result
