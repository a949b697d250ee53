"""The `z3` engine: docs/semantics.md section 6 as one SMT problem per thread-length
partition, every solution enumerated, each canonical class blocked whole.
The only module that imports z3.

Encoded in Z3 (nothing is checked outside it):
- the program: per instruction `loc`, `cmp`, `target`, `val` (bounded ints)
  and `xchg` (bool); constraint 4 and the location-sharing part of 6 on them;
  canonical form: every location is at most one more than the largest
  used before it (first-use order), so each class has one solution;
- the state space: every state (memory, pcs) is a constant; a step's
  successor is a term over the instruction fields; `reach[s]` is closed under
  steps and justified by a strictly increasing rank from the initial state
  (a least fixed point); `done[s]` (an end state is reachable) is justified by
  a strictly decreasing rank towards an end state;
- constraint 1: some end state is reachable; 2: every reachable state has
  `done`; 3: a non-empty set of reachable states in which every state has a
  successor inside the set (so it contains a cycle); 5 and the memory-change
  part of 6: for each instruction, some reachable state at it with the
  required memory value.
After each solution, a clause excluding the solution and all its location
renamings is added and the solver is asked again until unsat.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import z3

from .space import Bounds, Candidate


class Encoding:
    """The constraints for programs with thread lengths `lengths`."""

    def __init__(self, lengths: tuple[int, ...], bounds: Bounds):
        self.lengths, self.bounds = lengths, bounds
        self.slots = [(t, i) for t, n in enumerate(lengths) for i in range(n)]
        self.fields = {slot: self._fields(slot) for slot in self.slots}
        self.states = self._states()
        self.solver = z3.SolverFor("QF_FD")
        self.solver.add(*self._program_constraints(), *self._state_constraints())

    def _fields(self, slot):
        t, i = slot
        name = f"t{t}i{i}"
        ints = {f: z3.Int(f"{name}_{f}") for f in ("loc", "cmp", "target", "val")}
        return dict(ints, xchg=z3.Bool(f"{name}_xchg"))

    def _states(self):
        memories = list(itertools.product(range(self.bounds.values), repeat=self.bounds.locations))
        pcs = itertools.product(*(range(n + 1) for n in self.lengths))
        return [(m, p) for p in pcs for m in memories]

    def _program_constraints(self):
        b, out = self.bounds, []
        for (t, i), f in self.fields.items():
            n = self.lengths[t]
            out += [
                f["loc"] >= 0,
                f["loc"] < b.locations,
                f["cmp"] >= 0,
                f["cmp"] < b.values,
                f["val"] >= 0,
                f["val"] < b.values,
                f["target"] >= 0,
                f["target"] <= n,
            ]
            store = f["target"] == i + 1
            out.append(z3.Implies(store, z3.And(f["cmp"] == 0, f["xchg"])))  # constraint 4
            out.append(z3.Implies(z3.Not(f["xchg"]), f["val"] == 0))
            others = [(s, g) for s, g in self.fields.items() if s[0] != t]
            out.append(
                z3.Implies(
                    f["xchg"],
                    z3.Or([z3.And(g["loc"] == f["loc"], g["target"] != s[1] + 1) for s, g in others] or [False]),
                )
            )
            out.append(z3.Implies(z3.Not(store), z3.Or([g["loc"] == f["loc"] for _, g in others] or [False])))
        locs = [self.fields[s]["loc"] for s in self.slots]
        out.append(locs[0] == 0)  # canonical: first-use order
        out += [z3.Or([loc <= prev + 1 for prev in locs[:k]]) for k, loc in enumerate(locs) if k]
        return out

    def _read(self, memory, loc):
        """mem[loc] as a term, for a concrete memory."""
        term = z3.IntVal(memory[-1])
        for x in range(len(memory) - 2, -1, -1):
            term = z3.If(loc == x, memory[x], term)
        return term

    def _successors(self, state):
        """(thread, [(condition, destination index)]) for each enabled thread."""
        memory, pcs = state
        result = []
        for t, pc in enumerate(pcs):
            if pc == self.lengths[t]:
                continue
            f = self.fields[(t, pc)]
            old = self._read(memory, f["loc"])
            edges = []
            for dst, (m2, p2) in enumerate(self.states):
                if any(p2[u] != pcs[u] for u in range(len(pcs)) if u != t):
                    continue
                if sum(a != b for a, b in zip(memory, m2)) > 1:
                    continue
                edges.append((z3.And(self._pc_after(f, old, pc, p2[t]), self._mem_after(f, memory, m2)), dst))
            result.append((t, edges))
        return result

    def _pc_after(self, f, old, pc, new_pc):
        return z3.If(old == f["cmp"], f["target"] == new_pc, z3.BoolVal(new_pc == pc + 1))

    def _mem_after(self, f, memory, m2):
        parts = []
        for x, (before, after) in enumerate(zip(memory, m2)):
            written = z3.And(f["xchg"], f["loc"] == x)
            parts.append(z3.If(written, f["val"] == after, z3.BoolVal(before == after)))
        return z3.And(parts)

    def _state_constraints(self):
        count = len(self.states)
        reach = [z3.Bool(f"reach{s}") for s in range(count)]
        done = [z3.Bool(f"done{s}") for s in range(count)]
        cyc = [z3.Bool(f"cycle{s}") for s in range(count)]
        rank = [z3.Int(f"rank{s}") for s in range(count)]
        drank = [z3.Int(f"drank{s}") for s in range(count)]
        init = self.states.index(((0,) * self.bounds.locations, (0,) * len(self.lengths)))
        out = [reach[init], rank[init] == 0]
        out += [z3.And(r >= 0, r < count) for r in rank + drank]
        preds: dict[int, list[Any]] = {s: [] for s in range(count)}  # z3 expressions (z3 has no types)
        ends = []
        for s, state in enumerate(self.states):
            succ = self._successors(state)
            if not succ:
                ends.append(s)
                out.append(z3.Implies(done[s], drank[s] == 0))
                out.append(z3.Not(cyc[s]))
                continue
            edges = [(cond, dst) for _, es in succ for cond, dst in es]
            for cond, dst in edges:
                out.append(z3.Implies(z3.And(reach[s], cond), reach[dst]))  # closed under steps
                preds[dst].append((cond, s))
            out.append(z3.Implies(done[s], z3.Or([z3.And(c, done[d], drank[d] < drank[s]) for c, d in edges])))
            out.append(z3.Implies(cyc[s], z3.And(reach[s], z3.Or([z3.And(c, cyc[d]) for c, d in edges]))))
            out.append(z3.Implies(reach[s], done[s]))  # constraint 2
        for s in range(count):
            if s != init:  # reachability is justified by an increasing rank
                out.append(
                    z3.Implies(
                        reach[s], z3.Or([z3.And(reach[p], c, rank[p] < rank[s]) for c, p in preds[s]] or [False])
                    )
                )
        out.append(z3.Or([reach[e] for e in ends]))  # constraint 1
        out.append(z3.Or(cyc))  # constraint 3
        out += self._observations(reach)
        return out

    def _observations(self, reach):
        """Constraint 5 and the memory-change part of 6."""
        out = []
        for (t, i), f in self.fields.items():
            at = [(s, self._read(m, f["loc"])) for s, (m, p) in enumerate(self.states) if p[t] == i]
            out.append(
                z3.Implies(
                    f["target"] != i + 1,
                    z3.And(
                        z3.Or([z3.And(reach[s], old == f["cmp"]) for s, old in at]),
                        z3.Or([z3.And(reach[s], old != f["cmp"]) for s, old in at]),
                    ),
                )
            )
            out.append(z3.Implies(f["xchg"], z3.Or([z3.And(reach[s], old != f["val"]) for s, old in at])))
        return out

    def candidate(self, model) -> Candidate:
        codes = []
        for t, n in enumerate(self.lengths):
            code = []
            for i in range(n):
                f = self.fields[(t, i)]
                value = {k: model.eval(v, model_completion=True) for k, v in f.items()}
                code.append(
                    (
                        value["loc"].as_long(),
                        value["cmp"].as_long(),
                        value["target"].as_long(),
                        z3.is_true(value["xchg"]),
                        value["val"].as_long(),
                    )
                )
            codes.append(tuple(code))
        return tuple(codes)

    def block(self, candidate: Candidate) -> None:
        """Exclude the candidate's whole class: every renaming of its locations."""
        for perm in itertools.permutations(range(self.bounds.locations)):
            same = []
            for (t, i), f in self.fields.items():
                loc, cmp, target, xchg, val = candidate[t][i]
                same += [
                    f["loc"] == perm[loc],
                    f["cmp"] == cmp,
                    f["target"] == target,
                    f["xchg"] == xchg,
                    f["val"] == val,
                ]
            self.solver.add(z3.Not(z3.And(same)))


