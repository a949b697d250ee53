"""What the checker core explores besides an AXB `Machine`: a `System` whose
stepping units (a kernel's invocations) are grouped into the threads the
progress models speak of (its workgroups), docs/semantics.md section 8.

The core consumes this protocol and never the front end that implements it
(`progress/front/spirv/execute.py` for SPIR-V kernels). States are hashable
and canonical: equal states are equal values, so exploration terminates.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple, Protocol

LOCAL_LOOP = "a local loop"
"""The `action` of a step that comes back to its own state without a visible action."""


class StepNote(NamedTuple):
    """Where a step's visible action is in the source: `where` is
    `file:line` (or the instruction when there is no line), `text` the
    source line, `action` what it does (`atomicExchange lock`, `barrier`)."""

    where: str
    text: str
    action: str


class System(Protocol):
    """A transition system over units grouped into model threads.

    `groups[u]` is the model thread (workgroup) of unit u, non-decreasing in
    u. `successors(state)` lists (unit, next state) for every enabled unit in
    increasing unit order, at most one each (a unit that comes back to its
    own state without a visible action steps to `state` itself). `finished`
    says every unit has returned; a state without successors that is not
    finished is a deadlock."""

    @property
    def name(self) -> str: ...

    @property
    def digest(self) -> str: ...

    @property
    def initial(self) -> Hashable: ...

    @property
    def groups(self) -> tuple[int, ...]: ...

    def successors(self, state: Hashable) -> Sequence[tuple[int, Hashable]]: ...

    def finished(self, state: Hashable) -> bool: ...

    def cells(self, state: Hashable) -> tuple[tuple[str, int], ...]:
        """The shared memory of `state`, named cell by cell."""
        ...

    def positions(self, state: Hashable) -> tuple[int, ...]:
        """Each unit's position in its code (a number; comparable within a unit)."""
        ...

    def note(self, state: Hashable, unit: int) -> StepNote:
        """The visible action of `unit`'s step from `state`."""
        ...

    def held(self, state: Hashable, unit: int) -> tuple[int, ...]:
        """The values `unit` holds in `state` that neither the shared memory
        nor its position shows (loaded or computed and not yet used), in a
        canonical order: two states at the same position holding different
        values are told apart by them."""
        ...

    def waits(self, state: Hashable) -> tuple[tuple[int, StepNote], ...]:
        """The units that have not returned in `state`, with where each one is."""
        ...

    def unit_name(self, unit: int) -> str:
        """How a lasso names a unit (`workgroup 1 invocation 0`)."""
        ...


@dataclass(frozen=True)
class Grouping:
    """Units grouped into model threads: F over threads lifted to units."""

    groups: tuple[int, ...]

    @cached_property
    def n_threads(self) -> int:
        return max(self.groups, default=-1) + 1

    @cached_property
    def members(self) -> tuple[int, ...]:
        """The bitmask of the units of each thread."""
        masks = [0] * self.n_threads
        for unit, thread in enumerate(self.groups):
            masks[thread] |= 1 << unit
        return tuple(masks)

    def threads_of(self, units: int) -> int:
        """The threads with at least one unit in the bitmask `units`."""
        mask = 0
        for thread, members in enumerate(self.members):
            if units & members:
                mask |= 1 << thread
        return mask

    def units_of(self, threads: int, enabled: int) -> int:
        """The enabled units whose thread is in the bitmask `threads`."""
        mask = 0
        for thread, members in enumerate(self.members):
            if threads >> thread & 1:
                mask |= members
        return mask & enabled


class Footprinted(System, Protocol):
    """A System that says what each unit's next step touches: what
    `progress.core.reduce` needs to find steps that commute with every other
    (docs/semantics.md section 11). Optional: a System without these methods
    is checked unreduced."""

    def footprint(self, state: Hashable, unit: int) -> tuple[tuple[int, ...], bool] | None:
        """The cells `unit`'s next step reads or writes and whether it may
        write one, when that step is an access to shared memory; None when it
        is anything else (a barrier, a local loop) or `unit` is not poised."""
        ...

    def step(self, state: Hashable, unit: int) -> Hashable:
        """The state after `unit`'s step from `state` (`unit` enabled)."""
        ...

    def active(self, state: Hashable, unit: int) -> bool:
        """Whether `unit` is enabled in `state` (poised or looping locally)."""
        ...

    def arriving(self, state: Hashable, unit: int) -> bool:
        """Whether `unit`'s next step is its arrival at a workgroup barrier."""
        ...

    def fresh(self, state: Hashable, unit: int) -> bool:
        """Whether `unit` may not have stepped yet; False only for a unit
        that has taken a step on every run to `state`."""
        ...
