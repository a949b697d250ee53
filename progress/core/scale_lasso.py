"""Lassos of the compiled checker (docs/semantics.md section 9.7): the same
`progress.core.witness.Lasso` that the Python checker gives, over concrete
(unreduced) program states.

The witness set is found in the explored product (`explore_jit.witness_members`)
or, for a symmetric quotient's SCC with a non-exact edge inside, in its lift
(`progress.core.lift`); the loop is a closed walk in it that is a witness
itself (`explore_jit.loop_walk`), the stem the breadth-first path from the
initial state to the loop's first state. A quotient path is made concrete
step by step (a thread of the concrete state whose step has the next
quotient state as its representative), then the whole stem is permuted so
that it ends on the loop's first state itself: permuting identical threads
maps runs to runs and, for a symmetric model, F along them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from progress.core import explore_jit as kernels
from progress.core.check import cycles, strong_witness, weak_witness
from progress.core.lift import MAX_LIFT, Lifted, explore_within, lifts
from progress.core.packed import Layout
from progress.core.symmetry import canonical
from progress.core.witness import Lasso, LassoStep, diagnosed
from progress.models.base import ProgressModel

State = tuple[int, Any]  # (packed key, memory word; or the memory value itself)


def lasso(
    shape: Layout, run, model: ProgressModel, fair: np.ndarray, strong: bool, n: int, max_states: int | None
) -> Lasso:
    """The lasso of a failing verdict of `model` on `run` (a
    progress.core.scale.Explored) under F = `fair` per explored state."""
    comp, ncomp, cyclic, steppers, exits, inexact = run.sccs
    if not run.product.groups:  # every edge is exact without symmetry
        inexact = np.zeros_like(inexact)
    args = (run.dst, run.count, n, comp, ncomp, cyclic, steppers, exits, inexact, fair, strong)
    members = kernels.witness_members(*args)
    if len(members) and run.product.kind == 2 and model.view is not None:
        return _view_lasso(shape, run, model, n, members, strong, max_states)
    if len(members):
        walk = kernels.loop_walk(run.dst, run.count, n, members, fair, run.enabled, strong).tolist()
        inside = set(members.tolist())
        stem = _concrete(shape, run, _path(run.dst, run.count, n, int(members[0])))
        loop = [(_state(run, s), t) for s, t, _ in walk]
        escapes = [
            (i, t) for i, (s, _, _) in enumerate(walk) for t in _mask(int(fair[s])) if _leaves(run, n, s, t, inside)
        ]
        return _lasso(shape, run.product.value, model, n, stem, loop, escapes, strong)
    for lifted in lifts(shape, run, model, max_states):
        chosen = lifted.strong if strong else lifted.weak
        if chosen is not None:
            return _lifted_lasso(shape, run, model, n, lifted, chosen, strong)
    raise AssertionError("no witness set for a failing verdict")  # pragma: no cover


def _lifted_lasso(shape: Layout, run, model: ProgressModel, n: int, lifted, chosen: list[int], strong: bool) -> Lasso:
    """Stem to the lift's start (quotient path, made concrete), then inside
    the lift (concrete already) to the witness's lowest state, then the loop."""
    stem = _concrete(shape, run, _path(run.dst, run.count, n, lifted.state))
    return _lasso_in(shape, model, n, stem, lifted, chosen, strong, run.product.value)


def _lasso_in(shape: Layout, model, n: int, stem, lifted, chosen: list[int], strong: bool, value) -> Lasso:
    """`stem` to the start of the concrete LTS `lifted.lts`, then inside it
    to the lowest state of its witness set `chosen`, then the loop."""
    lts, fair = lifted.lts, np.array(lifted.fair, np.int64)
    size = lts.size
    dst = np.full(size * n, -1, np.int32)  # the product's type (scale.Explored.dst): loop_walk compiled once
    for s, edges in enumerate(lts.succ):
        for t, d in edges:
            dst[s * n + t] = d
    members = np.array(chosen, np.int64)
    enabled = np.array(lts.enabled, np.int64)
    walk = kernels.loop_walk(dst, size, n, members, fair, enabled, strong).tolist()
    stem = stem + [(lifted.order[s], t) for s, t, _ in _path(dst, size, n, int(members[0]))]
    inside = set(chosen)
    loop = [(lifted.order[s], t) for s, t, _ in walk]
    escapes = [
        (i, t) for i, (s, _, _) in enumerate(walk) for t in _mask(int(fair[s])) if int(dst[s * n + t]) not in inside
    ]
    return _lasso(shape, value, model, n, stem, loop, escapes, strong)


