"""Partial-order reduction of a kernel as normal forms (docs/semantics.md section 11).

A step is *private* when it commutes with every step of every other unit and
changes no F: an access (not a barrier) of a unit that has already stepped,
to cells that the unit owns (no other unit ever touches them) or that no unit
ever writes, after which the unit is still enabled. `Reduced` is the System
whose states are the *normal forms* of the original's: every pending private
step done, unit by unit (a unit whose private steps go round forever stops at
the least state of that round, and gets a self-loop). Its steps are one step
of the original followed by the private steps it leaves pending. It has a
deadlock, a weak and a strong witness, per model, exactly when the original
has (section 11), and its lassos are made concrete again by `expand`.

With `quiet` (section 13, for the built-in models) the normal forms also
take the *quiet* steps: barrier arrivals and accesses to a unit's own cells
that disable it (its last step), once its workgroup has started; F is then
recomputed at every state of an expanded lasso.

Which cells are owned is not known before exploring: `reduce_system` guesses
it from a small breadth-first probe, and every exploration of `Reduced`
checks the guess at every state it expands; one broken guess is dropped and
the exploration starts again (section 11 says why a clean one is sound).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, TypeGuard

from progress.core.check import STRONG, WEAK, strong_witness
from progress.core.lts import LTS, Budget, ProgramLTS, explore_system
from progress.core.system import Footprinted, StepNote
from progress.core.witness import Lasso, LassoStep, build_lasso
from progress.errors import Inconclusive

PROBE = 2_000
"""States of the unreduced probe that guesses who owns which cell."""
PROBE_STEPS = 32 * PROBE
"""Steps the probe computes at most (fewer states for a launch of many invocations)."""
CHAIN = 1 << 20
"""Private steps of one unit in one normal form beyond which the check is inconclusive."""
ROUNDS = 8
"""Explorations with a broken guess after which the reduction gives up (no cell owned)."""
SHARED = -1


@dataclass(frozen=True)
class Ownership:
    """`owner[c]` is the only unit that may touch cell c; `readonly` the
    cells no unit may write. Both are guesses until an exploration checks them."""

    owner: dict[int, int]
    readonly: frozenset[int]

    @property
    def any(self) -> bool:
        """Whether some cell is owned or read-only."""
        return bool(self.owner or self.readonly)

    def private(self, unit: int, cells: tuple[int, ...], writes: bool) -> bool:
        """Whether an access of `unit` to `cells` touches only what it owns or what no one writes."""
        owner, readonly = self.owner, self.readonly
        return all(owner.get(c) == unit or (not writes and c in readonly) for c in cells)

    def broken(self, unit: int, cells: tuple[int, ...], writes: bool) -> list[int]:
        """The cells whose guess an access of `unit` to `cells` contradicts."""
        owner, readonly = self.owner, self.readonly
        return [c for c in cells if owner.get(c, unit) != unit or (writes and c in readonly)]


NOTHING = Ownership({}, frozenset())


class Accesses:
    """Who touched each cell and whether anyone wrote it, as seen by one exploration."""

    def __init__(self) -> None:
        self.by: dict[int, int] = {}  # cell -> the one unit, or SHARED
        self.written: set[int] = set()
        self.arrivals = 0
        """Barrier arrivals the probe met (what quiet steps may fold: section 13)."""

    def see(self, unit: int, cells: tuple[int, ...], writes: bool) -> None:
        by = self.by
        for c in cells:
            if by.setdefault(c, unit) != unit:
                by[c] = SHARED
        if writes:
            self.written.update(cells)

    def guess(self) -> Ownership:
        """Cells one unit touched are its own; cells nobody wrote are read-only
        (a cell of both kinds is read-only: that needs no owner)."""
        readonly = frozenset(c for c in self.by if c not in self.written)
        owner = {c: u for c, u in self.by.items() if u != SHARED and c not in readonly}
        return Ownership(owner, readonly)


PHASES = True
"""Whether quiet steps include section 15's phase reads (tests turn it off to compare)."""


