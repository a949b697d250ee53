"""Check one program under a list of (model, fairness) queries.

The program LTS is explored once; each distinct model Memory gets one product
LTS, shared by every model that uses it. Pure: no files, no printing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from progress.core.canonical import canonical_hash
from progress.core.check import STRONG, WEAK, Cycle, cycles, scoped_strong_witness, scoped_weak_witness, witness
from progress.core.lts import LTS, Budget, ProgramLTS, explore, explore_system, product
from progress.core.program import Program
from progress.core.reduce import Accesses, Reduced, expand, probe, reduce_system, supports
from progress.core.scoped import Hierarchy, ScopedFair, ScopedModel, at_scope
from progress.core.semantics import compile_program
from progress.core.system import Grouping, System
from progress.core.unit_symmetry import Quotient
from progress.core.witness import Lasso, Plans, build_lasso, deadlock_lasso
from progress.errors import Inconclusive
from progress.models import fair as fair_model
from progress.models import hsa, hsa_obe, lobe, obe, unfair
from progress.models.base import NONE, STARTED, ProgressModel

NO_FAIRNESS = "none"
LARGE = 50_000
"""An LTS of more states sends the program to the compiled checker
(progress/core/scale.py, lassos by progress/core/scale_lasso.py); smaller tests stay here,
without numba's start-up."""
FAIRNESSES = (WEAK, STRONG)


@dataclass(frozen=True)
class Query:
    model: ProgressModel | ScopedModel
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


def queries_for(models: Iterable[ProgressModel | ScopedModel], fairnesses: Iterable[str] = FAIRNESSES) -> list[Query]:
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
    scope: str = "workgroup",
) -> TestReport:
    """Every query's verdict; an LTS past LARGE states hands the program to
    the compiled checker unless `max_states` is at most LARGE,
    and back here with the caller's bounds if it does not fit there.

    `scope` places the threads (docs/semantics.md section 10): each its own
    workgroup (section 8's reading, where a scoped model (M, x, y) is M), each
    its own subgroup of one workgroup, or the lanes of one subgroup; there a
    bare model M means M at that scope, fair at the others."""
    digest = canonical_hash(program)
    if scope != "workgroup":
        return TestReport(
            program, digest, tuple(_check_scoped(program, queries, scope, max_states, time_limit, witnesses))
        )
    asked = queries
    queries = [Query(q.model.workgroup, q.fairness) if isinstance(q.model, ScopedModel) else q for q in queries]
    if queries != asked:
        report = check_program(program, queries, max_states=max_states, time_limit=time_limit, witnesses=witnesses)
        named = tuple(v._replace(model=q.model.name) for v, q in zip(report.verdicts, asked))
        return TestReport(program, digest, named)
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


