"""Program states packed into one int (the large-test checker's states).

Each location holds the index of its value among the values it can ever
hold (its initial value first, then the values stored to it), each thread
its pc; fields sit side by side, locations first, in as many words of
`WORD_BITS` bits as they need, at most `MAX_WORDS` (no field straddles two
words; field f starts at bit `offsets[f]` of the whole key, word
`offsets[f] // 64`). A program whose fields do not fit has no layout. The
key's bits above 62 in each word stay 0, so every word is a non-negative
int64. Pure Python: the
compiled explorer (progress/core/explore_jit.py) reads the same layout from
`Layout.arrays()`-style tuples and steps keys exactly as `step` does.
"""

from __future__ import annotations

from dataclasses import dataclass

from progress.core.semantics import Machine

MAX_WORDS = 8
"""The widest key: 8 x 62 = 496 bits (ticket 16 needs 126)."""
WORD_BITS = 62


@dataclass(frozen=True)
class Layout:
    """`code[i]` for instruction i (thread t's start at `bases[t]`) is
    (location, index of cmp in the domain or -1 if never held, target,
    xchg 0/1, index of val); `offsets`/`widths` per field."""

    machine: Machine
    domains: tuple[tuple[int, ...], ...]
    offsets: tuple[int, ...]
    widths: tuple[int, ...]
    code: tuple[tuple[int, int, int, int, int], ...]
    bases: tuple[int, ...]
    initial: int
    n_words: int = 1

    @property
    def n_locations(self) -> int:
        return len(self.domains)

    def words(self, key: int) -> tuple[int, ...]:
        """The key as the compiled explorer holds it: `n_words` int64 words, lowest first."""
        return tuple((key >> (64 * w)) & ((1 << 64) - 1) for w in range(self.n_words))

    def join(self, words) -> int:
        """The key of `words` (the inverse of `words`)."""
        return sum(int(word) << (64 * w) for w, word in enumerate(words))

    def field(self, key: int, index: int) -> int:
        return (key >> self.offsets[index]) & ((1 << self.widths[index]) - 1)

    def pc(self, key: int, thread: int) -> int:
        return self.field(key, self.n_locations + thread)

    def enabled(self, key: int) -> int:
        lengths = self.machine.lengths
        return sum(1 << t for t in range(len(lengths)) if self.pc(key, t) < lengths[t])

    def pack(self, state: tuple[int, ...]) -> int:
        """The key of a Machine state (memory cells, then pcs)."""
        key = 0
        for index, value in enumerate(state):
            if index < self.n_locations:
                value = self.domains[index].index(value)
            key |= value << self.offsets[index]
        return key

    def unpack(self, key: int) -> tuple[int, ...]:
        cells = tuple(self.domains[i][self.field(key, i)] for i in range(self.n_locations))
        return cells + tuple(self.pc(key, t) for t in range(len(self.machine.lengths)))

    def step(self, key: int, thread: int) -> int:
        """The key after enabled `thread` executes its next instruction."""
        pc = self.pc(key, thread)
        loc, cmp, target, xchg, val = self.code[self.bases[thread] + pc]
        old = self.field(key, loc)
        if xchg:
            key = self._put(key, loc, val)
        return self._put(key, self.n_locations + thread, target if old == cmp else pc + 1)

    def _put(self, key: int, index: int, value: int) -> int:
        mask = ((1 << self.widths[index]) - 1) << self.offsets[index]
        return (key & ~mask) | (value << self.offsets[index])


def state_bound(machine: Machine) -> int:
    """An upper bound on the program's reachable states: every pc with
    every value of every location it can hold (no layout needed)."""
    bound = 1
    for length in machine.lengths:
        bound *= length + 1
    for loc in range(len(machine.locations)):
        values = {machine.initial[loc]}
        values.update(val for thread in machine.code for at, _, _, xchg, val in thread if xchg and at == loc)
        bound *= len(values)
    return bound


def layout(machine: Machine, word_bits: int = WORD_BITS, max_words: int = MAX_WORDS) -> Layout | None:
    """The packed layout of `machine`, or None when its fields do not fit
    in `max_words` words of `word_bits` bits (narrower words: tests force
    keys of many words on small programs)."""
    domains: list[list[int]] = [[value] for value in machine.initial[: len(machine.locations)]]
    for thread in machine.code:
        for loc, _, _, xchg, val in thread:
            if xchg and val not in domains[loc]:
                domains[loc].append(val)
    widths = [(len(d) - 1).bit_length() for d in domains] + [length.bit_length() for length in machine.lengths]
    offsets = _place(widths, word_bits, max_words)
    if offsets is None:
        return None
    n_words = 1 + max((o // 64 for o in offsets), default=0)
    code = []
    for thread in machine.code:
        for loc, cmp, target, xchg, val in thread:
            domain = domains[loc]
            cmp_index = domain.index(cmp) if cmp in domain else -1
            code.append((loc, cmp_index, target, int(xchg), domain.index(val) if xchg else 0))
    bases = tuple(sum(machine.lengths[:t]) for t in range(len(machine.lengths)))
    frozen = tuple(tuple(d) for d in domains)
    shape = Layout(machine, frozen, tuple(offsets), tuple(widths), tuple(code), bases, 0, n_words)
    initial = shape.pack(machine.initial)
    return Layout(machine, frozen, tuple(offsets), tuple(widths), tuple(code), bases, initial, n_words)


def _place(widths: list[int], word_bits: int, max_words: int) -> list[int] | None:
    """Field offsets, filling word after word; None if they do not fit."""
    if not 0 < word_bits <= WORD_BITS:
        raise ValueError(f"words of {word_bits} bits: 1 to {WORD_BITS}")
    offsets, word, used = [], 0, 0
    for width in widths:
        if used + width > word_bits:
            word, used = word + 1, 0
            if word == max_words or width > word_bits:
                return None
        offsets.append(64 * word + used)
        used += width
    return offsets
