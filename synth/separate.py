"""Tests that separate two verdicts: pass A, fail B, and meet docs/semantics.md section 6.

`separate(a, b, limit, rule)` searches sizes in increasing order (threads,
then instructions; locations and values are resolved inside a size, see
`footprint`) and stops at the first size that holds a separating test, or
proves that none exists up to `limit` (every size is exhausted, or skipped by
`dominated`, which is a proof too). The candidates are the synthesizer's
(synth/space.py: constraint 4, canonical location order, static pruning) and
are judged against constraints 1-3, 5, 6 by the enum engine; a test is then
checked only under the verdicts the requirement names (two, or four under the
paper's rule), not all eleven.

Rules (docs/classify.md): under the lattice rule a test separates A from B
iff it passes A and fails B. Under the paper's rule it must also be in A's
fairness class of Table 4: a weak test (passes weak fair) when A is weak, a
strong test (fails weak fair, passes strong fair) when A is strong.

The lattice's edges are the covering pairs of the product order of
progress.core.classify (each model x weak/strong against the points directly below
it). Pure: no files, no printing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from progress.core import batch
from progress.core.analyze import NO_FAIRNESS, Query, check_program, queries_for
from progress.core.canonical import canonical_hash
from progress.core.check import STRONG, WEAK
from progress.core.classify import (
    LATTICE,
    PAPER,
    RULES,
    TOP,
    Column,
    at_or_below,
    cell_text,
    columns_for,
    strictly_below,
)
from progress.models.base import ProgressModel

from . import canonical, fast_judge
from .space import Bounds, Candidate, partitions

MIN_THREADS = 2
"""Smaller programs are never tests: constraint 6 needs another thread to share a location with."""


@dataclass(frozen=True)
class Requirement:
    """A test must pass every column of `passes` and fail every column of `fails`."""

    a: Column
    b: Column
    rule: str
    passes: tuple[Column, ...]
    fails: tuple[Column, ...]

    @property
    def columns(self) -> tuple[Column, ...]:
        return self.passes + self.fails

    def met_by(self, verdicts: dict[str, bool | None]) -> bool:
        """Whether verdicts (keyed by column label, True = passes) meet it."""
        return all(verdicts.get(c.label) is True for c in self.passes) and all(
            verdicts.get(c.label) is False for c in self.fails
        )

    @property
    def text(self) -> str:
        return f"pass {self.a.label}, fail {self.b.label} ({self.rule} rule)"


def parse_point(text: str, models: Iterable[ProgressModel]) -> Column:
    """`LOBE/strong`, `hsa+obe/weak`, `unfair`: a verdict column (ValueError if none)."""
    name, _, fairness = text.strip().partition("/")
    fairness = fairness.strip().lower()
    key = name.strip().upper().replace("_", "+").replace("-", "+")
    for model in models:
        if model.name.upper() == key:
            if not model.has_fairness:
                if fairness not in ("", NO_FAIRNESS):
                    raise ValueError(f"{model.name} has no fairness: write {model.name!r}, not {text!r}")
                return Column(model.name, NO_FAIRNESS)
            if fairness not in (WEAK, STRONG):
                raise ValueError(f"{text!r}: give the fairness, e.g. {model.name}/weak or {model.name}/strong")
            return Column(model.name, fairness)
    known = ", ".join(m.name for m in models)
    raise ValueError(f"unknown progress model {name.strip()!r} in {text!r} (known: {known})")


def requirement(a: Column, b: Column, rule: str = LATTICE) -> Requirement:
    """What a test separating A from B must do under `rule`."""
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r} (known: {', '.join(RULES)})")
    if a == b:
        raise ValueError(f"no test passes and fails {a.label}")
    passes, fails = [a], [b]
    if rule == PAPER:
        if a.fairness == NO_FAIRNESS:
            raise ValueError(f"the paper's rule has no class for {a.label} (it has no fairness)")
        weak_fair, strong_fair = Column(TOP, WEAK), Column(TOP, STRONG)
        if a.fairness == WEAK:
            passes.append(weak_fair)
        else:
            fails.append(weak_fair)
            passes.append(strong_fair)
    passes = list(dict.fromkeys(passes))
    fails = list(dict.fromkeys(fails))
    if set(passes) & set(fails):
        raise ValueError(f"under the {rule} rule no test can {Requirement(a, b, rule, (), ()).text}")
    return Requirement(a, b, rule, tuple(passes), tuple(fails))


def edges(models: list[ProgressModel]) -> list[tuple[Column, Column]]:
    """(upper, lower) for every covering pair of the lattice, bottom-up, weak edges first."""
    columns = columns_for(models)
    closure = at_or_below(models)
    below = {c: set(strictly_below(c, columns, closure)) for c in columns}
    rank = {m.name: m.rank for m in models}
    found = []
    for upper in columns:
        for lower in below[upper]:
            if not any(lower in below[middle] for middle in below[upper]):
                found.append((upper, lower))

    def order(edge):
        upper, lower = edge
        level = {NO_FAIRNESS: 0, WEAK: 1, STRONG: 2}
        return (
            level[upper.fairness],
            len(closure[upper.model]),
            rank[upper.model],
            level[lower.fairness],
            rank[lower.model],
        )

    return sorted(found, key=order)


def dominated(req: Requirement, models: dict[str, ProgressModel], threads: int) -> str | None:
    """Why no program with `threads` threads can meet `req`, or None.

    If A and B share one memory (one product LTS) and fairness, and F_A is a
    subset of F_B in every state, then every B witness is an A witness (weak:
    the threads always in F_A are among those always in F_B, and they step;
    strong: closed under F_B steps implies closed under F_A steps), so no test
    passes A and fails B. Checked for every enabled set and every memory value
    the model memory can reach with `threads` threads (a superset of the
    states of any program)."""
    a, b = models[req.a.model], models[req.b.model]
    fairness = {c.fairness if c.fairness != NO_FAIRNESS else WEAK for c in (req.a, req.b)}
    if a.memory is not b.memory or len(fairness) != 1:
        return None
    memories, todo = {a.memory.initial(threads)}, [a.memory.initial(threads)]
    while todo:
        memory = todo.pop()
        for t in range(threads):
            after = a.memory.after(memory, t)
            if after not in memories:
                memories.add(after)
                todo.append(after)
    for memory in memories:
        for enabled in range(1 << threads):
            left = a.fair(enabled, memory, threads) if a.has_fairness else 0
            right = b.fair(enabled, memory, threads) if b.has_fairness else 0
            if left & ~right:
                return None
    return (
        f"with {threads} threads F({a.name}) is a subset of F({b.name}) in every state, "
        f"so every {req.b.label} witness is a {req.a.label} witness"
    )


def footprint(candidate: Candidate) -> tuple[int, int]:
    """(locations used, values needed) of a test: the smallest L and V whose space holds it."""
    locations = {ins[0] for code in candidate for ins in code}
    values = max([1] + [max(ins[1], ins[4]) for code in candidate for ins in code]) + 1
    return len(locations), max(2, values)


@dataclass
class SizeReport:
    """One size searched: how many candidates were judged on their LTS, how
    many met section 6, the separating ones (canonical order), or why the
    size needed no search (`skipped`)."""

    bounds: Bounds
    candidates: int = 0
    tests: int = 0
    separating: list[Candidate] = field(default_factory=list)
    skipped: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class Hit:
    """The first size with a separating test: `bounds` has its threads and
    instructions and the fewest locations, then values, that hold one;
    `tests` are the separating tests within `bounds` (canonical order), and
    `within_limit` all of that size within the search's limit."""

    bounds: Bounds
    tests: list[Candidate]
    within_limit: list[Candidate]

    @property
    def smallest(self) -> Candidate:
        return self.tests[0]


