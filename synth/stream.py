"""The candidate space as a stream of mixed-radix indices: nothing is
materialized, so memory does not depend on the bounds.

For one thread-length partition, a candidate is a vector of digits, one per
instruction slot (threads in order, instructions in order), digit s choosing
among `instruction_options(n, i, bounds)` (constraint 4 by construction);
its *raw index* is the mixed-radix number of those digits (the last slot
varies fastest). The options of a slot are listed location-major, so every
option that breaks first-use order at a slot comes after every option that
keeps it: a compiled judge skips such a suffix of a digit in one carry.

A `StreamUnit` is a range of raw indices of one partition; units are laid
out partition by partition (lexicographic order, `space.partitions`), each
partition cut into ranges of `unit_raw` raw indices. The unit list depends
only on `(bounds, unit_raw)`, so a unit is described by those and its id:
a resumable cursor and a deterministic shard key that a worker expands on
its own (`fast_judge.judge_unit`).

Static pruning is `space.statically_possible` plus canonical first-use
order, applied per candidate by the judge, with the same signatures as
`space.signature` split into per-option contributions (`contributions`).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from .space import Bounds, Candidate, instruction_options, partitions

UNIT_RAW = 1 << 21
"""Raw indices per unit by default: about 0.1-0.3 s of compiled work at 2t5i-2t6i."""

FIELDS = ("loc", "cmp", "target", "xchg", "val")
CONTRIBUTIONS = ("used", "nonstore", "xchg", "back", "writes", "need_nonzero", "need_value", "written")
MAX_SLOTS = 21
"""Observation bits are 3 per instruction in one 64-bit word."""


@dataclass(frozen=True)
class StreamUnit:
    """Raw indices `start..stop` of partition number `partition`."""

    id: int
    partition: int
    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start


class PartitionTable:
    """Everything a compiled judge needs about one partition, as int64 arrays.

    - `radices[s]`: options at slot s; `place[s]`: the weight of digit s;
    - `options[s, k, f]`: field f (FIELDS) of option k at slot s;
    - `contrib[s, k, c]`: option k's contribution c (CONTRIBUTIONS) to its
      thread's signature, as in `space.signature`;
    - `thread_of`, `index_of`: slot -> thread, position in the thread;
      `starts[t]`: thread t's first slot;
    - the state space of `enum_engine.PartitionJudge`: state g = m + M *
      sum(pc_t * stride_t / M); `pcs[q, t]`: thread t's pc in pc-combination q
      = g // M; `end_q`: the combination where every thread is done."""

    def __init__(self, lengths: tuple[int, ...], bounds: Bounds):
        self.lengths = lengths
        self.bounds = bounds
        slots = [(t, i) for t, n in enumerate(lengths) for i in range(n)]
        if len(slots) > MAX_SLOTS:
            raise ValueError(f"at most {MAX_SLOTS} instructions")
        columns = [instruction_options(lengths[t], i, bounds) for t, i in slots]
        width = max(len(c) for c in columns)
        self.radices = np.array([len(c) for c in columns], dtype=np.int64)
        self.options = np.zeros((len(slots), width, len(FIELDS)), dtype=np.int64)
        self.contrib = np.zeros((len(slots), width, len(CONTRIBUTIONS)), dtype=np.int64)
        for s, ((_, i), column) in enumerate(zip(slots, columns)):
            locs = [ins[0] for ins in column]
            assert locs == sorted(locs), "options must be location-major"
            for k, ins in enumerate(column):
                self.options[s, k] = [int(x) for x in ins]
                self.contrib[s, k] = contributions(ins, i, bounds.values)
        self.place = np.ones(len(slots), dtype=np.int64)
        for s in range(len(slots) - 2, -1, -1):
            self.place[s] = self.place[s + 1] * self.radices[s + 1]
        self.size = math.prod(int(r) for r in self.radices)
        self.thread_of = np.array([t for t, _ in slots], dtype=np.int64)
        self.index_of = np.array([i for _, i in slots], dtype=np.int64)
        self.starts = np.array([sum(lengths[:t]) for t in range(len(lengths))], dtype=np.int64)
        self.lengths_array = np.array(lengths, dtype=np.int64)
        self.memories = bounds.values**bounds.locations
        self.weights = np.array([bounds.values**loc for loc in range(bounds.locations)], dtype=np.int64)
        combos, stride = [], 1
        for n in lengths:
            combos.append(stride)
            stride *= n + 1
        self.strides = np.array(combos, dtype=np.int64) * self.memories  # in states
        self.states = stride * self.memories
        self.pcs = np.array(
            [[q // c % (n + 1) for c, n in zip(combos, lengths)] for q in range(stride)], dtype=np.int64
        ).reshape(stride, len(lengths))
        self.end_q = sum(n * c for n, c in zip(lengths, combos))
        # the judge's step tables: slot s running option k from memory m
        self.step_delta = np.zeros((len(slots), width, self.memories), dtype=np.int64)
        self.step_bits = np.zeros((len(slots), width, self.memories), dtype=np.int64)
        self.need_bits = np.zeros((len(slots), width), dtype=np.int64)
        for s, ((t, i), column) in enumerate(zip(slots, columns)):
            for k, (loc, cmp, target, xchg, val) in enumerate(column):
                self.need_bits[s, k] = (3 if target != i + 1 else 0) << (3 * s) | (4 if xchg else 0) << (3 * s)
                weight = bounds.values**loc
                for m in range(self.memories):
                    old = m // weight % bounds.values
                    new_m = m + (val - old) * weight if xchg else m
                    new_pc = target if old == cmp else i + 1
                    bits = (1 if old == cmp else 2) | (4 if new_m != m else 0)
                    self.step_delta[s, k, m] = new_m - m + (new_pc - i) * int(self.strides[t])
                    self.step_bits[s, k, m] = bits << (3 * s)
        # per state g: its memory and the slot each thread is at (-1: done)
        self.memory_of = np.array([g % self.memories for g in range(self.states)], dtype=np.int64)
        self.slot_at = np.array(
            [
                [
                    int(self.starts[t]) + pc if pc < n else -1
                    for t, (pc, n) in enumerate(zip(self.pcs[g // self.memories], lengths))
                ]
                for g in range(self.states)
            ],
            dtype=np.int64,
        ).reshape(self.states, len(lengths))

    def digits(self, index: int) -> list[int]:
        return [index // int(p) % int(r) for p, r in zip(self.place, self.radices)]

    def candidate(self, index: int) -> Candidate:
        """The candidate at raw index `index` (any index, canonical or not)."""
        codes: list[list] = [[] for _ in self.lengths]
        for s, d in enumerate(self.digits(index)):
            loc, cmp, target, xchg, val = (int(x) for x in self.options[s, d])
            codes[int(self.thread_of[s])].append((loc, cmp, target, bool(xchg), val))
        return tuple(tuple(code) for code in codes)

    def candidates(self, indices: np.ndarray) -> list[Candidate]:
        """The candidates at raw indices `indices` (decoded with numpy, in order).

        Thread t's code is the mixed-radix number of its slots' digits,
        `index // place[its last slot] % (product of its radices)`; each
        distinct code among `indices` is built once and shared by every
        candidate holding it."""
        indices = np.asarray(indices, dtype=np.int64)
        if not len(indices):
            return []
        columns = []
        for a, n in zip(self.starts, self.lengths):
            a, n = int(a), int(n)
            numbers = indices // self.place[a + n - 1] % math.prod(int(r) for r in self.radices[a : a + n])
            distinct, inverse = np.unique(numbers, return_inverse=True)
            codes = [self._code(a, n, int(k)) for k in distinct]
            columns.append([codes[i] for i in inverse.tolist()])
        return list(zip(*columns))

    @cached_property
    def _instructions(self) -> list[list[tuple]]:
        """Per slot, its options as instruction tuples."""
        return [
            [(a, b, c, bool(d), e) for a, b, c, d, e in self.options[s, : self.radices[s]].tolist()]
            for s in range(len(self.radices))
        ]

    def _code(self, first: int, n: int, number: int) -> tuple:
        """The code of slots first..first + n - 1 whose digits, as a mixed-radix number, are `number`."""
        code = []
        for s in range(first + n - 1, first - 1, -1):
            number, d = divmod(number, int(self.radices[s]))
            code.append(self._instructions[s][d])
        return tuple(reversed(code))

    def index(self, candidate: Candidate) -> int:
        """The raw index of `candidate` (its thread lengths must be this partition's)."""
        flat = [ins for code in candidate for ins in code]
        total = 0
        for s, ins in enumerate(flat):
            row = [int(x) for x in ins]
            matches = np.nonzero((self.options[s, : self.radices[s]] == row).all(axis=1))[0]
            if len(matches) != 1:
                raise ValueError(f"{ins} is not an option at slot {s}")
            total += int(matches[0]) * int(self.place[s])
        return total


def contributions(ins, index: int, values: int) -> list[int]:
    """One instruction's part of `space.signature`, field by field (CONTRIBUTIONS)."""
    loc, cmp, target, xchg, val = ins
    store = target == index + 1
    used = 1 << loc
    nonstore = 0 if store else 1 << loc
    exchanges = 1 << loc if xchg else 0
    back = 1 if not store and target <= index else 0
    writes = 1 << (loc * values + val) if xchg and val else 0
    written = 1 << loc if xchg and val else 0
    need_nonzero = (1 << loc if xchg and not val else 0) | (1 << loc if not store and not cmp else 0)
    need_value = 1 << (loc * values + cmp) if not store and cmp else 0
    return [used, nonstore, exchanges, back, writes, need_nonzero, need_value, written]


def _restricted_growth(length: int, symbols: int) -> int:
    """Sequences of `length` over `symbols` symbols in first-use order (sum of Stirling numbers)."""
    # ways[k] = sequences so far using exactly k symbols
    ways = [1] + [0] * symbols
    for _ in range(length):
        ways = [(ways[k] * k if k else 0) + (ways[k - 1] if k else 0) for k in range(symbols + 1)]
    return sum(ways)


class StreamSpace:
    """The space of `bounds` cut into units of `unit_raw` raw indices.

    Cheap to build (one small table per partition, built on first use), so
    every worker builds its own from the description `(bounds, unit_raw)`."""

    def __init__(self, bounds: Bounds, unit_raw: int = UNIT_RAW):
        if bounds.threads < 1 or bounds.instructions < bounds.threads:
            raise ValueError("need at least one thread and one instruction per thread")
        if bounds.locations < 1 or bounds.values < 2:
            raise ValueError("need at least one location and two values")
        if unit_raw < 1:
            raise ValueError("unit_raw must be positive")
        self.bounds = bounds
        self.unit_raw = unit_raw
        self.partitions = partitions(bounds)
        self.partition_sizes = [
            math.prod(len(instruction_options(n, i, bounds)) for n in lengths for i in range(n))
            for lengths in self.partitions
        ]
        self.raw_size = sum(self.partition_sizes)
        """Programs meeting constraint 4 (every location naming)."""
        per_location = self.raw_size // bounds.locations**bounds.instructions
        self.canonical_size = per_location * _restricted_growth(bounds.instructions, bounds.locations)
        """One program per location-renaming class (options are the same for every location)."""
        self.unit_counts = [-(-size // unit_raw) for size in self.partition_sizes]
        self.first_unit = [sum(self.unit_counts[:p]) for p in range(len(self.partitions))]
        self.unit_count = sum(self.unit_counts)

    def table(self, partition: int) -> PartitionTable:
        return _table(self.partitions[partition], self.bounds)

    def unit(self, unit_id: int) -> StreamUnit:
        if not 0 <= unit_id < self.unit_count:
            raise IndexError(f"unit {unit_id} of {self.unit_count}")
        p = bisect.bisect_right(self.first_unit, unit_id) - 1
        start = (unit_id - self.first_unit[p]) * self.unit_raw
        return StreamUnit(unit_id, p, start, min(self.partition_sizes[p], start + self.unit_raw))

    def units(self):
        """Every unit, in id order (a generator: 2t6i has tens of thousands)."""
        return (self.unit(u) for u in range(self.unit_count))

    @cached_property
    def unit_sizes(self) -> list[int]:
        """Raw indices per unit, in id order."""
        return [u.size for u in self.units()]


@lru_cache(maxsize=64)
def _table(lengths: tuple[int, ...], bounds: Bounds) -> PartitionTable:
    return PartitionTable(lengths, bounds)
