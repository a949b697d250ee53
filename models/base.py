"""The contract of a progress model (docs/semantics.md section 3).

A model is a name, a one-line definition, and `fair(enabled, memory, n)`: the
fair set F of a state, given the bitmask of enabled threads (bit t set iff
thread t has not terminated), the model's own memory of the run so far, and
the number of threads. F must be a subset of `enabled`, and `fair` must be a
pure, deterministic function.

What a model remembers is a `Memory`: an initial value and how a step of
thread t changes it. Models that share a Memory object share one product LTS,
so reuse `NONE` or `STARTED` where they fit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, eq=False)
class Memory:
    """What a model remembers: `initial(n)`, then `after(memory, thread)` per step.

    A memory value is hashable and opaque to the checker: `after` and the
    model's `fair` receive values this Memory produced (hence `Any`)."""

    name: str
    initial: Callable[[int], Hashable]
    after: Callable[[Any, int], Hashable]


NONE = Memory("none", lambda n: None, lambda memory, thread: None)
"""Remembers nothing: F depends on the enabled threads alone."""

STARTED = Memory("started", lambda n: 0, lambda started, thread: started | (1 << thread))
"""Remembers the bitmask of threads that have taken at least one step."""


@dataclass(frozen=True, eq=False)
class ProgressModel:
    """A progress model: `fair(enabled, memory, n) -> F` as a thread bitmask.

    `below` names the models immediately below this one in the fairness
    order (docs/semantics.md section 5); `rank` orders tables; `has_fairness=False` marks
    a model whose F is always empty, so weak and strong coincide.

    Reductions the large-test checker may use (docs/semantics.md section 9;
    `progress.core.contract` checks each claim on small thread counts):
    `symmetric`: F does not look at thread ids, fair(pi e, pi m, n) =
    pi fair(e, m, n) for every permutation pi (used only with NONE or
    STARTED, whose values it can permute); `view`: the part of the memory F
    reads, view(m) = view(m') implying equal F for every enabled set and
    equal views after every step; `contains`: models whose F, in every
    state, is a subset of this model's (their memory NONE or this one's), so
    their passes are this model's passes.
    """

    name: str
    definition: str
    fair: Callable[[int, Any, int], int]
    memory: Memory = NONE
    below: tuple[str, ...] = ()
    rank: int = 100
    has_fairness: bool = True
    doc: str = field(default="", repr=False)
    symmetric: bool = False
    view: Callable[[Any, int], Hashable] | None = None
    contains: tuple[str, ...] = ()


def lowest(mask: int) -> int:
    """The lowest set bit of `mask` as a mask (0 for 0)."""
    return mask & -mask


def up_to_highest(mask: int) -> int:
    """All bits at or below the highest set bit of `mask` (0 for 0)."""
    return (1 << mask.bit_length()) - 1
