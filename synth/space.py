"""The bounded candidate space of docs/semantics.md section 6, statically pruned and cut
into deterministic work units.

An instruction is a tuple `(loc, cmp, target, xchg, val)` of ints (xchg a
bool); a thread's code is a tuple of instructions; a candidate is a tuple of
codes, one per thread. Only instructions that meet constraint 4 (meaningful
comparisons) are generated. Codes are grouped by a *signature* that holds
everything the static checks need:

- canonical form: locations must appear in order of first use (thread 0
  first), which picks exactly one program per location-renaming class;
- constraint 6, static part: an exchanging instruction shares its location
  with a non-store of another thread, a non-store shares its location with
  some instruction of another thread;
- constraint 3, static part: a cycle needs a backward branch (target <= index);
- constraints 5 and 6, static part: memory starts at 0, so a non-store on x
  comparing with 0 (or an exchange writing 0 to x) needs some instruction
  writing a non-zero value to x, and a non-store comparing with c > 0 needs
  some instruction writing c to x.

Every rejection here is implied by the constraints (tests check it against
`constraints.violations`), so pruning loses no test. A `Unit` is a slice of
one signature combination's product; the unit list depends only on the
bounds, so a unit id is a resumable cursor and a deterministic shard key.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator
from dataclasses import dataclass

Instruction = tuple[int, int, int, bool, int]
Code = tuple[Instruction, ...]
Candidate = tuple[Code, ...]

UNIT_SIZE = 4096
"""Candidates per work unit (the granularity of commits, resumes and shards)."""


@dataclass(frozen=True)
class Bounds:
    """T threads, I instructions in total (each thread >= 1), at most L
    locations, values 0..V-1."""

    threads: int
    instructions: int
    locations: int = 2
    values: int = 2

    @property
    def label(self) -> str:
        return f"{self.threads}t{self.instructions}i"


@dataclass(frozen=True)
class Signature:
    """What the static checks need to know about one thread's code."""

    first_use: tuple[int, ...]
    used: int  # bitmask of locations
    nonstore: int  # locations read by a non-store
    xchg: int  # locations of exchanging instructions
    back: bool  # a backward branch (target <= index)
    writes: int  # bit loc*V+val for every exchange writing val != 0
    need_nonzero: int  # locations that need some non-zero write
    need_value: int  # bits loc*V+val that need a write of exactly val
    written: int  # locations with a non-zero write


@dataclass(frozen=True)
class Unit:
    """Candidates `start..stop` of the space's fixed global order."""

    id: int
    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start


@dataclass(frozen=True)
class Segment:
    """The product of one code list per thread, at `offset` in the global order."""

    lengths: tuple[int, ...]
    lists: tuple[list[Code], ...]
    offset: int
    size: int


def partitions(bounds: Bounds) -> list[tuple[int, ...]]:
    """Thread lengths summing to I, each >= 1, in lexicographic order."""

    def split(threads: int, total: int) -> list[tuple[int, ...]]:
        if threads == 1:
            return [(total,)] if total >= 1 else []
        return [(a,) + rest for a in range(1, total - threads + 2) for rest in split(threads - 1, total - a)]

    return split(bounds.threads, bounds.instructions)


def instruction_options(length: int, index: int, bounds: Bounds) -> list[Instruction]:
    """Every instruction at `index` of a thread of `length` that meets constraint 4."""
    options: list[Instruction] = []
    values = range(bounds.values)
    for loc in range(bounds.locations):
        for target in range(length + 1):
            if target == index + 1:
                options += [(loc, 0, target, True, val) for val in values]
                continue
            for cmp in values:
                options += [(loc, cmp, target, True, val) for val in values]
                options.append((loc, cmp, target, False, 0))
    return options


def signature(code: Code, values: int) -> Signature:
    first: list[int] = []
    used = nonstore = xchg = writes = need_nonzero = need_value = written = 0
    back = False
    for index, (loc, cmp, target, exchanges, val) in enumerate(code):
        if loc not in first:
            first.append(loc)
        used |= 1 << loc
        store = target == index + 1
        if exchanges:
            xchg |= 1 << loc
            if val:
                writes |= 1 << (loc * values + val)
                written |= 1 << loc
            else:
                need_nonzero |= 1 << loc
        if not store:
            nonstore |= 1 << loc
            back = back or target <= index
            if cmp:
                need_value |= 1 << (loc * values + cmp)
            else:
                need_nonzero |= 1 << loc
    return Signature(tuple(first), used, nonstore, xchg, back, writes, need_nonzero, need_value, written)


def grouped_codes(length: int, bounds: Bounds) -> dict[Signature, list[Code]]:
    """Every constraint-4 code of `length`, grouped by signature, in generation order."""
    groups: dict[Signature, list[Code]] = {}
    columns = [instruction_options(length, i, bounds) for i in range(length)]
    for code in itertools.product(*columns):
        groups.setdefault(signature(code, bounds.values), []).append(code)
    return groups


