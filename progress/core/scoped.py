"""Scoped progress models: a model per scope (docs/semantics.md section 10).

A `ScopedModel` is a triple of registered models: one chooses among the
workgroups of a dispatch, one among the subgroups of a workgroup, one among
the lanes (invocations) of a subgroup. A `Hierarchy` says which subgroup and
workgroup each unit (invocation, or AXB thread) belongs to.

F of a state is an *extended* bitmask: bits 0..U-1 are the individually fair
units, bit U+g the fair subgroup g, bit U+G+w the fair workgroup w. `lift`
maps a set of units to the extended bits of the units and of their groups,
so "group X steps on a cycle" is `lift(steppers) >> X & 1`.

A group of exactly one member passes its fairness to that member (a group
with progress passes progress to a schedulable child, and it has one), so a
scope of singletons changes nothing: (M, x, y) on one-invocation workgroups
is M.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from progress.models.base import NONE, Memory, ProgressModel

SCOPES = ("workgroup", "subgroup", "lane")
"""The three scopes, outermost first: each scope's model chooses among the groups of that scope."""


@dataclass(frozen=True)
class ScopedModel:
    """(workgroup, subgroup, lane) models. `name` is `W/S/L`, or W's name
    alone when the inner two are `fair` (today's meaning of a bare model)."""

    workgroup: ProgressModel
    subgroup: ProgressModel
    lane: ProgressModel
    label: str | None = None
    """A name to show instead of `W/S/L` (`--scope lane --model M` shows M)."""

    @property
    def models(self) -> tuple[ProgressModel, ProgressModel, ProgressModel]:
        return (self.workgroup, self.subgroup, self.lane)

    @property
    def plain(self) -> bool:
        """The inner scopes are fair: section 8's meaning, checked as the workgroup model."""
        return self.subgroup.name == "fair" and self.lane.name == "fair"

    @property
    def name(self) -> str:
        if self.label is not None:
            return self.label
        if self.plain:
            return self.workgroup.name
        return "/".join(m.name for m in self.models)

    @property
    def has_fairness(self) -> bool:
        """No fair workgroup ever without it: weak and strong coincide."""
        return self.workgroup.has_fairness

    @property
    def rank(self) -> int:
        return self.workgroup.rank

    @property
    def definition(self) -> str:
        return "; ".join(f"{scope}s: {m.name}" for scope, m in zip(SCOPES, self.models))


def at_scope(model: ProgressModel, scope: str, fair: ProgressModel, label: str | None = None) -> ScopedModel:
    """`model` at `scope`, `fair` at the other two."""
    chosen = [fair, fair, fair]
    chosen[SCOPES.index(scope)] = model
    return ScopedModel(chosen[0], chosen[1], chosen[2], label=label)


@dataclass(frozen=True)
class Hierarchy:
    """`workgroup[u]` and `subgroup[u]` of each unit u (subgroups numbered
    across the dispatch, consecutive within a workgroup, non-decreasing in u)."""

    workgroup: tuple[int, ...]
    subgroup: tuple[int, ...]

    @staticmethod
    def of_sizes(workgroup: tuple[int, ...], subgroup_size: int | None) -> Hierarchy:
        """Subgroups of `subgroup_size` consecutive units of each workgroup (the last may be shorter)."""
        subgroup = []
        first, sg, count = None, -1, 0
        for wg in workgroup:
            if wg != first or (subgroup_size and count == subgroup_size):
                sg += 1
                count = 0
            first = wg
            count += 1
            subgroup.append(sg)
        return Hierarchy(tuple(workgroup), tuple(subgroup))

    @staticmethod
    def axb(threads: int, scope: str) -> Hierarchy:
        """AXB threads placed at `scope`: each its own workgroup, each its own
        subgroup of one workgroup, or the lanes of one subgroup."""
        units = range(threads)
        if scope == "workgroup":
            return Hierarchy(tuple(units), tuple(units))
        if scope == "subgroup":
            return Hierarchy((0,) * threads, tuple(units))
        return Hierarchy((0,) * threads, (0,) * threads)

    @cached_property
    def units(self) -> int:
        return len(self.workgroup)

    @cached_property
    def n_subgroups(self) -> int:
        return max(self.subgroup, default=-1) + 1

    @cached_property
    def n_workgroups(self) -> int:
        return max(self.workgroup, default=-1) + 1

    @cached_property
    def unit_mask(self) -> int:
        return (1 << self.units) - 1

    @cached_property
    def lanes(self) -> tuple[tuple[int, ...], ...]:
        """The units of each subgroup."""
        found: list[list[int]] = [[] for _ in range(self.n_subgroups)]
        for u, g in enumerate(self.subgroup):
            found[g].append(u)
        return tuple(map(tuple, found))

    @cached_property
    def subgroups_of(self) -> tuple[tuple[int, ...], ...]:
        """The subgroups of each workgroup."""
        found: list[list[int]] = [[] for _ in range(self.n_workgroups)]
        for g, units in enumerate(self.lanes):
            found[self.workgroup[units[0]]].append(g)
        return tuple(map(tuple, found))

    @cached_property
    def lane_index(self) -> tuple[int, ...]:
        return tuple(self.lanes[g].index(u) for u, g in enumerate(self.subgroup))

    @cached_property
    def subgroup_index(self) -> tuple[int, ...]:
        """Each subgroup's index within its workgroup."""
        return tuple(self.subgroups_of[self.workgroup[units[0]]].index(g) for g, units in enumerate(self.lanes))

    @cached_property
    def _unit_lift(self) -> tuple[int, ...]:
        base_wg = self.units + self.n_subgroups
        return tuple(
            1 << u | 1 << (self.units + self.subgroup[u]) | 1 << (base_wg + self.workgroup[u])
            for u in range(self.units)
        )

    def lift(self, units: int) -> int:
        """The extended bits of the units in `units` and of their subgroups and workgroups."""
        mask = 0
        table = self._unit_lift
        while units:
            low = units & -units
            mask |= table[low.bit_length() - 1]
            units ^= low
        return mask

    @cached_property
    def group_mask(self) -> int:
        """The extended bits of every group of more than one unit."""
        mask = 0
        for g, units in enumerate(self.lanes):
            if len(units) > 1:
                mask |= 1 << (self.units + g)
        base = self.units + self.n_subgroups
        for w, groups in enumerate(self.subgroups_of):
            if sum(len(self.lanes[g]) for g in groups) > 1:
                mask |= 1 << (base + w)
        return mask


