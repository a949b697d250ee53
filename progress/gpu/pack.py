"""Many tests in one dispatch: where each test's workgroups go, and the buffers the interpreter reads.

A pack is K tests with the same thread count N, run under one heuristic
with M instances each (M = 1 for plain), W = N * M workgroups a test. Its
K * W workgroups are the tests' own launches laid out one of two ways
(`LAYOUTS` on a GPU, `CPU_LAYOUTS` on a CPU adapter: every pack concat), each
test's workgroups placed inside it by `heuristics.slot`:

- `concat` (plain, rr): test g div W runs its workgroup g mod W: each
  test's launch as it is, one after another, so neighbours stay neighbours
  (rr's livelocks need the threads of an instance side by side);
- `interleave` (chunked): test g mod K runs its workgroup g div K: the K
  tests start together, so a test whose spinning workgroups hold every
  slot until the deadline (chunked's starvation) holds them while the
  others' do too, not one after another.

Either way every test sees its own heuristic's order (thread i < j of one
instance run on packed workgroups w_i < w_j). What a scheduler sees
changes: K tests' workgroups are co-resident and compete for the same
slots (docs/gpu.md, "Packing"). Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from progress.gpu.encode import Encoded
from progress.gpu.heuristics import Geometry, geometry
from progress.gpu.heuristics import slot as test_slot
from progress.gpu.heuristics import workgroup_of as test_workgroup

LAYOUTS = {"plain": "concat", "rr": "concat", "chunked": "interleave"}
"""How each heuristic's tests are laid out in a pack on a GPU (see the module docstring)."""
CPU_LAYOUTS = {"plain": "concat", "rr": "concat", "chunked": "concat"}
"""On a CPU adapter (lavapipe): every pack `concat`. lavapipe hands each of
its T threads a contiguous chunk of a dispatch's workgroups and runs them
one after another to completion, so a concat test lies in one thread's
chunk (unless a chunk boundary cuts it) and runs exactly as with one
thread, while interleaved chunked tests have every instance's threads on
different lavapipe threads, and what they do depends on those threads'
timing (docs/results/gpu/interp/lavapipe_variance.md)."""
LAYOUT_CODES = {"interleave": 0, "concat": 1}
"""The integer each layout is passed to a kernel as."""


@dataclass(frozen=True)
class Pack:
    """K tests of N threads under one heuristic, M instances each."""

    heuristic: str
    threads: int
    instances: int
    tests: int
    layout: str = ""
    """`concat` or `interleave`; empty: the heuristic's in `LAYOUTS`."""

    def __post_init__(self) -> None:
        if not self.layout:
            object.__setattr__(self, "layout", LAYOUTS[self.heuristic])
        if self.layout not in LAYOUT_CODES:
            raise ValueError(f"unknown pack layout {self.layout!r} (one of {', '.join(LAYOUT_CODES)})")

    @property
    def launch(self) -> Geometry:
        """Each test's own launch."""
        return geometry(self.heuristic, self.threads, self.instances)

    @property
    def workgroups(self) -> int:
        return self.tests * self.launch.workgroups


def slot(pack: Pack, workgroup: int) -> tuple[int, int, int]:
    """(test, instance, thread) that packed `workgroup` runs."""
    if not 0 <= workgroup < pack.workgroups:
        raise ValueError(f"workgroup {workgroup} outside 0..{pack.workgroups - 1}")
    if pack.layout == "concat":
        test, local = divmod(workgroup, pack.launch.workgroups)
    else:
        local, test = divmod(workgroup, pack.tests)
    instance, thread = test_slot(pack.launch, local)
    return test, instance, thread


def workgroup_of(pack: Pack, test: int, instance: int, thread: int) -> int:
    """The inverse of `slot`."""
    local = test_workgroup(pack.launch, instance, thread)
    if pack.layout == "concat":
        return test * pack.launch.workgroups + local
    return local * pack.tests + test


def batches(threads: Sequence[int], per_test: Callable[[int], int], max_workgroups: int) -> list[range]:
    """Runs of consecutive tests (by index) with equal thread counts, each cut
    so that its tests' largest launch (`per_test(N)` workgroups, the most any
    heuristic of the run needs) times their number is at most `max_workgroups`.
    ValueError if one test alone does not fit."""
    out: list[range] = []
    start = 0
    while start < len(threads):
        n = threads[start]
        size = per_test(n)
        if size > max_workgroups:
            raise ValueError(f"one {n}-thread test needs {size} workgroups, more than the {max_workgroups} of a launch")
        most = max_workgroups // size
        end = start + 1
        while end < len(threads) and threads[end] == n and end - start < most:
            end += 1
        out.append(range(start, end))
        start = end
    return out


@dataclass(frozen=True)
class Buffers:
    """What the interpreter reads for one pack (int32/uint32 numpy arrays):
    `code` (every test's words), `starts`/`lengths` ([test * N + thread]),
    `cells` (L of each test), `bases` (int64: where each test's M instance
    regions start in `memory`), `memory` (the pristine memory, M copies of
    each test's initial cells)."""

    code: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    cells: np.ndarray
    bases: np.ndarray
    memory: np.ndarray


def buffers(tests: Sequence[Encoded], instances: int) -> Buffers:
    """The pack's buffers for `tests` (all with one thread count), M = `instances`."""
    offsets = np.cumsum([0] + [len(t.words) for t in tests])
    code = np.array([w for t in tests for w in t.words] or [0], dtype=np.uint32)
    starts = np.array([s + offsets[k] for k, t in enumerate(tests) for s in t.starts], dtype=np.int32)
    lengths = np.array([n for t in tests for n in t.lengths], dtype=np.int32)
    cells = np.array([len(t.cells) for t in tests], dtype=np.int32)
    bases = np.concatenate([[0], np.cumsum(cells.astype(np.int64) * instances)[:-1]]).astype(np.int64)
    memory = np.concatenate([np.tile(np.array(t.cells, dtype=np.int32), instances) for t in tests])
    return Buffers(code, starts, lengths, cells, bases, memory)


def memory_bytes(tests: Sequence[Encoded], instances: int) -> int:
    """Device memory a pack's run holds: instance memory twice (pristine and
    live), a failed flag per instance, the code and tables."""
    cells = sum(len(t.cells) for t in tests)
    return 8 * cells * instances + 4 * len(tests) * instances + 4 * sum(len(t.words) + 2 * t.threads for t in tests)
