"""The large-test checker: every verdict of one program with many threads,
on packed states with compiled kernels (issue 22).

`check_large(program, asks, ...)`, asks being (model, strong?) pairs,
returns per ask an `Outcome`: what `check_program` would report (with
`witnesses`, the lassos of progress/core/scale_lasso.py); or None when the
program does not fit (more than packed.MAX_WORDS words of packed state,
more than MAX_THREADS threads, or a model memory it cannot tabulate).
Per query the model's product is explored once and shared by every model
on the same product; its SCCs are computed once and shared by those models' weak and
strong tests. Reductions (docs/semantics.md section 9):

- memory: NONE and STARTED are machine words; a model's `view` quotients
  its memory to the classes F reads (tabulated by calling `after`);
- symmetry: for `symmetric` models on NONE or STARTED, one state per orbit
  of permutations of identical threads; an SCC whose inside edges needed a
  permutation is decided on its lift (`progress.core.lift`);
- containment: a model whose `contains` lists a model that passed passes.

F is the model's own `fair`, called once per distinct (enabled, memory)
pair of the explored states. Importing this module loads numba.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from progress.core import explore_jit as kernels
from progress.core import scale_lasso
from progress.core.lift import lift_fails
from progress.core.packed import Layout, layout
from progress.core.program import Program
from progress.core.semantics import compile_program
from progress.core.symmetry import groups
from progress.core.witness import Lasso
from progress.errors import Inconclusive
from progress.models.base import NONE, STARTED, ProgressModel

MAX_THREADS = 30
"""More threads than this go back to check_program: F is looked up by
enabled set x STARTED word in one int64."""
MAX_TABLE = 1 << 20
"""Memory values x threads beyond which a memory is not tabulated."""
CHUNK = 1 << 20
FIRST_LOOK = 1 << 16
"""States explored before the first look for an early stop (then 4x, 16x, ...)."""
"""States expanded between two looks at the clock."""


class Outcome(NamedTuple):
    """`terminates`: True, False, or None when a bound stopped the check (`reason`)."""

    terminates: bool | None
    states: int
    transitions: int
    reason: str | None = None
    witness: Lasso | None = None


@dataclass(frozen=True)
class Product:
    """How one product is explored: memory kind (0 NONE, 1 STARTED, 2
    tabulated: `after`, `values` of its classes), symmetry groups."""

    kind: int
    after: np.ndarray
    values: tuple[Hashable, ...]
    groups: tuple[tuple[int, ...], ...]

    def step(self, memory: int, thread: int) -> int:
        """The memory word after a step of `thread` (as the kernel computes it)."""
        if self.kind == 1:
            return memory | (1 << thread)
        return int(self.after[memory, thread]) if self.kind == 2 else 0

    def value(self, memory: int) -> Hashable:
        """The model memory value a memory word stands for (what `fair` reads)."""
        return None if self.kind == 0 else memory if self.kind == 1 else self.values[memory]


@dataclass
class Explored:
    product: Product
    count: int
    keys: np.ndarray  # (count, words)
    mems: np.ndarray
    dst: np.ndarray
    enabled: np.ndarray
    sccs: tuple
    complete: bool = True

    @property
    def transitions(self) -> int:
        return int((self.dst >= 0).sum())


def check_large(
    program: Program,
    asks: Sequence[tuple[ProgressModel, bool]],
    max_states: int | None = None,
    time_limit: float | None = None,
    witnesses: bool = False,
) -> list[Outcome] | None:
    """An Outcome per (model, strong?) ask, or None when the program does not
    fit; with `witnesses`, each failing one carries its lasso."""
    machine = compile_program(program)
    shape = layout(machine)
    n = machine.n_threads
    if shape is None or n > MAX_THREADS:
        return None
    plans = {model.name: _plan(model, machine) for model, _ in asks}
    if any(p is None for p in plans.values()):
        return None
    deadline = None if time_limit is None else time.monotonic() + time_limit
    try:
        return _decide_all(shape, asks, plans, n, max_states, deadline, witnesses)
    except Inconclusive as stop:
        return [Outcome(None, stop.states, 0, stop.reason) for _ in asks]


def _decide_all(shape, asks, plans, n, max_states, deadline, witnesses) -> list[Outcome]:
    """Containers (`contains`) last, so that they can inherit passes."""
    explored: dict[tuple, Explored] = {}
    runs: dict[str, Explored] = {}  # the product that decided each model not inherited
    passed: dict[str, tuple[int, int]] = {}  # model passing weak (so strong) -> (states, transitions)
    results: dict[str, tuple[bool, bool, int, int]] = {}
    models = sorted({model.name: model for model, _ in asks}.values(), key=lambda m: bool(m.contains))
    for model in models:
        inherited = [passed[name] for name in model.contains if name in passed]
        if inherited:
            results[model.name] = (False, False, *inherited[0])
            passed[model.name] = inherited[0]
            continue
        key = _plan_key(plans[model.name])
        run = explored.get(key)
        if run is None or not run.complete and model.name not in results:
            sharing = [m for m in models if _plan_key(plans[m.name]) == key and not m.contains or m is model]
            run = explored[key] = _explore(shape, plans[model.name], max_states, deadline, _settler(run, sharing, n))
            if not run.complete:  # every sharing model has a strong witness already
                results.update({m.name: (True, True, run.count, run.transitions) for m in sharing})
        runs[model.name] = run
        if model.name not in results:
            weak_fail, strong_fail = _verdicts(shape, run, model, n, max_states)
            results[model.name] = (weak_fail, strong_fail, run.count, run.transitions)
        if not results[model.name][0]:
            passed[model.name] = (run.count, run.transitions)
    outcomes = []
    fair: dict[str, np.ndarray] = {}
    for model, strong in asks:
        weak_fail, strong_fail, states, edges = results[model.name]
        fails = strong_fail if strong else weak_fail
        lasso = None
        if fails and witnesses:
            run = runs[model.name]
            if model.name not in fair:
                fair[model.name] = _fair(run, model, n)
            lasso = scale_lasso.lasso(shape, run, model, fair[model.name], strong, n, max_states)
        outcomes.append(Outcome(not fails, states, edges, witness=lasso))
    return outcomes


def _settler(previous: Explored | None, sharing: list[ProgressModel], n: int):
    """Stop early when every sharing model has a strong witness among the
    states expanded so far (a witness there is one of the whole LTS:
    docs/semantics.md section 9); never after an early stop was not enough."""
    if previous is not None:
        return None

    def settled(partial: Explored) -> bool:
        comp, ncomp, cyclic, steppers, exits, inexact = partial.sccs
        for model in sharing:
            f = _fair(partial, model, n)
            if not kernels.decide(partial.dst, partial.count, n, comp, ncomp, cyclic, steppers, exits, inexact, f)[1]:
                return False
        return True

    return settled


def _plan(model: ProgressModel, machine) -> Product | None:
    memory, n = model.memory, machine.n_threads
    empty = np.zeros((1, 1), np.int64)
    orbit = groups(machine) if model.symmetric and model.view is None else ()
    if memory is NONE:
        return Product(0, empty, (None,), orbit)
    if memory is STARTED and model.view is None:
        return Product(1, empty, (), orbit)
    table = _tabulate(model, n)
    if table is None:
        return None
    after, values = table
    return Product(2, after, values, ())


def _plan_key(plan: Product) -> tuple:
    return (plan.kind, plan.values if plan.kind == 2 else (), plan.groups, plan.after.tobytes())


def _tabulate(model: ProgressModel, n: int) -> tuple[np.ndarray, tuple[Hashable, ...]] | None:
    """The memory's classes under `model.view` (identity if None): the
    class of each value reached, one value standing for each class; None
    past MAX_TABLE, or when the plug-in's `after` or `view` raises on a
    value or thread no run may reach (check_program then calls it only
    where runs go, as progress.core.batch does)."""
    try:
        return _classes(model, n)
    except Exception:  # a plug-in's function on a pair no run reaches
        return None


def _classes(model: ProgressModel, n: int) -> tuple[np.ndarray, tuple[Hashable, ...]] | None:
    memory = model.memory
    view = model.view or (lambda value, n: value)
    first = memory.initial(n)
    stand_for = [first]
    index = {view(first, n): 0}
    rows: list[list[int]] = []
    for value in stand_for:  # grows while iterating
        row = []
        for t in range(n):
            following = memory.after(value, t)
            cls = view(following, n)
            if cls not in index:
                if len(stand_for) * n >= MAX_TABLE:
                    return None
                index[cls] = len(stand_for)
                stand_for.append(following)
            row.append(index[cls])
        rows.append(row)
    return np.array(rows, np.int64).reshape(len(rows), n), tuple(stand_for)


def _arrays(shape: Layout) -> tuple:
    lengths = np.array(shape.machine.lengths, np.int64)
    word = np.array([o // 64 for o in shape.offsets], np.int64)
    shift = np.array([o % 64 for o in shape.offsets], np.int64)
    masks = np.array([(1 << w) - 1 for w in shape.widths], np.int64)
    code = np.array(shape.code, np.int64).reshape(len(shape.code), 5)
    return (code, np.array(shape.bases, np.int64), lengths, (word, shift, masks, shape.n_locations))


_PER_STATE = (1, -1, -1, 1)  # mems, dst, exact, enabled: entries per state (-1: n)


def _space(capacity: int, n: int, words: int) -> tuple:
    """Arrays for `capacity` states (keys: a row of `words` words each) and
    a table of 2 to 4 slots per state."""
    slots = 1 << (2 * capacity - 1).bit_length()
    types = (np.int64, np.int32, np.uint8, np.int64)
    states = tuple(np.empty(capacity * (n if k < 0 else k), t) for k, t in zip(_PER_STATE, types))
    return (np.empty((capacity, words), np.int64), *states, np.full(slots, -1, np.int32))


def _grow(space: tuple, count: int, n: int) -> tuple:
    keys = space[0]
    bigger = _space(2 * keys.shape[0], n, keys.shape[1])
    bigger[0][:count] = keys[:count]
    for old, new, per in zip(space[1:], bigger[1:], _PER_STATE):
        width = n if per < 0 else per
        new[: count * width] = old[: count * width]
    kernels.rehash(bigger, count)
    return bigger


def _explore(shape: Layout, plan: Product, max_states: int | None, deadline: float | None, settled=None) -> Explored:
    """The product of `plan`, whole, or cut short once `settled(partial)` holds
    (asked when the state count passes 2**16, 2**18, ...)."""
    n = len(shape.machine.lengths)
    prog = _arrays(shape)
    sizes = [len(g) for g in plan.groups]
    gstart = np.array([0, *np.cumsum(sizes)], np.int64) if sizes else np.zeros(1, np.int64)
    gmembers = np.array([t for g in plan.groups for t in g] or [0], np.int64)
    space = _space(1 << 12, n, shape.n_words)
    space[0][0] = shape.words(shape.initial)
    space[1][0] = 0
    kernels.rehash(space, 1)
    limit = (1 << 62) if max_states is None else max_states
    status, s, count, look = kernels.CHUNK, 0, 1, FIRST_LOOK
    while status != kernels.DONE:
        if deadline is not None and time.monotonic() > deadline:
            raise Inconclusive("stopped at the time limit", count)
        if status == kernels.FULL:
            space = _grow(space, count, n)
        if settled is not None and count >= look:
            look *= 4
            partial = _finish(plan, space, s, count, n, complete=False)
            if settled(partial):
                return partial
        stop = CHUNK if settled is None else min(CHUNK, max(look - count, 1 << 12))
        status, s, count = kernels.explore(prog, plan.kind, plan.after, gstart, gmembers, space, s, count, stop, limit)
        if status == kernels.LIMIT:
            raise Inconclusive(f"stopped at the state bound of {max_states}", count + 1)
    return _finish(plan, space, s, count, n)


def _finish(plan: Product, space: tuple, expanded: int, count: int, n: int, complete: bool = True) -> Explored:
    """The first `count` states as an Explored; states from `expanded` on
    have not been expanded and get no edges (copies: `space` goes on)."""
    keys = space[0][:count]
    mems, dst, exact, enabled = (a[: count * (n if k < 0 else k)] for a, k in zip(space[1:], _PER_STATE))
    if not complete:
        dst, enabled = dst.copy(), enabled.copy()
        dst[expanded * n :] = -1
        enabled[expanded:] = 0
    sccs = kernels.components(dst, exact, count, n)
    return Explored(plan, count, keys, mems, dst, enabled, sccs, complete)


def _fair(run: Explored, model: ProgressModel, n: int) -> np.ndarray:
    """F of every state: the model's `fair` once per distinct (enabled, memory)."""
    width = max(len(run.product.values), 1) if run.product.kind == 2 else 1 << n
    pairs = run.enabled * width + run.mems
    distinct, inverse = np.unique(pairs, return_inverse=True)
    table = np.empty(len(distinct), np.int64)
    for i, pair in enumerate(distinct.tolist()):
        enabled, memory = divmod(pair, width)
        table[i] = model.fair(enabled, run.product.value(memory), n)
    return table[inverse]


def _verdicts(shape: Layout, run: Explored, model: ProgressModel, n: int, max_states: int | None) -> tuple[bool, bool]:
    comp, ncomp, cyclic, steppers, exits, inexact = run.sccs
    f = _fair(run, model, n)
    weak_fail, strong_fail = kernels.decide(run.dst, run.count, n, comp, ncomp, cyclic, steppers, exits, inexact, f)
    if strong_fail or not inexact.any():
        return bool(weak_fail), bool(strong_fail)
    lifted = lift_fails(shape, run, model, max_states)
    return bool(weak_fail) or lifted[0], lifted[1]