@lru_cache(maxsize=64)
def scoped_memory(mw: Memory, ms: Memory, ml: Memory, h: Hierarchy) -> Memory:
    """The memory of a scoped model: (workgroup level's, each workgroup's
    subgroup level's, each subgroup's lane level's); a unit's step is a step
    of its workgroup, of its subgroup within the workgroup, and of itself
    within the subgroup. One object per distinct triple, so products are shared."""
    if mw is NONE and ms is NONE and ml is NONE:
        return NONE
    wg, lw, sg, lane = h.workgroup, h.subgroup_index, h.subgroup, h.lane_index
    n_sg = [len(groups) for groups in h.subgroups_of]
    n_lanes = [len(units) for units in h.lanes]

    def initial(n: int) -> Hashable:
        return (
            mw.initial(h.n_workgroups),
            tuple(ms.initial(k) for k in n_sg),
            tuple(ml.initial(k) for k in n_lanes),
        )

    def after(memory: Any, unit: int) -> Hashable:
        mem_wg, mem_sg, mem_lane = memory
        w, g = wg[unit], sg[unit]
        if ms is not NONE:
            mem_sg = mem_sg[:w] + (ms.after(mem_sg[w], lw[g]),) + mem_sg[w + 1 :]
        if ml is not NONE:
            mem_lane = mem_lane[:g] + (ml.after(mem_lane[g], lane[unit]),) + mem_lane[g + 1 :]
        return (mw.after(mem_wg, w), mem_sg, mem_lane)

    return Memory(f"scoped {mw.name}/{ms.name}/{ml.name}", initial, after)


class ScopedFair:
    """A scoped model over one hierarchy: its `memory` (one value per level
    and group) and `fair(enabled units, memory)` as an extended mask."""

    def __init__(self, model: ScopedModel, hierarchy: Hierarchy):
        self.model, self.h = model, hierarchy
        self.memory = scoped_memory(*(m.memory for m in model.models), hierarchy)

    def _levels(self, memory: Any) -> tuple[Any, tuple[Any, ...], tuple[Any, ...]]:
        if self.memory is NONE:
            h = self.h
            return None, (None,) * h.n_workgroups, (None,) * h.n_subgroups
        return memory

    def fair(self, enabled: int, memory: Any) -> int:
        """The extended F of a state whose enabled units are `enabled`."""
        h = self.h
        mw, ms, ml = self.model.models
        mem_wg, mem_sg, mem_lane = self._levels(memory)
        base_sg, base_wg = h.units, h.units + h.n_subgroups
        lanes, subgroups_of = h.lanes, h.subgroups_of
        enabled_sg = [any(enabled >> u & 1 for u in units) for units in lanes]
        wg_enabled = 0
        for w, groups in enumerate(subgroups_of):
            if any(enabled_sg[g] for g in groups):
                wg_enabled |= 1 << w
        out = 0
        fair_wg = mw.fair(wg_enabled, mem_wg, h.n_workgroups)
        for w in _bits(fair_wg):
            out |= 1 << (base_wg + w)
            groups = subgroups_of[w]
            inner = 0
            for i, g in enumerate(groups):
                if enabled_sg[g]:
                    inner |= 1 << i
            fair_sg = inner if len(groups) == 1 else ms.fair(inner, mem_sg[w], len(groups))
            for i in _bits(fair_sg):
                g = groups[i]
                out |= 1 << (base_sg + g)
                units = lanes[g]
                inner = 0
                for j, u in enumerate(units):
                    if enabled >> u & 1:
                        inner |= 1 << j
                fair_lane = inner if len(units) == 1 else ml.fair(inner, mem_lane[g], len(units))
                for j in _bits(fair_lane):
                    out |= 1 << units[j]
        return out


def _bits(mask: int) -> list[int]:
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found