@dataclass
class Separation:
    """The outcome: every size covered, in order; the last one holds the
    separating tests when there are any (`hit`)."""

    requirement: Requirement
    limit: Bounds
    sizes: list[SizeReport]

    @property
    def found(self) -> SizeReport | None:
        return self.sizes[-1] if self.sizes and self.sizes[-1].separating else None

    @property
    def hit(self) -> Hit | None:
        found = self.found
        if found is None:
            return None
        locations, values = min(footprint(c) for c in found.separating)
        tests = [c for c in found.separating if footprint(c)[0] <= locations and footprint(c)[1] <= values]
        bounds = Bounds(found.bounds.threads, found.bounds.instructions, locations, values)
        return Hit(bounds, tests, found.separating)


def sizes(limit: Bounds) -> list[Bounds]:
    """Threads, then instructions, increasing, up to `limit` (locations and values fixed)."""
    return [
        Bounds(t, i, limit.locations, limit.values)
        for t in range(MIN_THREADS, limit.threads + 1)
        for i in range(t, limit.instructions + 1)
    ]


def queries(columns: Iterable[Column], models: dict[str, ProgressModel]) -> list[Query]:
    return [Query(models[c.model], c.fairness) for c in dict.fromkeys(columns)]


def verdicts_of(candidate: Candidate, query_list: list[Query]) -> dict[str, bool | None]:
    """Column label -> True (passes) / False / None, checked under `query_list` only."""
    report = check_program(canonical.to_program(candidate), query_list, witnesses=False)
    return {Column(v.model, v.fairness).label: v.terminates for v in report.verdicts}


def tests_by_unit(bounds: Bounds, on_unit: Callable[[int, int], None] | None = None) -> Iterable[list[Candidate]]:
    """Every test of `bounds` (section 6), one list per work unit of the
    streamed space, judged by the compiled judge (synth/fast_judge.py: the
    same candidates and verdicts as the enum engine, tested there)."""
    space = fast_judge.stream_space(bounds)
    for unit_id in range(space.unit_count):
        search = fast_judge.judge_unit(bounds, unit_id)
        if on_unit:
            on_unit(search.judged, space.unit_count)
        yield list(search.found)