class Broken(Exception):
    """An exploration met an access that contradicts its ownership guess."""

    def __init__(self, cells: list[int]):
        super().__init__(cells)
        self.cells = cells


class Round(Exception):
    """Quiet steps that go round forever through a barrier (section 13.2):
    the check is done again without folding arrivals."""


class Reduced:
    """`system` with private steps folded into normal forms: a System itself.
    With `quiet` (section 13), also the steps that only disable their unit:
    barrier arrivals and last steps of units of started workgroups."""

    def __init__(self, system: Footprinted, ownership: Ownership, accesses: Accesses, quiet: bool = False):
        self.system = system
        self.ownership = ownership
        self.accesses = accesses
        """Where every access this exploration meets is recorded (shared between explorations)."""
        self.units = range(len(system.groups))
        self.quiet = quiet
        self.phased = quiet and PHASES and hasattr(system, "phase_writes")
        """Whether section 15's phase reads are folded too (with quiet steps, kernels only)."""
        groups = system.groups
        self._mates = [tuple(v for v in self.units if groups[v] == groups[u]) for u in self.units]

    # --- the System protocol, delegated or reduced --------------------------

    def __getattr__(self, name: str) -> Any:
        return getattr(self.system, name)  # name, digest, groups, cells, note, ...

    @cached_property
    def initial(self) -> Hashable:
        return self.normal(self.system.initial)[0]

    def successors(self, state: Hashable) -> list[tuple[int, Hashable]]:
        """One step of each enabled unit, then the private steps it leaves pending;
        a unit whose own private steps go round forever steps to `state` itself."""
        system, ownership, seen = self.system, self.ownership, self.accesses
        found = []
        for unit in self.units:
            if not system.active(state, unit):
                continue
            footprint = system.footprint(state, unit)
            if footprint is not None:
                cells, writes = footprint
                seen.see(unit, cells, writes)
                bad = ownership.broken(unit, cells, writes)
                if bad:
                    raise Broken(bad)
                if self._private(state, unit, footprint):
                    found.append((unit, state))  # only a unit looping privately is poised at one in a normal form
                    continue
            assert not (self.quiet and self._private(state, unit, footprint)), "a normal form has no pending arrival"
            found.append((unit, self.normal(system.step(state, unit), self._mates[unit])[0]))
        return found

    # --- normal forms -------------------------------------------------------

    def _private(self, state: Hashable, unit: int, footprint: tuple[tuple[int, ...], bool] | None) -> bool:
        """Whether `unit`'s next step from `state` is folded: private (section
        11.1) or, with `quiet`, quiet (section 13.1)."""
        system = self.system
        if self.quiet:
            if not self._started(state, unit):
                return False
            if footprint is None:
                return system.arriving(state, unit)
            return self._phase_private(state, unit, *footprint)
        if footprint is None or not self.ownership.private(unit, *footprint):
            return False
        return not system.fresh(state, unit) and system.active(system.step(state, unit), unit)

    def _phase_private(self, state: Hashable, unit: int, cells: tuple[int, ...], writes: bool) -> bool:
        """Section 13.1's access condition, widened by section 15: every cell is
        `unit`'s own, or read-only (R), or, the access only reading, Workgroup
        memory that no other unit of the workgroup may write before its next
        barrier arrival (`phase_writes`)."""
        owner, readonly = self.ownership.owner, self.ownership.readonly
        system: Any = self.system
        phased = self.phased
        for c in cells:
            if owner.get(c) == unit or (not writes and c in readonly):
                continue
            bit = system.phase_bit(c) if phased and not writes else 0
            if not bit or any(
                system.phase_writes(system.local(state, v)) & bit for v in self._mates[unit] if v != unit
            ):
                return False
        return True

    def _started(self, state: Hashable, unit: int) -> bool:
        """Whether `unit`'s workgroup has stepped on every run to `state`."""
        fresh = self.system.fresh
        return not fresh(state, unit) or not all(fresh(state, v) for v in self._mates[unit])

    def normal(self, state: Hashable, units: range | tuple[int, ...] | None = None) -> tuple[Hashable, list[int]]:
        """The normal form of `state` and the units of the private steps to it,
        in order. `units`: the only units that may have a step pending (after
        one step of a unit from a normal form, its workgroup's: whether a step
        is folded depends on its unit's local state, its workgroup's start and
        the fixed ownership, and a step changes no other workgroup's)."""
        path: list[int] = []
        units = self.units if units is None else units
        if not self.quiet:
            for unit in units:
                state = self._chain(state, unit, path)
            return state, path
        passes: set[Hashable] = set()
        while True:  # a quiet arrival that releases its workgroup may leave others' steps pending
            if state in passes:
                raise Round()
            passes.add(state)
            before = len(path)
            for unit in units:
                state = self._chain(state, unit, path)
            if len(path) == before:
                return state, path

    def _chain(self, state: Hashable, unit: int, path: list[int]) -> Hashable:
        """`unit`'s pending private steps from `state`; round forever, the least state of the round."""
        system = self.system
        seen: dict[Hashable, int] = {}
        order: list[Hashable] = []
        while True:
            footprint = system.footprint(state, unit) if system.active(state, unit) else None
            if not self._private(state, unit, footprint):
                path += [unit] * len(order)
                return state
            if state in seen:
                first = seen[state]
                if self.quiet and any(self.system.arriving(s, unit) for s in order[first:]):
                    raise Round()
                least = min(order[first:], key=_order)
                path += [unit] * (first + order[first:].index(least))
                return least
            if len(order) >= CHAIN:
                raise Inconclusive(f"one invocation took {CHAIN} private steps in a row", len(order))
            seen[state] = len(order)
            order.append(state)
            if footprint is not None:
                self.accesses.see(unit, *footprint)
            state = system.step(state, unit)


