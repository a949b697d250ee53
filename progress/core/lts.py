"""Labelled transition systems: the reachable program LTS and its product
with a model's memory (docs/semantics.md section 4).

States are numbered in breadth-first order from 0 (the initial state); each
state's successors are listed by increasing thread id, one per enabled thread.
"""

from __future__ import annotations

import os
import time
from collections.abc import Hashable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from progress.core.semantics import Machine
from progress.core.system import System
from progress.errors import Inconclusive
from progress.models.base import NONE, Memory


@dataclass(frozen=True)
class LTS:
    """`succ[s]` lists (thread, destination); `origin[s]` is the program
    state behind s, `memory[s]` the model memory (None for the program LTS);
    `parent[s]` is (source, thread) of the breadth-first edge that found s,
    so following parents from s gives a shortest path from state 0."""

    succ: list[list[tuple[int, int]]]
    origin: list[int]
    memory: list[Hashable]
    enabled: list[int]
    parent: list[tuple[int, int] | None]

    @property
    def size(self) -> int:
        return len(self.succ)

    @cached_property
    def transitions(self) -> int:
        return sum(map(len, self.succ))


@dataclass(frozen=True)
class ProgramLTS:
    """`states[s]` is the program state numbered s; `deadlocks` the states
    with nothing enabled that are not finished (none for a Machine)."""

    machine: Machine | System
    states: list[Any]
    lts: LTS
    deadlocks: tuple[int, ...] = ()


class Budget:
    """A state bound, a resident-memory bound and a wall-clock deadline;
    `charge` raises Inconclusive. `hint` (what to try) ends every reason;
    `default` says the state bound is the caller's default, not the user's."""

    MEMORY_EVERY = 4096
    """New states between two looks at the resident memory."""

    def __init__(
        self,
        max_states: int | None = None,
        time_limit: float | None = None,
        *,
        max_bytes: int | None = None,
        hint: str = "",
        default: bool = False,
    ):
        self.max_states = max_states
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.max_bytes = max_bytes
        self.hint = hint
        self.default = default
        self._ticks = 0

    def charge(self, states: int) -> None:
        if self.max_states is not None and states > self.max_states:
            which = "the default state bound" if self.default else "the state bound"
            raise Inconclusive(f"stopped at {which} of {self.max_states}{self.hint}", states)
        self._ticks += 1
        if self.deadline is not None and self._ticks % 256 == 0 and time.monotonic() > self.deadline:
            raise Inconclusive("stopped at the time limit", states)
        if self.max_bytes is not None and self._ticks % self.MEMORY_EVERY == 0:
            self.check_memory(states)

    def check_memory(self, states: int) -> None:
        """Inconclusive once this process's resident memory passes `max_bytes`."""
        if self.max_bytes is not None and resident_bytes() > self.max_bytes:
            raise Inconclusive(f"stopped at the memory bound of {self.max_bytes >> 20} MiB resident{self.hint}", states)


def resident_bytes() -> int:
    """This process's resident memory now (Linux /proc; 0 where it cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def explore(machine: Machine, budget: Budget | None = None) -> ProgramLTS:
    """Every state reachable from the initial one, breadth first."""
    budget = budget or Budget()
    index = {machine.initial: 0}
    states = [machine.initial]
    succ: list[list[tuple[int, int]]] = []
    enabled: list[int] = []
    parent: list[tuple[int, int] | None] = [None]
    base = len(machine.locations)
    code, lengths = machine.code, machine.lengths
    threads = range(len(lengths))
    for source, state in enumerate(states):  # grows while iterating: breadth-first
        edges = []
        mask = 0
        for t in threads:
            pc = state[base + t]
            if pc >= lengths[t]:
                continue
            mask |= 1 << t
            # Machine.step, inlined: this loop is the checker's hottest
            loc, cmp, target, xchg, val = code[t][pc]
            new = list(state)
            if xchg:
                new[loc] = val
            new[base + t] = target if state[loc] == cmp else pc + 1
            new_state = tuple(new)
            dst = index.get(new_state)
            if dst is None:
                dst = index[new_state] = len(states)
                states.append(new_state)
                parent.append((source, t))
                budget.charge(len(states))
            edges.append((t, dst))
        succ.append(edges)
        enabled.append(mask)
    lts = LTS(succ, list(range(len(states))), [None] * len(states), enabled, parent)
    return ProgramLTS(machine, states, lts)


def terminal_memories(
    system: System, max_states: int | None, time_limit: float | None
) -> frozenset[tuple[tuple[str, int], ...]]:
    """The shared memory (`system.cells`) of every reachable state in which all units have finished."""
    explored = explore_system(system, Budget(max_states, time_limit))
    return frozenset(system.cells(state) for state in explored.states if system.finished(state))


def explore_system(system: System, budget: Budget | None = None) -> ProgramLTS:
    """Every state of `system` reachable from its initial one, breadth first."""
    budget = budget or Budget()
    budget.check_memory(0)
    index = {system.initial: 0}
    states = [system.initial]
    succ: list[list[tuple[int, int]]] = []
    enabled: list[int] = []
    parent: list[tuple[int, int] | None] = [None]
    deadlocks = []
    for source, state in enumerate(states):  # grows while iterating: breadth-first
        edges = []
        mask = 0
        for unit, new_state in system.successors(state):
            mask |= 1 << unit
            dst = index.get(new_state)
            if dst is None:
                dst = index[new_state] = len(states)
                states.append(new_state)
                parent.append((source, unit))
                budget.charge(len(states))
            edges.append((unit, dst))
        if not edges and not system.finished(state):
            deadlocks.append(source)
        succ.append(edges)
        enabled.append(mask)
    lts = LTS(succ, list(range(len(states))), [None] * len(states), enabled, parent)
    return ProgramLTS(system, states, lts, tuple(deadlocks))


def product(
    program: LTS,
    memory: Memory,
    n_threads: int,
    budget: Budget | None = None,
    groups: tuple[int, ...] | None = None,
) -> LTS:
    """The reachable product of the program LTS with a model's memory; with
    `groups`, a step of unit u is a step of thread `groups[u]` for the memory."""
    if memory is NONE:
        return program
    budget = budget or Budget()
    after = memory.after
    if groups is not None:
        base_after = memory.after
        after = lambda remembered, unit: base_after(remembered, groups[unit])  # noqa: E731
    start = (0, memory.initial(n_threads))
    index = {start: 0}
    pairs = [start]
    parent: list[tuple[int, int] | None] = [None]
    succ: list[list[tuple[int, int]]] = []
    for source, (origin, remembered) in enumerate(pairs):
        edges = []
        for t, dst in program.succ[origin]:
            key = (dst, after(remembered, t))
            target = index.get(key)
            if target is None:
                target = index[key] = len(pairs)
                pairs.append(key)
                parent.append((source, t))
                budget.charge(len(pairs))
            edges.append((t, target))
        succ.append(edges)
    origins = [p[0] for p in pairs]
    return LTS(succ, origins, [p[1] for p in pairs], [program.enabled[o] for o in origins], parent)


def shortest_path(lts: LTS, target: int) -> list[tuple[int, int, int]]:
    """The breadth-first path from state 0 to `target` as (source, thread, destination)."""
    path = []
    while (step := lts.parent[target]) is not None:
        source, thread = step
        path.append((source, thread, target))
        target = source
    return path[::-1]
