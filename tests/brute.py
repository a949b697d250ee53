"""A deliberately naive termination checker: the oracle for the property tests.

It shares nothing with progress.core.semantics, progress.core.lts, progress.core.graph,
progress.core.check or progress.models; it reads only the `Program` dataclass.
Everything is written straight from docs/semantics.md sections 1, 3 and 4, favouring
obviousness over speed:

- a state is (memory, pcs, model state): memory a sorted tuple of
  (location, value), pcs a tuple, the model state the frozenset of threads that
  have taken a step (for models that remember it) or the empty frozenset;
- F is computed from docs/semantics.md section 3's table with Python sets;
- strongly connected components come from reachability closure (s ~ t iff
  each reaches the other), not from Tarjan;
- weak: a component with an edge inside in which every thread that is in F in
  all its states steps on some edge inside it (docs/semantics.md: a sub-set never helps;
  `weak_by_subsets` checks that claim on tiny LTSs by trying every subset);
- strong: the greatest fixpoint "drop states with no cycle in their component
  or with a fair step leaving their component"; whatever survives is a witness,
  and every witness survives each round (`strong_by_subsets` checks this
  against every subset on tiny LTSs).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from progress.core.program import Program

# docs/semantics.md section 3's table. Each entry: does the model remember who started, and
# F(enabled, started, n) as a set of thread ids.
MODELS = {
    "unfair": (False, lambda enabled, started: set()),
    "fair": (False, lambda enabled, started: set(enabled)),
    "HSA": (False, lambda enabled, started: {min(enabled)} if enabled else set()),
    "OBE": (True, lambda enabled, started: set(enabled) & set(started)),
    "HSA+OBE": (True, lambda enabled, started: ({min(enabled)} if enabled else set()) | (set(enabled) & set(started))),
    "LOBE": (True, lambda enabled, started: {t for t in enabled if started and t <= max(started)}),
}


class TooBig(Exception):
    """The LTS has more states than the caller allowed."""


@dataclass
class BruteLTS:
    """`edges[s]` is the set of (thread, destination); `fair[s]` is F(s)."""

    initial: tuple
    edges: dict
    fair: dict

    @property
    def states(self) -> list:
        return list(self.edges)


def initial_state(program: Program) -> tuple:
    memory = {}
    for thread in program.threads:
        for ins in thread:
            memory[ins.loc] = 0
    for loc, value in program.init:
        memory[loc] = value
    return (tuple(sorted(memory.items())), tuple(0 for _ in program.threads), frozenset())


def enabled_threads(program: Program, state: tuple) -> list[int]:
    _, pcs, _ = state
    return [t for t, thread in enumerate(program.threads) if pcs[t] < len(thread)]


def step(program: Program, state: tuple, thread: int, remembers: bool) -> tuple:
    """docs/semantics.md section 1: old = mem[loc]; if xchg: mem[loc] = val; jump if old == cmp."""
    memory, pcs, started = state
    ins = program.threads[thread][pcs[thread]]
    cells = dict(memory)
    old = cells[ins.loc]
    if ins.xchg:
        cells[ins.loc] = ins.val
    new_pcs = list(pcs)
    new_pcs[thread] = ins.target if old == ins.cmp else pcs[thread] + 1
    new_started = started | {thread} if remembers else started
    return (tuple(sorted(cells.items())), tuple(new_pcs), frozenset(new_started))


def fair_set(model: str, program: Program, state: tuple) -> set[int]:
    _, rule = MODELS[model]
    return rule(enabled_threads(program, state), state[2])


def explore(program: Program, model: str, limit: int = 10_000) -> BruteLTS:
    """Every state reachable from the initial one, with F on each (TooBig past `limit`)."""
    remembers, _ = MODELS[model]
    start = initial_state(program)
    edges: dict = {}
    todo = [start]
    while todo:
        state = todo.pop()
        if state in edges:
            continue
        if len(edges) >= limit:
            raise TooBig(model)
        edges[state] = {(t, step(program, state, t, remembers)) for t in enabled_threads(program, state)}
        todo += [dst for _, dst in edges[state] if dst not in edges]
    return BruteLTS(start, edges, {s: fair_set(model, program, s) for s in edges})


def reachable(lts: BruteLTS, start, within=None) -> set:
    """States reachable from `start` in zero or more steps, staying `within`."""
    seen = {start}
    todo = [start]
    while todo:
        for _, dst in lts.edges[todo.pop()]:
            if dst not in seen and (within is None or dst in within):
                seen.add(dst)
                todo.append(dst)
    return seen


def components(lts: BruteLTS, within) -> list[frozenset]:
    """Strongly connected components of the subgraph on `within`, by mutual reachability."""
    reach = {s: reachable(lts, s, within) for s in within}
    result = {frozenset(t for t in reach[s] if s in reach[t]) for s in within}
    return sorted(result, key=lambda c: sorted(map(repr, c)))


def internal_edges(lts: BruteLTS, members) -> list:
    return [(s, t, d) for s in members for t, d in lts.edges[s] if d in members]


def weak_ok(lts: BruteLTS, members) -> bool:
    """docs/semantics.md section 4, weak: an edge inside, and every thread fair in all of
    `members` steps inside (`members` must be strongly connected)."""
    inside = internal_edges(lts, members)
    if not inside:
        return False
    always_fair = set.intersection(*(lts.fair[s] for s in members))
    return always_fair <= {t for _, t, _ in inside}


def strong_closed(lts: BruteLTS, members) -> bool:
    """Every fair step from a state of `members` stays in `members`."""
    return all(d in members for s in members for t, d in lts.edges[s] if t in lts.fair[s])


def weak_witness(lts: BruteLTS):
    for component in components(lts, set(lts.edges)):
        if weak_ok(lts, component):
            return component
    return None


def strong_witness(lts: BruteLTS):
    """Greatest fixpoint: every strong witness lies inside one component of the
    survivors with a cycle, and fair steps from it stay in that component."""
    alive = set(lts.edges)
    while True:
        keep = set()
        for component in components(lts, alive):
            if not internal_edges(lts, component):
                continue
            keep |= {s for s in component if all(d in component for t, d in lts.edges[s] if t in lts.fair[s])}
        if keep == alive:
            break
        alive = keep
    found = [c for c in components(lts, alive) if internal_edges(lts, c)]
    return found[0] if found else None


def strongly_connected(lts: BruteLTS, members) -> bool:
    first = next(iter(members))
    return reachable(lts, first, members) == set(members) and all(first in reachable(lts, s, members) for s in members)


def subsets(lts: BruteLTS):
    states = list(lts.edges)
    for size in range(1, len(states) + 1):
        for chosen in combinations(states, size):
            members = set(chosen)
            if internal_edges(lts, members) and strongly_connected(lts, members):
                yield members


def weak_by_subsets(lts: BruteLTS) -> bool:
    """Whether some strongly connected subset (any subset) is a weak witness."""
    return any(weak_ok(lts, c) for c in subsets(lts))


def strong_by_subsets(lts: BruteLTS) -> bool:
    """Whether some strongly connected subset with a cycle is closed under fair steps."""
    return any(strong_closed(lts, c) for c in subsets(lts))


def decide(lts: BruteLTS, fairness: str) -> bool:
    """True iff no witness exists (`fairness` weak, strong, or none = weak with F as given)."""
    if fairness == "strong":
        return strong_witness(lts) is None
    return weak_witness(lts) is None


def verdicts(program: Program, limit: int = 10_000) -> dict[tuple[str, str], bool]:
    """All 11 verdicts keyed by (model, fairness); unfair has fairness "none"."""
    result = {("unfair", "none"): decide(explore(program, "unfair", limit), "none")}
    for model in MODELS:
        if model != "unfair":
            lts = explore(program, model, limit)
            for fairness in ("weak", "strong"):
                result[(model, fairness)] = decide(lts, fairness)
    return result


def lasso_problems(program: Program, model: str, fairness: str, lasso) -> list[str]:
    """Why `lasso` (a progress.core.witness.Lasso) is not a valid witness under
    `model`/`fairness`; empty when it is: a real path from the initial state
    whose loop returns to `loop_start` and itself meets the weak (resp.
    strong) condition, with F as the model says at every step."""
    problems: list[str] = []
    visited = _replay(program, model, lasso, problems)
    if problems:
        return problems
    loop = visited[lasso.loop_start : -1]
    if not 0 <= lasso.loop_start < len(visited) - 1 or visited[-1] != visited[lasso.loop_start]:
        return [f"the loop does not return to step {lasso.loop_start}"]
    threads = {s.thread for s in lasso.steps[lasso.loop_start :]}
    remembers, _ = MODELS[model]
    if fairness == "strong":
        problems += [
            f"fair thread {t} can leave the loop from {state[:2]}"
            for state in loop
            for t in sorted(fair_set(model, program, state))
            if step(program, state, t, remembers) not in loop
        ]
    else:
        always = set.intersection(*(fair_set(model, program, s) for s in loop))
        if not always <= threads:
            problems.append(f"threads {sorted(always - threads)} are fair all along the loop but never step")
    return problems


def _replay(program: Program, model: str, lasso, problems: list[str]) -> list:
    """The states the lasso passes through, checking each step is real and its F right."""
    remembers, _ = MODELS[model]
    state = initial_state(program)
    visited = [state]
    for index, s in enumerate(lasso.steps):
        memory, pcs = tuple(sorted(s.memory)), tuple(s.pcs)
        if (memory, pcs) != state[:2]:
            problems.append(f"step {index}: state {memory} {pcs} is not {state[:2]}")
            break
        if s.thread not in enabled_threads(program, state) or s.instruction != pcs[s.thread]:
            problems.append(f"step {index}: thread {s.thread} cannot run instruction {s.instruction}")
            break
        if set(s.fair) != fair_set(model, program, state):
            problems.append(f"step {index}: F={set(s.fair)} but the model says {fair_set(model, program, state)}")
        state = step(program, state, s.thread, remembers)
        visited.append(state)
    return visited
