"""Check one program under a list of (model, fairness) queries.

The program LTS is explored once; each distinct model Memory gets one product
LTS, shared by every model that uses it. Pure: no files, no printing.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from progress.core.canonical import canonical_hash
from progress.core.check import STRONG, WEAK, Cycle, cycles, witness
from progress.core.lts import LTS, Budget, ProgramLTS, explore, explore_system, product
from progress.core.program import Program
from progress.core.semantics import compile_program
from progress.core.system import Grouping, System
from progress.core.witness import Lasso, Plans, build_lasso, deadlock_lasso
from progress.errors import Inconclusive
from progress.models.base import ProgressModel

NO_FAIRNESS = "none"
LARGE = 50_000
"""An LTS of more states sends the program to the compiled checker
(progress/core/scale.py, lassos by progress/core/scale_lasso.py); smaller tests stay here,
without numba's start-up."""
FAIRNESSES = (WEAK, STRONG)


@dataclass(frozen=True)
class Query:
    model: ProgressModel
    fairness: str  # "weak", "strong", or "none" for a model without fairness


class Verdict(NamedTuple):
    """`terminates` is True (guaranteed), False (may not), or None when a
    bound stopped the check (`reason` says which)."""

    model: str
    fairness: str
    terminates: bool | None
    states: int
    transitions: int
    witness: Lasso | None = None
    reason: str | None = None


@dataclass(frozen=True)
class TestReport:
    """`program` is the .axb Program, or the System of a kernel."""

    program: Program | System
    hash: str
    verdicts: tuple[Verdict, ...]


def queries_for(models: Iterable[ProgressModel], fairnesses: Iterable[str] = FAIRNESSES) -> list[Query]:
    """One query per model and fairness; one ("none") for a model without fairness."""
    queries: list[Query] = []
    for model in models:
        if not model.has_fairness:
            queries.append(Query(model, NO_FAIRNESS))
        else:
            queries += [Query(model, f) for f in fairnesses]
    return queries


def check_program(
    program: Program,
    queries: list[Query],
    *,
    max_states: int | None = None,
    time_limit: float | None = None,
    witnesses: bool = True,
) -> TestReport:
    """Every query's verdict; an LTS past LARGE states hands the program to
    the compiled checker unless `max_states` is at most LARGE,
    and back here with the caller's bounds if it does not fit there."""
    digest = canonical_hash(program)
    if max_states is None or max_states > LARGE:
        budget = Budget(LARGE, time_limit)
        verdicts = _check_here(program, queries, budget, witnesses)
        if verdicts is None:
            verdicts = _check_large(program, queries, max_states, budget, witnesses)
        if verdicts is not None:
            return TestReport(program, digest, tuple(verdicts))
        if _out_of_time(budget):
            return TestReport(program, digest, tuple(_inconclusive(queries, "stopped at the time limit", LARGE)))
        time_limit = None if budget.deadline is None else budget.deadline - time.monotonic()
    budget = Budget(max_states, time_limit)
    verdicts = _check_here(program, queries, budget, witnesses, give_up=False)
    return TestReport(program, digest, tuple(verdicts or ()))


def _check_here(
    program: Program, queries: list[Query], budget: Budget, witnesses: bool, give_up: bool = True
) -> list[Verdict] | None:
    """Verdicts by this module; past the budget None if `give_up`, else inconclusive ones."""
    try:
        explored = explore(compile_program(program), budget)
        return _decide_all(explored, queries, budget, witnesses, len(program.threads))
    except Inconclusive as stop:
        return None if give_up else _stopped(queries, stop)


def _inconclusive(queries: list[Query], reason: str | None, states: int) -> list[Verdict]:
    return [Verdict(q.model.name, q.fairness, None, states, 0, reason=reason) for q in queries]


def _stopped(queries: list[Query], stop: Inconclusive) -> list[Verdict]:
    return _inconclusive(queries, stop.reason, stop.states)


def _out_of_time(budget: Budget) -> bool:
    return budget.deadline is not None and time.monotonic() >= budget.deadline


def _check_large(
    program: Program, queries: list[Query], max_states: int | None, budget: Budget, witnesses: bool
) -> list[Verdict] | None:
    """The compiled checker's verdicts once an LTS passed LARGE states (None:
    out of time, or the program does not fit it)."""
    if _out_of_time(budget):
        return None
    from progress.core.scale import check_large  # loads numba: large tests only

    left = None if budget.deadline is None else budget.deadline - time.monotonic()
    asks = [(q.model, q.fairness == STRONG) for q in queries]
    outcomes = check_large(program, asks, max_states, left, witnesses)
    if outcomes is None:
        return None
    return [
        Verdict(q.model.name, q.fairness, o.terminates, o.states, o.transitions, o.witness, o.reason)
        for q, o in zip(queries, outcomes)
    ]


def check_system(
    system: System,
    queries: list[Query],
    *,
    max_states: int | None = None,
    time_limit: float | None = None,
    witnesses: bool = True,
    max_memory: int | None = None,
    bounded: bool = False,
) -> TestReport:
    """`check_program` for a System (a kernel): the models' threads are its
    groups, F is lifted to units, and a deadlock fails every query
    (docs/semantics.md section 8). `max_memory` bounds the resident bytes;
    with `bounded`, a missing `max_states` or `max_memory` is the default
    (KERNEL_STATES, KERNEL_MEMORY) and a stop says how to raise it."""
    budget = kernel_budget(max_states, time_limit, max_memory, bounded)
    grouping = Grouping(system.groups)
    try:
        explored = explore_system(system, budget)
        verdicts = _decide_all(explored, queries, budget, witnesses, grouping.n_threads, grouping)
    except Inconclusive as stop:
        verdicts = _stopped(queries, stop)
    return TestReport(system, system.digest, tuple(verdicts))