def solve_partition(lengths: tuple[int, ...], bounds: Bounds, deadline: float | None = None):
    """Every canonical test with these thread lengths (a generator), or stops
    early at `deadline` (time.monotonic()) by raising TimeoutError."""
    yield from _solutions(Encoding(lengths, bounds), deadline)


def _solutions(encoding, deadline: float | None):
    """Every solution of `encoding`, each blocked once found; TimeoutError at `deadline`."""
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            encoding.solver.set("timeout", max(1, int(left * 1000)))
        answer = encoding.solver.check()
        if answer == z3.unsat:
            return
        if answer != z3.sat:
            raise TimeoutError
        candidate = encoding.candidate(encoding.solver.model())
        encoding.block(candidate)
        yield candidate


class SeparationEncoding(Encoding):
    """Encoding, plus "the test fails `model` under `fairness`": a fair lasso
    exists in the product of the test's LTS with the model's memory.

    Product states are (program state, model memory) for every memory value
    the model can reach with these threads; F of each is concrete (the
    enabled threads follow from the pcs). The lasso is a set S of product
    states (docs/semantics.md section 4's witness):
    - every state of S is reachable (rank-justified from the initial state);
    - S is strongly connected: one root, every state of S reached from it
      and reaching it by steps inside S (both rank-justified), and every
      state of S has a successor in S (so S holds a cycle);
    - weak: every thread is outside F somewhere on S or steps inside S;
      strong: S is closed under fair steps (a step of a thread in F(s) from
      s in S stays in S).
    Touring every edge of S forever is then a fair run that never ends, and
    conversely a witness SCC meets all of the above."""

    def __init__(self, lengths: tuple[int, ...], bounds: Bounds, model, fairness: str):
        super().__init__(lengths, bounds)
        self.solver.add(*self._lasso(model, fairness))

    def _lasso(self, model, fairness: str):
        n = len(self.lengths)
        memory = model.memory
        start = memory.initial(n)
        values, todo = [start], [start]
        while todo:
            current = todo.pop()
            for t in range(n):
                after = memory.after(current, t)
                if after not in values:
                    values.append(after)
                    todo.append(after)
        index = {
            (s, m): k for k, (s, m) in enumerate((s, m) for s in range(len(self.states)) for m in range(len(values)))
        }
        count = len(index)
        edges: list[list[tuple]] = [[] for _ in range(count)]  # (thread, condition, destination)
        fair = [0] * count
        for s, state in enumerate(self.states):
            enabled = sum(1 << t for t, pc in enumerate(state[1]) if pc < self.lengths[t])
            for t, out in self._successors(state):
                for cond, dst in out:
                    for m, value in enumerate(values):
                        after = values.index(memory.after(value, t))
                        edges[index[(s, m)]].append((t, cond, index[(dst, after)]))
            for m, value in enumerate(values):
                fair[index[(s, m)]] = model.fair(enabled, value, n) if model.has_fairness else 0
        preds: list[list[tuple]] = [[] for _ in range(count)]
        for p, out in enumerate(edges):
            for t, cond, d in out:
                preds[d].append((t, cond, p))
        init = index[(self.states.index(((0,) * self.bounds.locations, (0,) * n)), 0)]
        name = f"{model.name}_{fairness}"
        reach = [z3.Bool(f"{name}_reach{p}") for p in range(count)]
        inside = [z3.Bool(f"{name}_in{p}") for p in range(count)]
        root = [z3.Bool(f"{name}_root{p}") for p in range(count)]
        fwd = [z3.Bool(f"{name}_fwd{p}") for p in range(count)]
        bwd = [z3.Bool(f"{name}_bwd{p}") for p in range(count)]
        ranks = {kind: [z3.Int(f"{name}_{kind}{p}") for p in range(count)] for kind in ("rank", "frank", "brank")}
        out = [z3.And(r >= 0, r < count) for rs in ranks.values() for r in rs]
        rank, frank, brank = ranks["rank"], ranks["frank"], ranks["brank"]
        out += [reach[init], rank[init] == 0, z3.PbEq([(r, 1) for r in root], 1)]
        for p in range(count):
            if p != init:
                out.append(
                    z3.Implies(
                        reach[p], z3.Or([z3.And(reach[q], c, rank[q] < rank[p]) for _, c, q in preds[p]] or [False])
                    )
                )
            out.append(z3.Implies(inside[p], z3.And(reach[p], fwd[p], bwd[p])))
            out.append(z3.Implies(root[p], inside[p]))
            came = [z3.And(fwd[q], inside[q], c, frank[q] < frank[p]) for _, c, q in preds[p]]
            out.append(z3.Implies(fwd[p], z3.Or([root[p]] + came)))
            goes = [z3.And(bwd[d], inside[d], c, brank[d] < brank[p]) for _, c, d in edges[p]]
            out.append(z3.Implies(bwd[p], z3.Or([root[p]] + goes)))
            out.append(z3.Implies(inside[p], z3.Or([z3.And(c, inside[d]) for _, c, d in edges[p]] or [False])))
            if fairness == "strong":
                for t, c, d in edges[p]:
                    if fair[p] >> t & 1:
                        out.append(z3.Implies(z3.And(inside[p], c), inside[d]))
        if fairness != "strong":
            for t in range(n):
                unfair_somewhere = [inside[p] for p in range(count) if not fair[p] >> t & 1]
                steps = [z3.And(inside[p], c, inside[d]) for p in range(count) for u, c, d in edges[p] if u == t]
                out.append(z3.Or(unfair_somewhere + steps))
        return out


def solve_failing(lengths: tuple[int, ...], bounds: Bounds, model, fairness: str, deadline: float | None = None):
    """Every canonical test with these thread lengths that fails `model`
    under `fairness` (a generator; TimeoutError at `deadline`)."""
    yield from _solutions(SeparationEncoding(lengths, bounds, model, fairness), deadline)
