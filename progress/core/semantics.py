"""The step relation of docs/semantics.md section 1 on compact states.

A state is one flat tuple: the memory cells (in `Program.locations` order)
followed by one program counter per thread. Thread t is enabled iff
`pc[t] < len(thread t)`.
"""

from __future__ import annotations

from dataclasses import dataclass

from progress.core.program import Program


@dataclass(frozen=True)
class Machine:
    """A program compiled for fast stepping."""

    locations: tuple[str, ...]
    lengths: tuple[int, ...]
    code: tuple[tuple[tuple[int, int, int, bool, int], ...], ...]
    initial: tuple[int, ...]

    @property
    def n_threads(self) -> int:
        return len(self.lengths)

    def enabled(self, state: tuple[int, ...]) -> int:
        """Bitmask of the threads that have not terminated in `state`."""
        base = len(self.locations)
        mask = 0
        for t, length in enumerate(self.lengths):
            if state[base + t] < length:
                mask |= 1 << t
        return mask

    def step(self, state: tuple[int, ...], thread: int) -> tuple[int, ...]:
        """The state after enabled `thread` executes its next instruction."""
        slot = len(self.locations) + thread
        pc = state[slot]
        loc, cmp, target, xchg, val = self.code[thread][pc]
        new = list(state)
        if xchg:
            new[loc] = val
        new[slot] = target if state[loc] == cmp else pc + 1
        return tuple(new)

    def memory_of(self, state: tuple[int, ...]) -> dict[str, int]:
        return dict(zip(self.locations, state))

    def pcs_of(self, state: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(state[len(self.locations) :])


def compile_program(program: Program) -> Machine:
    locations = program.locations
    index = {loc: i for i, loc in enumerate(locations)}
    code = tuple(tuple((index[i.loc], i.cmp, i.target, i.xchg, i.val) for i in thread) for thread in program.threads)
    memory = program.initial_memory
    initial = tuple(memory[loc] for loc in locations) + (0,) * len(program.threads)
    return Machine(locations, tuple(len(t) for t in program.threads), code, initial)