def _view_lasso(shape: Layout, run, model: ProgressModel, n: int, members, strong: bool, max_states) -> Lasso:
    """A witness set W of a view's quotient (section 9.2) need not be one of
    L state for state: a loop of classes may change the memory it stands
    for. So explore the concrete states over W from the stem's end (memory
    replayed along the stem), decide that LTS with progress.core.check (it
    has a witness: section 9.7) and take the lasso there."""
    view, memory = model.view, model.memory
    assert view is not None
    classes = {view(value, n): i for i, value in enumerate(run.product.values)}
    inside = {_state(run, int(s)) for s in members}
    stem_edges = _path(run.dst, run.count, n, int(members[0]))
    real = memory.initial(n)
    stem: list[tuple[State, int]] = []
    for s, t, _ in stem_edges:
        stem.append(((_state(run, s)[0], real), t))
        real = memory.after(real, t)
    start = (_state(run, int(members[0]))[0], real)
    cap = MAX_LIFT if max_states is None else max_states

    def kept(state: State) -> bool:
        return (state[0], classes.get(view(state[1], n), -1)) in inside

    lts, order = explore_within(shape, start, memory.after, kept, cap, "a lasso's states")
    fair = [model.fair(e, value, n) for e, (_, value) in zip(lts.enabled, order)] + [0]
    found = cycles(lts)
    chosen = strong_witness(lts, fair, found) if strong else weak_witness(lts, fair, found)
    assert chosen is not None, "no witness over a view's witness set"
    real_run = Lifted(0, lts, fair, order, chosen, chosen)
    return _lasso_in(shape, model, n, stem, real_run, chosen, strong, lambda value: value)


def _leaves(run, n: int, s: int, t: int, inside: set[int]) -> bool:
    return int(run.dst[s * n + t]) not in inside


def _mask(bits: int) -> list[int]:
    return [t for t in range(bits.bit_length()) if bits >> t & 1]


def _path(dst: np.ndarray, count: int, n: int, target: int) -> list[tuple[int, int, int]]:
    """The breadth-first path from state 0 to `target`, as (source, thread, destination)."""
    parent, thread = kernels.parents(dst, count, n)
    path = []
    while target != 0:
        source = int(parent[target])
        path.append((source, int(thread[target]), target))
        target = source
    return path[::-1]


def _state(run, s: int) -> State:
    return int(sum(int(word) << (64 * w) for w, word in enumerate(run.keys[s].tolist()))), int(run.mems[s])


def _concrete(shape: Layout, run, path: list[tuple[int, int, int]]) -> list[tuple[State, int]]:
    """A concrete run along the quotient `path` from the initial state,
    permuted so that it ends on the path's last quotient state itself;
    as (state, thread) per step."""
    product = run.product
    groups = product.groups
    group_of = {t: g for g in groups for t in g}
    steps: list[tuple[State, int]] = []
    key, mem = _state(run, 0)
    for _, t, d in path:
        want = _state(run, d)
        for u in group_of.get(t, (t,)):
            if shape.pc(key, u) < shape.machine.lengths[u]:
                after = (shape.step(key, u), product.step(mem, u))
                if canonical(shape, groups, *after) == want:
                    break
        else:
            raise AssertionError("no concrete step for a quotient edge")  # pragma: no cover
        steps.append(((key, mem), u))
        key, mem = after
    end = _state(run, path[-1][2]) if path else (key, mem)
    sigma = _matching(shape, groups, (key, mem), end, product.kind == 1)
    return [(_permuted(shape, state, sigma, product.kind == 1), sigma[u]) for state, u in steps]


def _matching(shape: Layout, groups, state: State, target: State, started: bool) -> list[int]:
    """A permutation (thread -> thread) within the groups that maps `state`
    onto `target` (its orbit's representative)."""
    key, mem = state
    sigma = list(range(len(shape.machine.lengths)))
    for members in groups:
        order = sorted(members, key=lambda t: (shape.pc(key, t), (mem >> t) & 1))
        for source, goal in zip(order, members):
            sigma[source] = goal
    assert _permuted(shape, state, sigma, started) == target, "the stem does not end on the loop"
    return sigma


def _permuted(shape: Layout, state: State, sigma: Sequence[int], started: bool) -> State:
    key, mem = state
    nloc = shape.n_locations
    raw = shape.unpack(key)
    pcs = list(raw[nloc:])
    moved_mem = mem
    for t, pc in enumerate(raw[nloc:]):
        pcs[sigma[t]] = pc
        if started:
            moved_mem = (moved_mem & ~(1 << sigma[t])) | (((mem >> t) & 1) << sigma[t])
    return shape.pack(raw[:nloc] + tuple(pcs)), moved_mem if started else mem


def _lasso(
    shape: Layout,
    value,
    model: ProgressModel,
    n: int,
    stem: list[tuple[State, int]],
    loop: list[tuple[State, int]],
    escapes: list[tuple[int, int]],
    strong: bool,
) -> Lasso:
    machine = shape.machine
    cells = len(machine.locations)
    steps = []
    for (key, mem), t in stem + loop:
        raw = shape.unpack(key)
        pcs = raw[cells:]
        fair = model.fair(shape.enabled(key), value(mem), n)
        memory = tuple(zip(machine.locations, raw[:cells]))
        steps.append(LassoStep(memory, pcs, tuple(_mask(fair)), t, pcs[t]))
    enabled = shape.enabled(loop[0][0][0])
    start = len(stem)
    return diagnosed(tuple(steps), start, enabled, [(start + i, t) for i, t in escapes], "strong" if strong else "weak")
