"""Turn a witness set into a lasso a person can read (docs/semantics.md section 4).

A lasso is a path from the initial state to a loop inside the witness set,
then the loop. The loop is built so that it is itself a valid witness: under
weak fairness every thread that is in F at all loop states steps on it; under
strong fairness every fair step from a loop state is on it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

from progress.core.check import WEAK
from progress.core.lts import LTS, ProgramLTS, shortest_path
from progress.core.scoped import Hierarchy
from progress.core.semantics import Machine
from progress.core.system import LOCAL_LOOP, StepNote

DEADLOCK = "deadlock"


class LassoStep(NamedTuple):
    """Thread `thread` executes instruction `instruction` from the state
    (`memory`, `pcs`) in which F is `fair`; for a System, `thread` is a unit
    and `note` says where its visible action is."""

    memory: tuple[tuple[str, int], ...]
    pcs: tuple[int, ...]
    fair: tuple[int, ...]
    thread: int
    instruction: int
    note: StepNote | None = None


@dataclass(frozen=True)
class Lasso:
    """`steps[:loop_start]` lead to the loop `steps[loop_start:]`, which ends
    back at step `loop_start`. `kind` is "starvation" (an enabled thread never
    runs on the loop), "livelock" (every enabled thread runs) or "deadlock"
    (no loop: `loop_start == len(steps)`, the path ends where nothing is
    enabled and `waits` says where each unit that has not returned is).
    `names` names the units of a System (empty for a Machine)."""

    steps: tuple[LassoStep, ...]
    loop_start: int
    kind: str
    running: tuple[int, ...]
    starving: tuple[int, ...]
    escapes: tuple[tuple[int, int], ...]
    fairness: str
    names: tuple[str, ...] = ()
    waits: tuple[tuple[int, StepNote], ...] = ()
    end: tuple[tuple[str, int], ...] = ()  # a deadlock's memory, after the last step

    @cached_property
    def summary(self) -> str:
        """The one-line diagnosis: who starves, or who livelocks and which
        fair escape steps the fairness assumption does not force."""
        return _summary(self)


Edge = tuple[int, int, int]  # (source, thread, destination)
Plans = dict[Hashable, Any]  # build_lasso's cache: paths, loops, steps and lassos by key


def build_lasso(
    program: ProgramLTS,
    lts: LTS,
    fair: list[int],
    members: list[int],
    fairness: str,
    plans: Plans | None = None,
    fair_key: tuple[int, ...] | None = None,
    levels: Hierarchy | None = None,
) -> Lasso:
    """The lasso for witness set `members` of `lts` under F = `fair`.

    `plans` may be shared by the calls for one program: it caches paths,
    loops and steps. `fair_key` must determine F on `members` (default: that
    F itself); `analyze` passes F on the cycle groups, which it has at hand.
    With `levels`, F is a scoped model's extended F (`progress.core.scoped`):
    the loop also meets the groups' conditions, the steps show the
    individually fair units."""
    plans = {} if plans is None else plans
    if fair_key is None:
        fair_key = tuple([fair[s] for s in members])
    key = (id(lts), id(members), fairness, fair_key)
    plan = plans.get(key)
    if plan is None:
        plan = plans[key] = _plan(program, lts, fair, members, fairness, plans, levels)
    prefix, loop_steps, diagnosis = plan
    full_key = (key, tuple([fair[s] for s, _, _ in prefix]))
    lasso: Lasso | None = plans.get(full_key)
    if lasso is None:
        shown = _shown(fair, levels)
        steps = tuple([_step(program, lts, shown, s, t, plans) for s, t, _ in prefix]) + loop_steps
        running, starving, escapes, kind = diagnosis
        lasso = plans[full_key] = Lasso(steps, len(prefix), kind, running, starving, escapes, fairness)
        if not isinstance(program.machine, Machine):
            lasso = plans[full_key] = replace(lasso, names=_unit_names(program))
    return lasso


def _shown(fair: list[int], levels: Hierarchy | None) -> list[int]:
    """F as a lasso shows it: the individually fair units."""
    if levels is None:
        return fair
    mask = levels.unit_mask
    return [f & mask for f in fair]


def _plan(
    program: ProgramLTS,
    lts: LTS,
    fair: list[int],
    members: list[int],
    fairness: str,
    plans: Plans,
    levels: Hierarchy | None = None,
) -> tuple[
    list[Edge], tuple[LassoStep, ...], tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...], str]
]:
    """What a lasso of `members` keeps whatever F is along its stem: the stem,
    the loop's steps and its diagnosis (`diagnosed`'s fields). The loop
    depends on F only on the members, and under weak fairness only on the
    bits of the threads enabled at the entry that step nowhere inside: loops
    are shared by that key."""
    inside = set(members)
    entry = min(members)  # states are numbered breadth first: the closest one
    path_key = ("path", id(lts), entry)
    prefix = plans.get(path_key)
    if prefix is None:
        prefix = plans[path_key] = shortest_path(lts, entry)
    steppers = _steppers(lts, inside)
    lift = (lambda units: units) if levels is None else levels.lift  # noqa: E731
    mask = lift(lts.enabled[entry]) & ~lift(steppers) if fairness == WEAK else -1
    loop_key = ("loop", id(lts), tuple(members), fairness, tuple([fair[s] & mask for s in members]))
    loop = plans.get(loop_key)
    if loop is None:
        loop = plans[loop_key] = _loop(lts, fair, inside, entry, fairness, steppers, lift)
    shown = _shown(fair, levels)
    loop_steps = tuple([_step(program, lts, shown, s, t, plans) for s, t, _ in loop])
    start = len(prefix)
    succ = lts.succ
    escapes = [
        (start + i, t)
        for i, (s, _, _) in enumerate(loop)
        for t, dst in succ[s]
        if fair[s] >> t & 1 and dst not in inside
    ]
    return prefix, loop_steps, _diagnosis(loop_steps, 0, lts.enabled[loop[0][0]], escapes)


def deadlock_lasso(
    program: ProgramLTS,
    lts: LTS,
    fair: list[int],
    fairness: str,
    plans: Plans | None = None,
    levels: Hierarchy | None = None,
) -> Lasso:
    """The shortest path of `lts` to a state whose program state is a deadlock."""
    plans = {} if plans is None else plans
    fair = _shown(fair, levels)
    dead = set(program.deadlocks)
    target = next(s for s, origin in enumerate(lts.origin) if origin in dead)
    prefix = shortest_path(lts, target)
    key = (id(lts), DEADLOCK, tuple([fair[s] for s, _, _ in prefix]))
    lasso: Lasso | None = plans.get(key)
    if lasso is None:
        steps = tuple([_step(program, lts, fair, s, t, plans) for s, t, _ in prefix])
        raw = program.states[lts.origin[target]]
        machine = program.machine
        assert not isinstance(machine, Machine), "an AXB program never deadlocks"
        waits = machine.waits(raw)
        names = _unit_names(program)
        stuck = tuple(unit for unit, _ in waits)
        lasso = plans[key] = Lasso(
            steps, len(steps), DEADLOCK, (), stuck, (), fairness, names, waits, machine.cells(raw)
        )
    return lasso


def _unit_names(program: ProgramLTS) -> tuple[str, ...]:
    machine = program.machine
    assert not isinstance(machine, Machine)
    return tuple(machine.unit_name(u) for u in range(len(machine.groups)))


def _steppers(lts: LTS, inside: set[int]) -> int:
    """The threads that step on some edge inside `inside`."""
    steppers = 0
    for s in inside:
        for t, d in lts.succ[s]:
            if d in inside:
                steppers |= 1 << t
    return steppers


def _loop(
    lts: LTS,
    fair: list[int],
    inside: set[int],
    entry: int,
    fairness: str,
    steppers: int,
    lift: Callable[[int], int] = lambda units: units,
) -> list[Edge]:
    """A closed walk from `entry` inside the witness set that is a witness
    itself: every thread stepping inside steps on it; under weak fairness it
    visits, for each other enabled thread fair somewhere in the set, a state
    where that thread is not fair; under strong fairness it takes every fair
    step from every state it visits; `steppers`: `_steppers(lts, inside)`.
    With a scoped F, `lift` gives the extended bits of units, and the
    enabled groups that step nowhere inside are goals as threads are."""
    succ = lts.succ
    enabled = lift(lts.enabled[entry])
    steppers_ext = lift(steppers)
    unfair_goals = []
    if fairness == WEAK:
        unfair_goals = [
            t
            for t in range(enabled.bit_length())
            if enabled >> t & 1 and not steppers_ext >> t & 1 and any(not fair[s] >> t & 1 for s in inside)
        ]
    walk: list[Edge] = []
    current, visited, stepped = entry, {entry}, 0
    while True:
        remaining = steppers & ~stepped
        unfair_goals = [t for t in unfair_goals if all(fair[s] >> t & 1 for s in visited)]
        if remaining:
            thread = (remaining & -remaining).bit_length() - 1
            sources = {s for s in inside for t, d in succ[s] if t == thread and d in inside}
            path = _path(lts, current, sources, inside)
            end = path[-1][2] if path else current
            path.append(next((end, t, d) for t, d in succ[end] if t == thread))
        elif unfair_goals:
            goal = unfair_goals[0]
            path = _path(lts, current, {s for s in inside if not fair[s] >> goal & 1}, inside)
        elif fairness != WEAK and (untaken := _untaken_fair_step(succ, fair, inside, visited, walk)):
            path = _path(lts, current, {untaken[0]}, inside) + [untaken]
        elif walk and current == entry:
            return walk
        else:
            path = _path(lts, current, {entry}, inside, nonempty=not walk)
        for edge in path:
            stepped |= 1 << edge[1]
            visited.add(edge[2])
        walk += path
        current = walk[-1][2]


def _untaken_fair_step(
    succ: list[list[tuple[int, int]]], fair: list[int], inside: set[int], visited: set[int], walk: list[Edge]
) -> Edge | None:
    taken = {(s, t) for s, t, _ in walk}
    for s in sorted(visited):
        for t, d in succ[s]:
            if fair[s] >> t & 1 and (s, t) not in taken and d in inside:
                return (s, t, d)
    return None


def _path(lts: LTS, start: int, goals: set[int], within: set[int], nonempty: bool = False) -> list[Edge]:
    """Shortest path from `start` to a goal state (at least one edge if `nonempty`)."""
    if start in goals and not nonempty:
        return []
    parent: dict[int, Edge] = {}
    queue = deque([start])
    seen = {start} if not nonempty else set()
    while queue:
        node = queue.popleft()
        for t, dst in lts.succ[node]:
            if dst not in within or dst in seen:
                continue
            seen.add(dst)
            parent[dst] = (node, t, dst)
            if dst in goals:
                return _unwind(parent, start, dst)
            queue.append(dst)
    raise AssertionError("witness set is not strongly connected")  # pragma: no cover


def _unwind(parent: dict[int, Edge], start: int, end: int) -> list[Edge]:
    path = [parent[end]]
    while path[-1][0] != start:
        path.append(parent[path[-1][0]])
    return path[::-1]


def _step(program: ProgramLTS, lts: LTS, fair: list[int], state: int, thread: int, cache: Plans) -> LassoStep:
    """The step, cached by program state (shared by the products over it), F and thread."""
    origin = lts.origin[state]
    key = ("step", origin, fair[state], thread)
    step: LassoStep | None = cache.get(key)
    if step is None:
        raw = program.states[origin]
        machine = program.machine
        if isinstance(machine, Machine):
            cells = len(machine.locations)
            pcs = raw[cells:]
            step = LassoStep(
                tuple(zip(machine.locations, raw[:cells])), pcs, _threads(fair[state]), thread, pcs[thread]
            )
        else:
            pcs = machine.positions(raw)
            note = machine.note(raw, thread)
            step = LassoStep(machine.cells(raw), pcs, _threads(fair[state]), thread, pcs[thread], note)
        cache[key] = step
    return step


@lru_cache(maxsize=256)
def _threads(mask: int) -> tuple[int, ...]:
    return tuple(t for t in range(mask.bit_length()) if mask >> t & 1)


def diagnosed(
    steps: tuple[LassoStep, ...], loop_start: int, enabled: int, escapes: Iterable[tuple[int, int]], fairness: str
) -> Lasso:
    """The Lasso of `steps` whose loop starts at `loop_start`, in a state
    where the threads of mask `enabled` are enabled; `escapes`: (step, thread)
    for each fair step from a loop state that leaves the witness set."""
    running, starving, sorted_escapes, kind = _diagnosis(steps, loop_start, enabled, escapes)
    return Lasso(steps, loop_start, kind, running, starving, sorted_escapes, fairness)


def _diagnosis(
    steps: tuple[LassoStep, ...], loop_start: int, enabled: int, escapes: Iterable[tuple[int, int]]
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...], str]:
    """`diagnosed`'s running and starving threads, escapes and kind."""
    running = tuple(sorted({s.thread for s in steps[loop_start:]}))
    starving = tuple(t for t in _threads(enabled) if t not in running)
    kind = "starvation" if starving else "livelock"
    return running, starving, tuple(sorted(set(escapes))), kind