def _check_scoped(
    program: Program,
    queries: list[Query],
    scope: str,
    max_states: int | None,
    time_limit: float | None,
    witnesses: bool,
) -> list[Verdict]:
    """AXB threads placed at `scope` of a Hierarchy: always here, never the compiled checker."""
    from progress.core.registry import find_model  # the entry points, read once

    fair = find_model("fair")
    scoped = [
        q if isinstance(q.model, ScopedModel) else Query(at_scope(q.model, scope, fair, q.model.name), q.fairness)
        for q in queries
    ]
    n = len(program.threads)
    budget = Budget(max_states, time_limit)
    try:
        explored = explore(compile_program(program), budget)
        return _decide_all(explored, scoped, budget, witnesses, n, hierarchy=Hierarchy.axb(n, scope))
    except Inconclusive as stop:
        return _stopped(scoped, stop)


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
    asks = [(q.model, q.fairness == STRONG) for q in queries if isinstance(q.model, ProgressModel)]
    assert len(asks) == len(queries), "scoped models are reduced before the compiled checker"
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
    reduce: bool = False,
    engine: str = "auto",
) -> TestReport:
    """`check_program` for a System (a kernel): the models' threads are its
    groups, F is lifted to units, and a deadlock fails every query
    (docs/semantics.md section 8). `max_memory` bounds the resident bytes;
    with `bounded`, a missing `max_states` or `max_memory` is the default
    (KERNEL_STATES, KERNEL_MEMORY) and a stop says how to raise it. With
    `reduce`, private steps are folded into normal forms where the system and
    every query allow it (`progress.core.reduce`, section 11), or, when a
    probe sees no private cell, the system is checked up to permutations of
    interchangeable invocations (`progress.core.unit_symmetry`, section 12):
    the same verdicts, fewer states, lassos of the original system. `engine`:
    "auto" (past KERNEL_LARGE states the compiled checker), "python" or
    "compiled" (for tests and benchmarks; a kernel the compiled explorer
    does not take, `compiles`, stays here)."""
    budget = kernel_budget(max_states, time_limit, max_memory, bounded)
    grouping = Grouping(system.groups)
    hierarchy = Hierarchy.of_sizes(system.groups, getattr(system, "subgroup_size", None))
    try:
        symmetric = None
        if reduce and supports(system) and reducible(system, queries):
            seen = probe(system, budget=budget)
            quiet = seen.arrivals > 0 and foldable(system, queries)
            grouped = _check_groups(system, queries, budget, witnesses, grouping, seen if quiet else None, engine)
            if grouped is not None:
                rest = [q for q, v in zip(queries, grouped) if v is None]
                if rest:  # the models section 14 does not keep (HSA, HSA+OBE, LOBE), checked without it
                    left = None if budget.deadline is None else max(0.001, budget.deadline - time.monotonic())
                    others = iter(
                        check_system(
                            system, rest, max_states=max_states, time_limit=left, witnesses=witnesses,
                            max_memory=max_memory, bounded=bounded, reduce=True, engine=engine,
                        ).verdicts
                    )  # fmt: skip
                    grouped = [v if v is not None else next(others) for v in grouped]
                return TestReport(system, system.digest, tuple(v for v in grouped if v is not None))
            if not seen.guess().any and not quiet:  # no private cell or barrier: interchangeable invocations first
                if _large(system, engine):
                    symmetric = _check_quotient_compiled(system, queries, budget, witnesses)
                else:
                    symmetric = _check_quotient(system, queries, budget, witnesses, grouping, hierarchy)
        if symmetric is not None:
            verdicts = symmetric
        elif reduce and supports(system) and reducible(system, queries):
            quiet = foldable(system, queries)
            fast = None
            if quiet and _large(system, engine):
                fast = _check_reduced_compiled(system, queries, budget, witnesses, grouping, seen)
            if fast is not None:
                verdicts = fast
            else:
                reduced, explored = reduce_system(system, budget, seen, quiet=quiet)
                verdicts = _decide_all(explored, queries, budget, witnesses, grouping.n_threads, grouping, hierarchy)
                verdicts = [_expanded(reduced, v, q, grouping) for v, q in zip(verdicts, queries)]
        else:
            compiled = engine == "compiled" and compiles(system)
            found = None if compiled else _explore_or_none(system, budget, engine == "auto")
            if found is None:
                verdicts = _check_compiled(system, queries, budget, witnesses, grouping, hierarchy)
            else:
                verdicts = _decide_all(found, queries, budget, witnesses, grouping.n_threads, grouping, hierarchy)
    except Inconclusive as stop:
        verdicts = _stopped(queries, stop)
    return TestReport(system, system.digest, tuple(verdicts))


KERNEL_LARGE = 20_000
"""A kernel whose program LTS passes this many states goes to the compiled
checker (progress/core/kernel_jit.py, kernel_decide.py) unless the caller's
state bound is at most this; smaller ones stay here, without numba's start-up."""


def compiles(system: System) -> bool:
    """Whether the compiled explorer takes `system`: a kernel with step tables
    (`kernel_jit.Tabled`) and without collective (subgroup) steps."""
    return hasattr(system, "step_result") and not getattr(system, "collective", False)


def _explore_or_none(system: System, budget: Budget, handing: bool = True) -> ProgramLTS | None:
    """The program LTS by `explore_system`, or None once it passes KERNEL_LARGE
    states where the compiled explorer can take over (`handing`; the budget's
    other bounds still stop it here)."""
    small = budget.max_states is not None and budget.max_states <= KERNEL_LARGE
    if not handing or not compiles(system) or small:
        return explore_system(system, budget)
    probe = Budget(KERNEL_LARGE, None, max_bytes=budget.max_bytes, hint=budget.hint)
    probe.deadline = budget.deadline
    try:
        return explore_system(system, probe)
    except Inconclusive as stop:
        if stop.states <= KERNEL_LARGE:
            raise
        return None