def search_size(
    bounds: Bounds,
    reqs: list[Requirement],
    models: dict[str, ProgressModel],
    on_unit: Callable[[int, int], None] | None = None,
) -> list[SizeReport]:
    """Exhaust one size for several requirements at once (one report each).

    Each test is checked only under the columns the requirements name, a
    unit's tests at once by the compiled batch classifier (progress.core.batch)."""
    started = time.monotonic()
    reports = [SizeReport(bounds) for _ in reqs]
    query_list = queries([c for r in reqs for c in r.columns], models)
    counted = {"candidates": 0}

    def count(judged: int, units: int) -> None:
        counted["candidates"] += judged
        if on_unit:
            on_unit(judged, units)

    labels = [Column(q.model.name, q.fairness).label for q in query_list]
    tests = 0
    for found in tests_by_unit(bounds, count):
        tests += len(found)
        programs = [canonical.to_program(c) for c in found]
        for candidate, cells in zip(found, batch.verdicts(programs, query_list)):
            verdicts = dict(zip(labels, cells))
            for req, report in zip(reqs, reports):
                if req.met_by(verdicts):
                    report.separating.append(candidate)
    elapsed = time.monotonic() - started
    for report in reports:
        report.candidates, report.tests, report.seconds = counted["candidates"], tests, elapsed
        report.separating.sort(key=canonical.sort_key)
    return reports


def search_size_z3(bounds: Bounds, req: Requirement, models: dict[str, ProgressModel]) -> SizeReport:
    """One size by counterexample-guided search: Z3 proposes tests that fail
    B (synth/z3_engine.SeparationEncoding: the constraints and a fair lasso
    for B in one problem), each is checked under the other columns
    explicitly, and every proposal is blocked (its whole renaming class)
    until the solver answers unsat. `tests` counts the proposals."""
    from .z3_engine import solve_failing  # z3 is imported only when asked for

    started = time.monotonic()
    report = SizeReport(bounds)
    others = [c for c in req.columns if c != req.b]
    query_list = queries(others, models)
    fairness = WEAK if req.b.fairness == NO_FAIRNESS else req.b.fairness
    for lengths in partitions(bounds):
        for candidate in solve_failing(lengths, bounds, models[req.b.model], fairness):
            report.tests += 1
            verdicts = verdicts_of(candidate, query_list)
            verdicts[req.b.label] = False
            if req.met_by(verdicts):
                report.separating.append(candidate)
    report.separating.sort(key=canonical.sort_key)
    report.seconds = time.monotonic() - started
    return report


ENGINES = ("enum", "z3")
DEFAULT_ENGINE = "enum"
"""The faster on every size measured (benchmarks/bench_separate.py, docs/results/separation.md)."""


def separate_all(
    reqs: list[Requirement],
    limit: Bounds,
    models: list[ProgressModel],
    on_size: Callable[[Bounds], None] | None = None,
    on_unit: Callable[[int, int], None] | None = None,
    engine: str = DEFAULT_ENGINE,
) -> list[Separation]:
    """`separate` for several requirements, sharing one pass over each size
    (enum; z3 searches each requirement on its own): each requirement stops
    at its own first size with a test."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")
    by_name = {m.name: m for m in models}
    results = [Separation(r, limit, []) for r in reqs]
    for bounds in sizes(limit):
        active = []
        for result in results:
            if result.found:
                continue
            reason = dominated(result.requirement, by_name, bounds.threads)
            if reason:
                result.sizes.append(SizeReport(bounds, skipped=reason))
            else:
                active.append(result)
        if not active:
            continue
        if on_size:
            on_size(bounds)
        if engine == "z3":
            for result in active:
                result.sizes.append(search_size_z3(bounds, result.requirement, by_name))
            continue
        for result, report in zip(active, search_size(bounds, [r.requirement for r in active], by_name, on_unit)):
            result.sizes.append(report)
    return results


def separate(
    req: Requirement,
    limit: Bounds,
    models: list[ProgressModel],
    on_size: Callable[[Bounds], None] | None = None,
    on_unit: Callable[[int, int], None] | None = None,
    engine: str = DEFAULT_ENGINE,
) -> Separation:
    """The smallest tests meeting `req` within `limit`, or the proof that none exists."""
    return separate_all([req], limit, models, on_size, on_unit, engine)[0]


def expect_line(candidate: Candidate, models: list[ProgressModel]) -> str:
    """The `# expect:` line of every verdict (progress/front/expect.py's format)."""
    report = check_program(canonical.to_program(candidate), queries_for(models), witnesses=False)
    cells = [f"{Column(v.model, v.fairness).label} {cell_text(v.terminates)}" for v in report.verdicts]
    return "# expect: " + " | ".join(cells)


def axb_text(candidate: Candidate, name: str, comments: list[str], models: list[ProgressModel]) -> str:
    """The test as `.axb`: `test NAME`, the comments, its canonical hash and
    `# expect:` line, then the threads."""
    program = canonical.to_program(candidate, name)
    head, body = program.to_axb().split("\n", 1)
    lines = [head] + [f"# {c}" if c else "#" for c in comments]
    lines += [f"# canonical hash {canonical_hash(program)}", expect_line(candidate, models)]
    return "\n".join(lines + [body])
