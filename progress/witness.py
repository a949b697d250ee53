"""Turn a witness set into a lasso a person can read (SPEC section 4).

A lasso is a path from the initial state to a loop inside the witness set,
then the loop. The loop is built so that it is itself a valid witness: under
weak fairness every thread that is in F at all loop states steps on it; under
strong fairness every fair step from a loop state is on it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache

from .check import WEAK
from .lts import LTS, ProgramLTS, shortest_path


@dataclass(frozen=True)
class LassoStep:
    """Thread `thread` executes instruction `instruction` from the state
    (`memory`, `pcs`) in which F is `fair`."""

    memory: tuple[tuple[str, int], ...]
    pcs: tuple[int, ...]
    fair: tuple[int, ...]
    thread: int
    instruction: int


@dataclass(frozen=True)
class Lasso:
    """`steps[:loop_start]` lead to the loop `steps[loop_start:]`, which ends
    back at step `loop_start`. `kind` is "starvation" (an enabled thread never
    runs on the loop) or "livelock" (every enabled thread runs)."""

    steps: tuple[LassoStep, ...]
    loop_start: int
    kind: str
    running: tuple[int, ...]
    starving: tuple[int, ...]
    escapes: tuple[tuple[int, int], ...]
    summary: str


Edge = tuple[int, int, int]  # (source, thread, destination)


def build_lasso(program: ProgramLTS, lts: LTS, fair: list[int], members: list[int], fairness: str,
                plans: dict | None = None) -> Lasso:
    """The lasso for witness set `members`. `plans` caches the path and loop,
    which depend only on F inside the witness set."""
    plans = {} if plans is None else plans
    inside = set(members)
    key = (id(lts), fairness, tuple(members), tuple(map(fair.__getitem__, members)))
    plan = plans.get(key)
    if plan is None:
        entry = min(members)  # states are numbered breadth first: the closest one
        prefix = shortest_path(lts, entry)
        plan = plans[key] = (prefix, _loop(lts, fair, inside, entry, fairness))
    prefix, loop = plan
    full_key = (key, tuple(fair[s] for s, _, _ in prefix))
    lasso = plans.get(full_key)
    if lasso is None:
        steps = tuple(_step(program, lts, fair, s, t) for s, t, _ in prefix + loop)
        lasso = plans[full_key] = _diagnose(lts, fair, inside, steps, loop, len(prefix), fairness)
    return lasso


def _loop(lts: LTS, fair: list[int], inside: set[int], entry: int, fairness: str) -> list[Edge]:
    internal = [(s, t, d) for s in sorted(inside) for t, d in lts.succ[s] if d in inside]
    goals: list[tuple[str, int]] = [("thread", t) for t in sorted({t for _, t, _ in internal})]
    if fairness == WEAK:
        enabled = lts.enabled[entry]
        goals += [("unfair", t) for t in range(enabled.bit_length())
                  if enabled >> t & 1 and not any(e[1] == t for e in internal)
                  and any(not fair[s] >> t & 1 for s in inside)]
    walk: list[Edge] = []
    current, visited = entry, {entry}
    while True:
        goals = [g for g in goals if not _met(g, walk, visited, fair)]
        if not goals and fairness != WEAK:
            goals = _untaken_fair_steps(lts, fair, inside, visited, walk)
        if not goals:
            if walk and current == entry:
                return walk
            walk += _path(lts, current, {entry}, within=inside, nonempty=not walk)
        else:
            walk += _reach(lts, fair, inside, current, goals[0])
        current = walk[-1][2]
        visited.update(e[2] for e in walk)


def _met(goal, walk: list[Edge], visited: set[int], fair: list[int]) -> bool:
    kind, value = goal
    if kind == "thread":
        return any(e[1] == value for e in walk)
    if kind == "unfair":
        return any(not fair[s] >> value & 1 for s in visited)
    return any(e[:2] == value[:2] for e in walk)


def _reach(lts: LTS, fair: list[int], inside: set[int], current: int, goal) -> list[Edge]:
    """A path from `current` that meets `goal`, ending with the goal's edge if it names one."""
    kind, value = goal
    if kind == "unfair":
        return _path(lts, current, {s for s in inside if not fair[s] >> value & 1}, within=inside, nonempty=True)
    if kind == "thread":
        sources = {s for s in inside for t, d in lts.succ[s] if t == value and d in inside}
        path = _path(lts, current, sources, within=inside)
        end = path[-1][2] if path else current
        return path + [next((end, t, d) for t, d in lts.succ[end] if t == value)]
    path = _path(lts, current, {value[0]}, within=inside)
    return path + [value]