def _order(state: Any) -> Any:
    """States are tuples of integers (`Footprinted` promises only Hashable): ordered as tuples."""
    return state


def supports(system: object) -> TypeGuard[Footprinted]:
    """Whether `system` says what its steps touch (the Footprinted protocol)."""
    return all(hasattr(system, m) for m in ("footprint", "step", "active", "fresh"))


def probe(system: Footprinted, states: int | None = None, budget: Budget | None = None) -> Accesses:
    """The accesses of the first `states` (PROBE) states of a breadth-first
    exploration, unreduced, within `budget` (its time limit and state bound)."""
    limit = PROBE if states is None else states
    units = len(system.groups)
    expanded = min(limit, max(1, PROBE_STEPS // units))  # the states whose successors it computes
    seen = Accesses()
    index = {system.initial: None}
    queue = [system.initial]
    for at, state in enumerate(queue):
        for unit in range(units):
            footprint = system.footprint(state, unit)
            if footprint is not None:
                seen.see(unit, *footprint)
            elif hasattr(system, "arriving") and system.arriving(state, unit):
                seen.arrivals += 1
        if len(queue) < limit and at < expanded:
            for _, new in system.successors(state):
                if new not in index:
                    index[new] = None
                    queue.append(new)
                    if budget is not None:
                        budget.charge(len(queue))
    return seen


def reduce_system(
    system: Footprinted, budget: Budget, seen: Accesses | None = None, quiet: bool = False
) -> tuple[Reduced, ProgramLTS]:
    """`_reduce_system` with quiet steps folded too where asked (section 13),
    and without them when they go round through a barrier (`Round`)."""
    if quiet:
        try:
            return _reduce_system(system, budget, seen, True)
        except Round:
            pass
    return _reduce_system(system, budget, seen, False)


def _reduce_system(
    system: Footprinted, budget: Budget, seen: Accesses | None, quiet: bool
) -> tuple[Reduced, ProgramLTS]:
    """The reduced system under an ownership guess that its whole exploration
    confirmed, and that exploration. The guess is made from every access
    seen so far (the probe's, then each exploration's: all of them accesses
    of reachable states), so an access that breaks it changes it for good
    (its cell becomes shared, or written); after ROUNDS broken ones, nothing
    is owned and the reduction folds nothing. A clean exploration that saw
    cells the guess did not cover (a later phase's) is tried once more with
    them, and kept if it is clean too."""
    seen = probe(system, budget=budget) if seen is None else seen  # (`seen`: a probe's, not yet used)
    clean: tuple[Reduced, ProgramLTS] | None = None
    for _ in range(ROUNDS):
        reduced = Reduced(system, seen.guess(), seen, quiet)
        try:
            explored = explore_system(reduced, budget)
        except Broken:
            if clean is not None:
                return clean
            continue
        if clean is not None or reduced.ownership == seen.guess():
            return reduced, explored
        clean = reduced, explored
    if clean is not None:
        return clean
    reduced = Reduced(system, NOTHING, Accesses(), quiet)
    return reduced, explore_system(reduced, budget)


FairOf = Callable[[int, "int | None"], int]
"""F of a state of the original: (its enabled units, the STARTED memory or None) -> the fair units."""


def expand(
    reduced: Reduced, lasso: Lasso, fairness: str = WEAK, started: bool = False, fair: FairOf | None = None
) -> Lasso:
    """`lasso`, a lasso of `reduced`, as one of the original system: each of
    its steps followed by the private steps it folds, with the F of the
    normal form they lead to (private steps change no F). A weak loop stays
    a witness so; a strong one need not (a fair step from a folded state is
    not on it), so a strong loop is built again on the original's states over
    the loop's normal forms (`_closed`; `started`: the model's memory is
    STARTED, which is the same all along a loop). With `fair`, F of every
    state is recomputed from it (needed with quiet steps: a unit poised at
    a folded arrival is enabled where its normal form has it waiting)."""
    found = _expand(reduced, lasso, fairness, started, fair)
    return found if fair is None else _refair(reduced.system, found, fair, started)


def _refair(system: Footprinted, lasso: Lasso, fair: FairOf, started: bool) -> Lasso:
    """`lasso` with the F of each step computed by `fair` at its state."""
    groups = system.groups
    state, memory = system.initial, 0
    steps = []
    for step in lasso.steps:
        mask = fair(_enabled(system, state), memory if started else None)
        steps.append(step._replace(fair=tuple(u for u in range(len(groups)) if mask >> u & 1)))
        memory |= 1 << groups[step.thread]
        state = system.step(state, step.thread)
    return replace(lasso, steps=tuple(steps))


def _enabled(system: Footprinted, state: Hashable) -> int:
    mask = 0
    for unit in range(len(system.groups)):
        if system.active(state, unit):
            mask |= 1 << unit
    return mask


def _expand(reduced: Reduced, lasso: Lasso, fairness: str, started: bool, fair_fn: FairOf | None) -> Lasso:
    system = reduced.system
    steps: list[LassoStep] = []
    where: list[int] = []  # index in the expanded lasso of each step of `lasso`
    forms: list[Hashable] = []  # the normal form each step of `lasso` starts from
    state, path = reduced.normal(system.initial)
    first_fair = lasso.steps[0].fair if lasso.steps else ()
    state = _replay(system, system.initial, path, first_fair, steps)
    for index, step in enumerate(lasso.steps):
        where.append(len(steps))
        forms.append(state)
        nxt = lasso.steps[index + 1].fair if index + 1 < len(lasso.steps) else None
        if nxt is None:
            nxt = lasso.steps[lasso.loop_start].fair if lasso.loop_start < len(lasso.steps) else step.fair
        footprint = system.footprint(state, step.thread) if system.active(state, step.thread) else None
        if reduced._private(state, step.thread, footprint):
            # a private round: the unit's own steps back to `state`
            target = state
            state = system.step(state, step.thread)
            steps.append(_step(system, step.fair, target, step.thread))
            while state != target:
                steps.append(_step(system, step.fair, state, step.thread))
                state = system.step(state, step.thread)
            continue
        steps.append(_step(system, step.fair, state, step.thread))
        after, path = reduced.normal(system.step(state, step.thread))
        state = _replay(system, system.step(state, step.thread), path, nxt, steps)
        assert state == after
    if lasso.loop_start >= len(lasso.steps):  # a deadlock
        return replace(lasso, steps=tuple(steps), loop_start=len(steps))
    loop_start = where[lasso.loop_start]
    if fairness == STRONG:
        fair = {forms[i]: _mask(lasso.steps[i].fair) for i in range(lasso.loop_start, len(lasso.steps))}
        stem = tuple(steps[:loop_start])
        groups = system.groups
        memory = None
        if started:
            memory = 0
            for step in stem + tuple(steps[loop_start:]):
                memory |= 1 << groups[step.thread]
        closed = _closed(reduced, forms[lasso.loop_start], fair, memory, fair_fn)
        shift = len(stem)
        return replace(
            closed,
            steps=stem + closed.steps,
            loop_start=shift + closed.loop_start,
            escapes=tuple((shift + i, t) for i, t in closed.escapes),
            names=lasso.names,
        )
    escapes = tuple((where[i], t) for i, t in lasso.escapes)
    return replace(lasso, steps=tuple(steps), loop_start=loop_start, escapes=escapes)


def _closed(
    reduced: Reduced, start: Hashable, fair_of: dict[Hashable, int], memory: int | None, fair_fn: FairOf | None = None
) -> Lasso:
    """A strong lasso from `start` over the original's states whose normal
    form is one of `fair_of`'s (the normal forms of a strong loop of the
    reduced system, with their F) and whose STARTED memory is the loop's,
    `memory` (None: the model remembers nothing): section 11.3 shows that
    their terminal SCCs are strong witnesses; its stem starts at `start`."""
    system = reduced.system
    groups = system.groups
    index = {start: 0}
    states = [start]
    succ: list[list[tuple[int, int]]] = []
    parent: list[tuple[int, int] | None] = [None]
    fair: list[int] = []
    enabled: list[int] = []
    for source, state in enumerate(states):  # grows while iterating
        if fair_fn is None:
            fair.append(fair_of[reduced.normal(state)[0]])
        else:
            fair.append(fair_fn(_enabled(system, state), memory))
        edges, mask = [], 0
        for unit, new in system.successors(state):
            mask |= 1 << unit
            starts = memory is not None and not memory >> groups[unit] & 1
            if starts or reduced.normal(new)[0] not in fair_of:
                edges.append((unit, -1))
                continue
            if new not in index:
                index[new] = len(states)
                states.append(new)
                parent.append((source, unit))
            edges.append((unit, index[new]))
        succ.append(edges)
        enabled.append(mask)
    outside = len(states)
    succ = [[(t, outside if d < 0 else d) for t, d in edges] for edges in succ] + [[]]
    size = outside + 1
    lts = LTS(succ, list(range(size)), [None] * size, enabled + [0], parent + [None])
    fair.append(0)
    members = strong_witness(lts, fair)
    assert members is not None, "section 11.3: the states over a strong loop hold a strong witness"
    program = ProgramLTS(system, states + [start], lts)
    return build_lasso(program, lts, fair, members, STRONG)


def _mask(units: tuple[int, ...]) -> int:
    mask = 0
    for unit in units:
        mask |= 1 << unit
    return mask


def _replay(system: Footprinted, state: Hashable, path: list[int], fair: tuple[int, ...], steps: list) -> Hashable:
    for unit in path:
        steps.append(_step(system, fair, state, unit))
        state = system.step(state, unit)
    return state


def _step(system: Footprinted, fair: tuple[int, ...], state: Hashable, unit: int) -> LassoStep:
    positions = system.positions(state)
    note: StepNote = system.note(state, unit)
    return LassoStep(system.cells(state), positions, fair, unit, positions[unit], note)