def _check_compiled(
    system: System,
    queries: list[Query],
    budget: Budget,
    witnesses: bool,
    grouping: Grouping,
    hierarchy: Hierarchy | None,
) -> list[Verdict]:
    """The verdicts of the compiled kernel checker; the queries it does not
    decide (`kernel_decide.model_of`) on the Python LTS of its graph."""
    from progress.core.kernel_decide import decide_queries, model_of, python_lts  # loads numba: large kernels only
    from progress.core.kernel_jit import explore_kernel

    graph = explore_kernel(system, budget.max_states, budget.deadline, budget)  # type: ignore[arg-type]
    here = [(i, model_of(q.model)) for i, q in enumerate(queries)]
    asks = [(m, WEAK if queries[i].fairness == NO_FAIRNESS else queries[i].fairness) for i, m in here if m]
    decided = decide_queries(system, graph, asks, budget, witnesses)
    verdicts: list[Verdict | None] = [None] * len(queries)
    for (i, _), d in zip([h for h in here if h[1]], decided):
        q = queries[i]
        verdicts[i] = Verdict(q.model.name, q.fairness, d.terminates, d.states, d.transitions, d.witness)
    rest = [i for i, m in here if m is None]
    if rest:
        explored = python_lts(system, graph)
        others = _decide_all(
            explored, [queries[i] for i in rest], budget, witnesses, grouping.n_threads, grouping, hierarchy
        )
        for i, v in zip(rest, others):
            verdicts[i] = v
    return [v for v in verdicts if v is not None]


LARGE_LAUNCH = 16
"""With `reduce`, a kernel of at least this many invocations is explored by the
compiled explorer (`engine="auto"`): the Python one spends most of its time
per state on long rows."""


def _large(system: System, engine: str) -> bool:
    """Whether a reduced check goes to the compiled explorer."""
    return compiles(system) and (engine == "compiled" or (engine == "auto" and len(system.groups) >= LARGE_LAUNCH))


def _asks(queries: list[Query]) -> list[tuple[ProgressModel, str]] | None:
    """The compiled checker's (model, fairness) of each query, or None if one is not its."""
    from progress.core.kernel_decide import model_of  # loads numba: large kernels only

    asks = []
    for q in queries:
        model = model_of(q.model)
        if model is None:
            return None
        asks.append((model, WEAK if q.fairness == NO_FAIRNESS else q.fairness))
    return asks


def _check_quotient_compiled(
    system: System, queries: list[Query], budget: Budget, witnesses: bool
) -> list[Verdict] | None:
    """`_check_quotient` explored and decided compiled (`kernel_reduce.decide_quotient`)."""
    from progress.core.kernel_reduce import decide_quotient  # loads numba: large kernels only

    asks = _asks(queries)
    found = None if asks is None else decide_quotient(system, budget, asks, witnesses)  # type: ignore[arg-type]
    if found is None:
        return None
    quotient, decided = found
    verdicts = [
        Verdict(q.model.name, q.fairness, d.terminates, d.states, d.transitions, d.witness)
        for q, d in zip(queries, decided)
    ]
    return [v._replace(witness=quotient.concrete(v.witness)) if v.witness else v for v in verdicts]


def _check_reduced_compiled(
    system: System, queries: list[Query], budget: Budget, witnesses: bool, grouping: Grouping, seen: Accesses
) -> list[Verdict] | None:
    """The verdicts on the normal forms with quiet steps (section 13), explored
    and decided compiled (`progress.core.kernel_reduce`), or None where the
    compiled explorer gives up (the Python path checks then)."""
    from progress.core.kernel_reduce import decide_reduced  # loads numba: large kernels only

    asks = _asks(queries)
    if asks is None:
        return None
    found = decide_reduced(system, budget, seen, asks, witnesses)  # type: ignore[arg-type]
    if found is None:
        return None
    reduced, decided = found
    verdicts = [
        Verdict(q.model.name, q.fairness, d.terminates, d.states, d.transitions, d.witness)
        for q, d in zip(queries, decided)
    ]
    return [_expanded(reduced, v, q, grouping) for v, q in zip(verdicts, queries)]