def _names(threads: Iterable[int], names: tuple[str, ...] = ()) -> str:
    threads = list(threads)
    if names:
        return ", ".join(names[t] for t in threads)
    word = "thread" if len(threads) == 1 else "threads"
    return f"{word} " + ", ".join(str(t) for t in threads)


def _summary(lasso: Lasso) -> str:
    kind, running, starving, escapes, fairness = (
        lasso.kind,
        lasso.running,
        lasso.starving,
        lasso.escapes,
        lasso.fairness,
    )
    names = lasso.names
    loop_steps = lasso.steps[lasso.loop_start :]
    if kind == DEADLOCK:
        return "deadlock: " + "; ".join(
            f"{_names([unit], names)} waits at {note.action}, {note.where}" for unit, note in lasso.waits
        )
    if kind == "starvation":
        parts = []
        for t in starving:
            fair_steps = sum(1 for s in loop_steps if t in s.fair)
            if fair_steps == 0:
                parts.append(f"{_names([t], names)} is never in F on the loop")
            else:
                parts.append(
                    f"{_names([t], names)} is in F at {fair_steps} of {len(loop_steps)} loop steps only, "
                    f"which {fairness} fairness does not force"
                )
        verb = "never runs" if len(starving) == 1 else "never run"
        loops = "loops" if len(running) == 1 else "loop"
        return f"starvation: {_names(starving, names)} {verb} while {_names(running, names)} {loops}; " + "; ".join(
            parts
        )
    local = [s for s in loop_steps if s.note is not None and s.note.action == LOCAL_LOOP]
    if local:
        where = local[0].note.where if local[0].note else ""
        return f"livelock: {_names([local[0].thread], names)} loops locally without a visible action, {where}"
    text = f"livelock: {_names(running, names)} all keep running and never terminate"
    if escapes:
        shown = ", ".join(f"T{t} at step {i}" for i, t in escapes)
        text += f"; {fairness} fairness does not force the fair escape steps {shown}"
    return text
