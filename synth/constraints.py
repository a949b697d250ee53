"""docs/semantics.md section 6 judged directly on a Program's explicit LTS: the reference
that the engines are checked against, and the explanation of why a given
test is not wanted.

`violations(program)` lists every constraint the program breaks (empty: it
meets section 6), each with a message naming the first offending
instruction. `outside(program, bounds)` says how a program exceeds a bound.
This module is deliberately plain: it uses `progress.core.lts.explore` and
networkx, nothing the engines use for speed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import networkx as nx

from progress.core.lts import ProgramLTS, explore
from progress.core.program import Program
from progress.core.semantics import Machine, compile_program

from .space import Bounds


class Constraint(IntEnum):
    """The constraints of docs/semantics.md section 6, numbered as there."""

    END_STATE = 1
    POSSIBLE_TERMINATION = 2
    CYCLE = 3
    MEANINGFUL_COMPARISONS = 4
    ALL_BRANCHES = 5
    INFLUENCE = 6

    @property
    def title(self) -> str:
        return self.name.lower().replace("_", " ")


@dataclass(frozen=True)
class Violation:
    constraint: Constraint
    message: str

    def __str__(self) -> str:
        return f"constraint {int(self.constraint)} ({self.constraint.title}): {self.message}"


def outside(program: Program, bounds: Bounds) -> str | None:
    """Why `program` lies outside `bounds` (None when it fits)."""
    threads = program.threads
    if len(threads) != bounds.threads:
        return f"{len(threads)} threads, not {bounds.threads}"
    if program.instruction_count != bounds.instructions:
        return f"{program.instruction_count} instructions, not {bounds.instructions}"
    if len(program.locations) > bounds.locations:
        return f"{len(program.locations)} locations, more than {bounds.locations}"
    if any(value for _, value in program.init):
        return "memory does not start at 0"
    if any(max(i.cmp, i.val) >= bounds.values for thread in threads for i in thread):
        return f"a value outside 0..{bounds.values - 1}"
    return None


def violations(program: Program, first_only: bool = False) -> list[Violation]:
    """Every constraint of docs/semantics.md section 6 that `program` breaks, in order;
    with `first_only`, stop at the first found (static ones are tried first)."""
    found = _meaningful(program) + _sharing(program)
    if found and first_only:
        return found[:1]
    explored = explore(compile_program(program))
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(explored.states)))
    graph.add_edges_from((s, dst) for s, edges in enumerate(explored.lts.succ) for _, dst in edges)
    ends = [s for s, mask in enumerate(explored.lts.enabled) if mask == 0]
    if not ends:
        found.append(Violation(Constraint.END_STATE, "no reachable state has every thread terminated"))
    stuck = set(graph) - set().union(set(), *(nx.ancestors(graph, e) | {e} for e in ends))
    if stuck:
        state = explored.states[min(stuck)]
        found.append(
            Violation(Constraint.POSSIBLE_TERMINATION, f"no end state is reachable from state {_show(program, state)}")
        )
    if nx.is_directed_acyclic_graph(graph):
        found.append(Violation(Constraint.CYCLE, "the reachable LTS has no cycle"))
    found += _dynamic(program, explored)
    return sorted(found, key=lambda v: v.constraint)


def meets_spec(program: Program) -> bool:
    return not violations(program)


def _where(t: int, i: int) -> str:
    return f"thread {t} instruction {i}"


def _meaningful(program: Program) -> list[Violation]:
    for t, thread in enumerate(program.threads):
        for i, ins in enumerate(thread):
            if ins.is_store(i) and (ins.cmp != 0 or not ins.xchg):
                return [
                    Violation(
                        Constraint.MEANINGFUL_COMPARISONS,
                        f"{_where(t, i)} is a store but not AXB(loc, 0, next, true, val)",
                    )
                ]
            if not ins.xchg and ins.val != 0:
                return [
                    Violation(
                        Constraint.MEANINGFUL_COMPARISONS, f"{_where(t, i)} does not exchange but has val {ins.val}"
                    )
                ]
    return []


def _sharing(program: Program) -> list[Violation]:
    threads = program.threads
    for t, thread in enumerate(threads):
        for i, ins in enumerate(thread):
            others = [(j, o) for u, other in enumerate(threads) if u != t for j, o in enumerate(other)]
            if ins.xchg and not any(o.loc == ins.loc and not o.is_store(j) for j, o in others):
                return [
                    Violation(
                        Constraint.INFLUENCE,
                        f"{_where(t, i)} writes {ins.loc}, which no other thread's non-store reads",
                    )
                ]
            if not ins.is_store(i) and not any(o.loc == ins.loc for _, o in others):
                return [
                    Violation(Constraint.INFLUENCE, f"{_where(t, i)} branches on {ins.loc}, which no other thread uses")
                ]
    return []


def _dynamic(program: Program, explored: ProgramLTS) -> list[Violation]:
    """Constraint 5 and the 'changes memory' part of 6, from every reachable step."""
    machine = explored.machine
    assert isinstance(machine, Machine), "synthesis explores AXB programs only"
    seen: set[tuple[int, int, str]] = set()
    for state in explored.states:
        for t, pc in enumerate(machine.pcs_of(state)):
            if pc < machine.lengths[t]:
                loc, cmp, _, xchg, val = machine.code[t][pc]
                seen.add((t, pc, "equal" if state[loc] == cmp else "differ"))
                if xchg and state[loc] != val:
                    seen.add((t, pc, "changes"))
    found = []
    for t, thread in enumerate(program.threads):
        for i, ins in enumerate(thread):
            if not ins.is_store(i):
                for outcome in ("equal", "differ"):
                    if (t, i, outcome) not in seen:
                        found.append(
                            Violation(
                                Constraint.ALL_BRANCHES,
                                f"{_where(t, i)} never runs with {ins.loc} {_OUTCOME[outcome]} {ins.cmp}",
                            )
                        )
            if ins.xchg and (t, i, "changes") not in seen:
                found.append(Violation(Constraint.INFLUENCE, f"{_where(t, i)} never changes {ins.loc}"))
    return found


_OUTCOME = {"equal": "==", "differ": "!="}


def _show(program: Program, state: tuple[int, ...]) -> str:
    n = len(program.locations)
    memory = ", ".join(f"{loc}={v}" for loc, v in zip(program.locations, state[:n]))
    return f"(memory {memory}; pcs {', '.join(map(str, state[n:]))})"