def _untaken_fair_steps(lts, fair, inside, visited, walk) -> list:
    taken = {(s, t) for s, t, _ in walk}
    return [("edge", (s, t, d)) for s in sorted(visited) for t, d in lts.succ[s]
            if fair[s] >> t & 1 and (s, t) not in taken and d in inside]


def _path(lts: LTS, start: int, goals: set[int], within: set[int] | None, nonempty: bool = False) -> list[Edge]:
    """Shortest path from `start` to a goal state (at least one edge if `nonempty`)."""
    if start in goals and not nonempty:
        return []
    parent: dict[int, Edge] = {}
    queue = deque([start])
    seen = {start} if not nonempty else set()
    while queue:
        node = queue.popleft()
        for t, dst in lts.succ[node]:
            if within is not None and dst not in within:
                continue
            if dst in seen:
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


def _step(program: ProgramLTS, lts: LTS, fair: list[int], state: int, thread: int) -> LassoStep:
    raw = program.states[lts.origin[state]]
    cells = len(program.machine.locations)
    pcs = raw[cells:]
    return LassoStep(tuple(zip(program.machine.locations, raw[:cells])), pcs, _threads(fair[state]), thread, pcs[thread])


@lru_cache(maxsize=256)
def _threads(mask: int) -> tuple[int, ...]:
    return tuple(t for t in range(mask.bit_length()) if mask >> t & 1)


def _diagnose(lts, fair, inside, steps, loop, loop_start, fairness) -> Lasso:
    loop_steps = steps[loop_start:]
    running = tuple(sorted({s.thread for s in loop_steps}))
    enabled = _threads(lts.enabled[loop[0][0]])
    starving = tuple(t for t in enabled if t not in running)
    escapes = tuple(
        (loop_start + i, t)
        for i, (s, _, _) in enumerate(loop)
        for t, dst in lts.succ[s]
        if fair[s] >> t & 1 and dst not in inside
    )
    kind = "starvation" if starving else "livelock"
    summary = _summary(kind, running, starving, loop_steps, escapes, fairness)
    return Lasso(steps, loop_start, kind, running, starving, tuple(sorted(set(escapes))), summary)


def _names(threads) -> str:
    threads = list(threads)
    word = "thread" if len(threads) == 1 else "threads"
    return f"{word} " + ", ".join(str(t) for t in threads)


def _summary(kind, running, starving, loop_steps, escapes, fairness) -> str:
    if kind == "starvation":
        parts = []
        for t in starving:
            fair_steps = sum(1 for s in loop_steps if t in s.fair)
            if fair_steps == 0:
                parts.append(f"thread {t} is never in F on the loop")
            else:
                parts.append(f"thread {t} is in F at {fair_steps} of {len(loop_steps)} loop steps only, "
                             f"which {fairness} fairness does not force")
        verb = "never runs" if len(starving) == 1 else "never run"
        loops = "loops" if len(running) == 1 else "loop"
        return f"starvation: {_names(starving)} {verb} while {_names(running)} {loops}; " + "; ".join(parts)
    text = f"livelock: {_names(running)} all keep running and never terminate"
    if escapes:
        shown = ", ".join(f"T{t} at step {i}" for i, t in sorted(set(escapes)))
        text += f"; {fairness} fairness does not force the fair escape steps {shown}"
    return text