def canonical_order(signatures: tuple[Signature, ...]) -> bool:
    """Locations appear in order of first use, thread 0 first."""
    order: list[int] = []
    for sig in signatures:
        order += [loc for loc in sig.first_use if loc not in order]
    return order == list(range(len(order)))


def statically_possible(signatures: tuple[Signature, ...], values: int) -> bool:
    """The static parts of constraints 3, 5 and 6 (see the module docstring)."""
    if not any(sig.back for sig in signatures):
        return False
    writes = nonzero = 0
    for sig in signatures:
        writes |= sig.writes
        nonzero |= sig.written
    for t, sig in enumerate(signatures):
        others_used = others_nonstore = 0
        for u, other in enumerate(signatures):
            if u != t:
                others_used |= other.used
                others_nonstore |= other.nonstore
        if sig.xchg & ~others_nonstore or sig.nonstore & ~others_used:
            return False
        if sig.need_nonzero & ~nonzero or sig.need_value & ~writes:
            return False
    return True


class Space:
    """The candidate space of one bounds: its sizes and its work units.

    Building it groups every code by signature (cheap: at most a few tens of
    thousands of codes per thread length for the paper's bounds). Candidates
    that pass the static checks are laid out in one fixed global order:
    partitions in lexicographic order, then signature combinations, then the
    product of their code lists (the last thread varying fastest)."""

    def __init__(self, bounds: Bounds, unit_size: int = UNIT_SIZE):
        if bounds.threads < 1 or bounds.instructions < bounds.threads:
            raise ValueError("need at least one thread and one instruction per thread")
        if bounds.locations < 1 or bounds.values < 2:
            raise ValueError("need at least one location and two values")
        self.bounds = bounds
        lengths_used = sorted(set(itertools.chain(*partitions(bounds))))
        groups = {n: grouped_codes(n, bounds) for n in lengths_used}
        self.raw_size = 0  # constraint-4 programs, all location namings
        self.canonical_size = 0  # one per location-renaming class
        self.canonical_by_partition: dict[tuple[int, ...], int] = {}
        self.segments: list[Segment] = []
        for lengths in partitions(bounds):
            self._add_partition(lengths, groups)
        self.pruned_size = sum(seg.size for seg in self.segments)  # judged on an LTS
        self.units = [
            Unit(i, start, min(self.pruned_size, start + unit_size))
            for i, start in enumerate(range(0, self.pruned_size, unit_size))
        ]

    def _add_partition(self, lengths, groups) -> None:
        per_thread = [sorted(groups[n].items(), key=lambda item: _sig_key(item[0])) for n in lengths]
        self.raw_size += _product(sum(len(codes) for _, codes in options) for options in per_thread)
        canonical = 0
        for combo in _canonical_combos(per_thread, (), ()):
            size = _product(len(codes) for _, codes in combo)
            canonical += size
            if statically_possible(tuple(sig for sig, _ in combo), self.bounds.values):
                offset = self.segments[-1].offset + self.segments[-1].size if self.segments else 0
                self.segments.append(Segment(lengths, tuple(codes for _, codes in combo), offset, size))
        self.canonical_by_partition[lengths] = canonical
        self.canonical_size += canonical

    def candidates(self, unit: Unit) -> Iterator[tuple[tuple[int, ...], Candidate]]:
        """(thread lengths, candidate) for every candidate of the unit, in order."""
        first = bisect.bisect_right([seg.offset for seg in self.segments], unit.start) - 1
        for seg in self.segments[first:]:
            if seg.offset >= unit.stop:
                break
            low = max(unit.start, seg.offset) - seg.offset
            high = min(unit.stop, seg.offset + seg.size) - seg.offset
            for index in range(low, high):
                yield seg.lengths, _nth(seg.lists, index)


def _canonical_combos(per_thread, prefix: tuple, order: tuple[int, ...]):
    """Signature combinations (in product order) whose locations appear in
    first-use order; a prefix that breaks the order is cut at once."""
    if len(prefix) == len(per_thread):
        yield prefix
        return
    for sig, codes in per_thread[len(prefix)]:
        new = order + tuple(loc for loc in sig.first_use if loc not in order)
        if new == tuple(range(len(new))):
            yield from _canonical_combos(per_thread, prefix + ((sig, codes),), new)


def _nth(lists: tuple[list[Code], ...], index: int) -> Candidate:
    """The index-th element of the product of `lists` (the last varies fastest)."""
    codes = []
    for codes_of_thread in reversed(lists):
        index, digit = divmod(index, len(codes_of_thread))
        codes.append(codes_of_thread[digit])
    return tuple(reversed(codes))


def _sig_key(sig: Signature) -> tuple:
    return (
        sig.first_use,
        sig.used,
        sig.nonstore,
        sig.xchg,
        sig.back,
        sig.writes,
        sig.need_nonzero,
        sig.need_value,
        sig.written,
    )


def _product(numbers) -> int:
    result = 1
    for number in numbers:
        result *= number
    return result