KERNEL_STATES = 2_000_000
"""`progress check`'s state bound for a kernel when --max-states is not given."""
KERNEL_MEMORY = 4 << 30
"""`progress check`'s resident-memory bound (bytes) for a kernel when --max-memory is not given."""
RAISE_HINT = (
    " (raise it with --max-states N or --max-memory MIB, or check a smaller launch: --workgroups, --local-size)"
)


def kernel_budget(max_states: int | None, time_limit: float | None, max_memory: int | None, bounded: bool) -> Budget:
    """The budget of one kernel check; `bounded` fills in the defaults (`check_system`)."""
    if not bounded:
        return Budget(max_states, time_limit, max_bytes=max_memory)
    return Budget(
        KERNEL_STATES if max_states is None else max_states,
        time_limit,
        max_bytes=KERNEL_MEMORY if max_memory is None else max_memory,
        hint=RAISE_HINT,
        default=max_states is None,
    )


def _decide_all(
    explored: ProgramLTS,
    queries: list[Query],
    budget: Budget,
    witnesses: bool,
    n: int,
    grouping: Grouping | None = None,
) -> list[Verdict]:
    """Decide each query; shares products, SCCs and results between queries.

    Two queries on one LTS with equal fairness and equal F on every cycle get
    the same witness set (lassos may still differ in F along the path), and a
    weak pass implies a strong pass (docs/semantics.md section 4). A
    reachable deadlock is the witness of every query (section 8)."""
    groups = None if grouping is None else grouping.groups
    products: dict[int, _Annotated] = {}
    fair_of: dict[str, tuple[list[int], tuple[int, ...]]] = {}
    answers: dict[tuple[int, str, tuple[int, ...]], list[int] | None] = {}
    weak_passes: set[str] = set()
    plans: Plans = {}
    verdicts = []
    for query in queries:
        model, memory = query.model, query.model.memory
        if id(memory) not in products:
            products[id(memory)] = _annotate(product(explored.lts, memory, n, budget, groups))
        annotated = products[id(memory)]
        lts = annotated.lts
        fairness = WEAK if query.fairness == NO_FAIRNESS else query.fairness
        members, lasso = None, None
        if explored.deadlocks:
            if model.name not in fair_of:
                fair_of[model.name] = annotated.fair_sets(model, n, grouping)
            if witnesses:
                lasso = deadlock_lasso(explored, lts, fair_of[model.name][0], fairness, plans)
            verdicts.append(Verdict(model.name, query.fairness, False, lts.size, lts.transitions, lasso))
            continue
        if not (fairness == STRONG and model.name in weak_passes):
            if model.name not in fair_of:
                fair_of[model.name] = annotated.fair_sets(model, n, grouping)
            fair, on_cycles = fair_of[model.name]
            key = (id(memory), fairness, on_cycles)
            if key not in answers:
                answers[key] = witness(lts, fair, fairness, annotated.cycles)
            members = answers[key]
            if members is not None and witnesses:
                lasso = build_lasso(explored, lts, fair, members, fairness, plans, on_cycles)
        if members is None and fairness == WEAK:
            weak_passes.add(model.name)
        verdicts.append(Verdict(model.name, query.fairness, members is None, lts.size, lts.transitions, lasso))
    return verdicts


class _Annotated(NamedTuple):
    """An LTS with its cycles and its states grouped by (enabled, memory),
    the only inputs of F: `kinds[g]` is the pair of every state s with
    `group[s] == g`; `cycle_groups` are the groups met on cycles."""

    lts: LTS
    cycles: list[Cycle]
    group: list[int]
    kinds: list[tuple[int, Hashable]]
    cycle_groups: list[int]

    def fair_sets(
        self, model: ProgressModel, n_threads: int, grouping: Grouping | None = None
    ) -> tuple[list[int], tuple[int, ...]]:
        """F of every state, and F of each group met on a cycle; with a
        grouping, F of the threads enabled (a thread is enabled while one of
        its units is) lifted to their enabled units."""
        fair = model.fair
        if grouping is None:
            table = [fair(enabled, memory, n_threads) for enabled, memory in self.kinds]
        else:
            threads_of, units_of = grouping.threads_of, grouping.units_of
            table = [units_of(fair(threads_of(enabled), memory, n_threads), enabled) for enabled, memory in self.kinds]
        return [table[g] for g in self.group], tuple([table[g] for g in self.cycle_groups])


def _annotate(lts: LTS) -> _Annotated:
    index: dict[tuple[int, Hashable], int] = {}
    group = [index.setdefault(pair, len(index)) for pair in zip(lts.enabled, lts.memory)]
    found = cycles(lts)
    cycle_groups = sorted({group[s] for c in found for s in c.states})
    return _Annotated(lts, found, group, list(index), cycle_groups)


def fair_sets(lts: LTS, model: ProgressModel, n_threads: int, grouping: Grouping | None = None) -> list[int]:
    """F of every state of `lts` under `model` (lifted to units with a grouping)."""
    fair = model.fair
    if grouping is None:
        return [fair(enabled, memory, n_threads) for enabled, memory in zip(lts.enabled, lts.memory)]
    threads_of, units_of = grouping.threads_of, grouping.units_of
    return [units_of(fair(threads_of(e), memory, n_threads), e) for e, memory in zip(lts.enabled, lts.memory)]