def _check_groups(
    system: System,
    queries: list[Query],
    budget: Budget,
    witnesses: bool,
    grouping: Grouping,
    seen: Accesses | None,
    engine: str,
) -> list[Verdict | None] | None:
    """The verdicts of the queries that section 14's quotient by workgroup
    permutations keeps (unfair, fair, OBE; explored and decided compiled by
    `kernel_reduce.decide_groups`, over section 13's normal forms when
    `seen` is given), and of those their passes decide by containment
    (section 14.4: an unfair pass passes every model, an OBE pass HSA+OBE and
    LOBE); None for the others. None where it does not apply."""
    if not _large(system, engine) or not hasattr(system, "workgroup_cells"):
        return None
    from progress.core.group_symmetry import refair, symmetric_model  # loads numba: large kernels only
    from progress.core.kernel_reduce import decide_groups

    asks = _asks(queries)
    if asks is None:
        return None
    mine = [i for i, (model, _) in enumerate(asks) if symmetric_model(model)]
    if not mine:
        return None
    found = decide_groups(system, budget, [asks[i] for i in mine], witnesses, seen)  # type: ignore[arg-type]
    if found is None:
        return None
    groups, reduced, decided = found
    out: list[Verdict | None] = [None] * len(queries)
    for i, d in zip(mine, decided):
        q = queries[i]
        verdict = Verdict(q.model.name, q.fairness, d.terminates, d.states, d.transitions, d.witness)
        if verdict.witness is not None:
            start = system.initial if reduced is None else reduced.initial
            lasso = groups.concrete(verdict.witness, start)  # type: ignore[arg-type]
            if reduced is not None:
                verdict = _expanded(reduced, verdict._replace(witness=lasso), q, grouping)
            else:
                model = asks[i][0]
                fair = _unit_fair(model, grouping)
                verdict = verdict._replace(witness=refair(system, lasso, fair, model.memory is STARTED))
        out[i] = verdict
    for i in mine:
        source, (model, fairness) = out[i], asks[i]
        if source is None or not source.terminates:
            continue
        for j, (other, other_fairness) in enumerate(asks):
            inherits = model is unfair.MODEL or (
                model is obe.MODEL and other in (hsa_obe.MODEL, lobe.MODEL) and other_fairness == fairness
            )
            if out[j] is None and inherits:
                q = queries[j]
                out[j] = Verdict(q.model.name, q.fairness, True, source.states, source.transitions)
    return out


def _unit_fair(model: ProgressModel, grouping: Grouping) -> Callable[[int, int | None], int]:
    """F over units of `model`: its F over workgroups lifted to their enabled units."""
    threads_of, units_of, n = grouping.threads_of, grouping.units_of, grouping.n_threads

    def fair(enabled: int, memory: int | None) -> int:
        return units_of(model.fair(threads_of(enabled), memory, n), enabled)

    return fair


def reducible(system: System, queries: list[Query]) -> bool:
    """Whether `progress.core.reduce` applies: the system says what its steps
    touch, every scoped model is plain (its inner scopes fair: section 8's
    meaning), and every model remembers at most which workgroups have
    started (NONE or STARTED), which a private step never changes."""
    models = [q.model.workgroup if isinstance(q.model, ScopedModel) else q.model for q in queries]
    plain = all(q.model.plain for q in queries if isinstance(q.model, ScopedModel))
    collective = getattr(system, "collective", False)  # subgroup steps move several units at once
    return (
        plain and not collective and supports(system) and all(m.memory is NONE or m.memory is STARTED for m in models)
    )


def foldable(system: System, queries: list[Query]) -> bool:
    """Whether quiet steps may be folded too (docs/semantics.md section 13):
    the system tells barrier arrivals apart (`arriving`) and every model is
    a built-in one, whose F is unchanged when an enabled workgroup outside
    it is disabled (13.1's condition R, tests/test_kernel_quiet.py)."""
    builtin = {m.MODEL for m in (unfair, fair_model, hsa, obe, hsa_obe, lobe)}
    models = [q.model.workgroup if isinstance(q.model, ScopedModel) else q.model for q in queries]
    return hasattr(system, "arriving") and all(m in builtin for m in models)


def _check_quotient(
    system: System,
    queries: list[Query],
    budget: Budget,
    witnesses: bool,
    grouping: Grouping,
    hierarchy: Hierarchy,
) -> list[Verdict] | None:
    """The verdicts on the quotient by interchangeable invocations (section 12),
    or None where there are none, it merged no states, or an edge inside a
    cycle of the quotient is not exact (the caller checks otherwise)."""
    blocks = system.interchangeable() if hasattr(system, "interchangeable") else ()
    if not blocks:
        return None
    quotient = Quotient(system, blocks)
    explored = explore_system(quotient, budget)
    if not quotient.inexact or not quotient.exact_cycles(explored):
        return None  # nothing merged (it is the original: private steps may do better), or not usable
    verdicts = _decide_all(explored, queries, budget, witnesses, grouping.n_threads, grouping, hierarchy)
    return [v._replace(witness=quotient.concrete(v.witness)) if v.witness else v for v in verdicts]


