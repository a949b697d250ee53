"""The `enum` engine: every statically possible candidate judged on its
explicit LTS, with per-thread step tables precomputed once per code.

A global state is one int `g = m + M * sum(pc_t * stride_t)` where `m`
encodes memory in base V (M = V^L states of memory). Thread t's step from g
depends only on `k = pc_t * M + m`, so each code gets a table mapping k to
(the change of g, the observations the step makes). Observations are bits
3*i + 0 (instruction i ran with mem[loc] == cmp), + 1 (with !=), + 2 (it
changed memory), numbered over the whole program; constraints 5 and 6 are
"every required bit is observed somewhere reachable".
"""

from __future__ import annotations

from .canonical import from_program, to_program
from .space import Bounds, Candidate, Code, Space, Unit, instruction_options, signature, statically_possible

TAKEN, FALLS, CHANGES = 0, 1, 2


class PartitionJudge:
    """Judges candidates with fixed thread lengths against constraints 1-3, 5, 6."""

    def __init__(self, lengths: tuple[int, ...], bounds: Bounds):
        self.lengths = lengths
        self.values = bounds.values
        self.memories = bounds.values**bounds.locations
        strides, stride = [], self.memories
        for n in lengths:
            strides.append(stride)
            stride *= n + 1
        self.strides = strides
        self.size = stride
        self.bases = [3 * sum(lengths[:t]) for t in range(len(lengths))]
        self.keys = [self._keys_of(g) for g in range(stride)]
        end = sum(n * s for n, s in zip(lengths, strides))
        self.ends = [end + m for m in range(self.memories)]
        self._tables: dict[tuple[int, Code], tuple] = {}

    def _keys_of(self, g: int) -> tuple[tuple[int, int], ...]:
        m, rest = g % self.memories, g // self.memories
        keys = []
        for t, n in enumerate(self.lengths):
            rest, pc = divmod(rest, n + 1)
            if pc < n:
                keys.append((t, pc * self.memories + m))
        return tuple(keys)

    def table(self, t: int, code: Code) -> tuple[tuple[tuple[int, int], ...], int]:
        """Thread t's step table, (delta g, observation bits) for every
        k = pc * M + m, and the observation bits constraints 5 and 6 demand."""
        cached = self._tables.get((t, code))
        if cached is None:
            cached = self._tables[(t, code)] = (self._build(t, code), self._need(t, code))
        return cached

    def _build(self, t: int, code: Code) -> tuple[tuple[int, int], ...]:
        rows = []
        stride, base, values = self.strides[t], self.bases[t], self.values
        for pc, (loc, cmp, target, xchg, val) in enumerate(code):
            weight = values**loc
            for m in range(self.memories):
                old = m // weight % values
                new_m = m + (val - old) * weight if xchg else m
                new_pc = target if old == cmp else pc + 1
                bits = 1 << (base + 3 * pc + (TAKEN if old == cmp else FALLS))
                if new_m != m:
                    bits |= 1 << (base + 3 * pc + CHANGES)
                rows.append((new_m - m + (new_pc - pc) * stride, bits))
        return tuple(rows)

    def _need(self, t: int, code: Code) -> int:
        need = 0
        for pc, (_, _, target, xchg, _) in enumerate(code):
            at = self.bases[t] + 3 * pc
            if target != pc + 1:
                need |= 1 << (at + TAKEN) | 1 << (at + FALLS)
            if xchg:
                need |= 1 << (at + CHANGES)
        return need

    def judge(self, candidate: Candidate) -> bool:
        """Whether the candidate meets constraints 1, 2, 3, 5 and 6 (dynamic parts)."""
        tables, need = [], 0
        for t, code in enumerate(candidate):
            rows, bits = self.table(t, code)
            tables.append(rows)
            need |= bits
        keys = self.keys
        seen = bytearray(self.size)
        seen[0] = 1
        order = [0]
        observed = 0
        for g in order:  # grows while iterating: breadth first
            for t, k in keys[g]:
                delta, bits = tables[t][k]
                observed |= bits
                if not seen[g + delta]:
                    seen[g + delta] = 1
                    order.append(g + delta)
        if observed & need != need:
            return False
        ends = [e for e in self.ends if seen[e]]
        return bool(ends) and self._cycle_and_all_finish(tables, order, ends)

    def _cycle_and_all_finish(self, tables, order: list[int], ends: list[int]) -> bool:
        """Constraint 3 (some cycle) and 2 (every state reaches an end state).

        Peeling states whose successors are all peeled (Kahn) leaves exactly
        the states that reach a cycle: a cycle exists iff something is left."""
        keys = self.keys
        preds: dict[int, list[int]] = {g: [] for g in order}
        for g in order:
            for t, k in keys[g]:
                preds[g + tables[t][k][0]].append(g)
        pending = {g: len(keys[g]) for g in order}
        queue = list(ends)
        for h in queue:  # grows while iterating
            for g in preds[h]:
                pending[g] -= 1
                if pending[g] == 0:
                    queue.append(g)
        if len(queue) == len(order):
            return False
        finishing = set(ends)
        queue = list(ends)
        for h in queue:
            for g in preds[h]:
                if g not in finishing:
                    finishing.add(g)
                    queue.append(g)
        return len(finishing) == len(order)


def search_unit(space: Space, unit: Unit, judges: dict) -> tuple[list[tuple[tuple[int, ...], Candidate]], int]:
    """The unit's candidates that meet every constraint, and how many were judged."""
    found = []
    judged = 0
    for lengths, candidate in space.candidates(unit):
        judge = judges.get(lengths)
        if judge is None:
            judge = judges[lengths] = PartitionJudge(lengths, space.bounds)
        judged += 1
        if judge.judge(candidate):
            found.append((lengths, candidate))
    return found, judged


def accepts(candidate: Candidate, bounds: Bounds) -> bool:
    """Whether the engine keeps this one candidate: generated (constraint 4),
    statically possible, and judged on its LTS (locations in any order)."""
    candidate = from_program(to_program(candidate))
    lengths = tuple(len(code) for code in candidate)
    if any(
        ins not in instruction_options(n, i, bounds)
        for n, code in zip(lengths, candidate)
        for i, ins in enumerate(code)
    ):
        return False
    if not statically_possible(tuple(signature(code, bounds.values) for code in candidate), bounds.values):
        return False
    return PartitionJudge(lengths, bounds).judge(candidate)