def _expanded(reduced: Reduced, verdict: Verdict, query: Query, grouping: Grouping) -> Verdict:
    """`verdict` with its lasso, found on the reduced system, made one of the original's."""
    if verdict.witness is None:
        return verdict
    model = query.model.workgroup if isinstance(query.model, ScopedModel) else query.model
    threads_of, units_of, n = grouping.threads_of, grouping.units_of, grouping.n_threads

    def fair(enabled: int, memory: int | None) -> int:
        return units_of(model.fair(threads_of(enabled), memory, n), enabled)

    lasso = expand(reduced, verdict.witness, verdict.fairness, model.memory is STARTED, fair)
    return verdict._replace(witness=lasso)


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
    hierarchy: Hierarchy | None = None,
) -> list[Verdict]:
    """Decide each query; shares products, SCCs and results between queries.

    Two queries on one LTS with equal fairness and equal F on every cycle get
    the same witness set (lassos may still differ in F along the path), and a
    weak pass implies a strong pass (docs/semantics.md section 4). A
    reachable deadlock is the witness of every query (section 8).

    A scoped model (section 10) is decided over `hierarchy` with extended F,
    except that one whose inner scopes are fair is its workgroup model over
    `grouping` (section 10's defaults)."""
    products: dict[tuple[int, bool], _Annotated] = {}
    fair_of: dict[object, tuple[list[int], tuple[int, ...]]] = {}
    answers: dict[tuple[int, bool, str, tuple[int, ...]], list[int] | None] = {}
    weak_passes: set[object] = set()
    plans: Plans = {}
    verdicts = []
    for query in queries:
        name, model = query.model.name, query.model
        scoped = None
        if isinstance(model, ScopedModel):
            if hierarchy is None or (model.plain and grouping is not None):
                model = model.workgroup
            else:
                scoped = ScopedFair(model, hierarchy)
        if scoped is not None:
            memory = scoped.memory
        else:
            assert isinstance(model, ProgressModel)
            memory = model.memory
        groups = None if grouping is None or scoped is not None else grouping.groups
        where = (id(memory), scoped is not None)
        if where not in products:
            products[where] = _annotate(product(explored.lts, memory, n, budget, groups))
        annotated = products[where]
        lts = annotated.lts
        fairness = WEAK if query.fairness == NO_FAIRNESS else query.fairness
        members, lasso = None, None
        levels = None if scoped is None else hierarchy
        if query.model not in fair_of:
            fair_of[query.model] = annotated.fair_sets(model, n, grouping, scoped)
        fair, on_cycles = fair_of[query.model]
        if explored.deadlocks:
            if witnesses:
                lasso = deadlock_lasso(explored, lts, fair, fairness, plans, levels)
            verdicts.append(Verdict(name, query.fairness, False, lts.size, lts.transitions, lasso))
            continue
        if not (fairness == STRONG and query.model in weak_passes):
            key = (*where, fairness, on_cycles)
            if key not in answers:
                if scoped is None:
                    answers[key] = witness(lts, fair, fairness, annotated.cycles)
                elif fairness == WEAK:
                    answers[key] = scoped_weak_witness(lts, fair, scoped.h.lift, annotated.cycles)
                else:
                    h = scoped.h
                    answers[key] = scoped_strong_witness(lts, fair, h.lift, h.units, h.group_mask, annotated.cycles)
            members = answers[key]
            if members is not None and witnesses:
                lasso = build_lasso(explored, lts, fair, members, fairness, plans, on_cycles, levels)
        if members is None and fairness == WEAK:
            weak_passes.add(query.model)
        verdicts.append(Verdict(name, query.fairness, members is None, lts.size, lts.transitions, lasso))
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
        self,
        model: ProgressModel | ScopedModel,
        n_threads: int,
        grouping: Grouping | None = None,
        scoped: ScopedFair | None = None,
    ) -> tuple[list[int], tuple[int, ...]]:
        """F of every state, and F of each group met on a cycle; with a
        grouping, F of the threads enabled (a thread is enabled while one of
        its units is) lifted to their enabled units; with `scoped`, its extended F."""
        if scoped is not None:
            table = [scoped.fair(enabled, memory) for enabled, memory in self.kinds]
            return [table[g] for g in self.group], tuple([table[g] for g in self.cycle_groups])
        assert isinstance(model, ProgressModel)
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
