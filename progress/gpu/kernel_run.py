"""Running an instrumented kernel: launch shapes, records, outcomes (pure).

A kernel run launches the kernel that `back/spirv_deadline.py` instrumented,
N iterations per launch shape, and reads back, per iteration, the control
buffer's records: for each workgroup of the kernel how many invocations
returned and how many left at a check, and where the first left. An
iteration *finished* when every invocation of every kernel workgroup
returned and no occupier had to time out; otherwise it *timed out*.

Launch shapes (the kernel analogue of plain/rr/chunked, `SHAPES`):

- `alone`: the dispatch as written, W workgroups, ids in order.
- `occupied`: `occupy` occupying workgroups first in the dispatch, then the
  kernel's W; an occupier spins until every kernel invocation has ended, so
  the kernel's workgroups get only the slots the occupiers leave.
- `reverse`, `interleave`: the dispatch alone, the x ids the kernel reads
  mapped w -> W-1-w, or even ids first (w < ceil(W/2) -> 2w, else 2(w -
  ceil(W/2)) + 1): the device's dispatch order is no longer the kernel's
  id order.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from progress.back.spirv_checks import (
    BUDGET,
    CONTROL_WORDS,
    DONE,
    EXPIRY_BIT,
    FIRST_SITE,
    LEFT,
    MAPPING,
    MAPPINGS,
    OCCUPIER_TIMEOUTS,
    OCCUPIERS,
    RECORD_WORDS,
    SITE,
    TICKS,
    WORKGROUPS,
)
from progress.back.spirv_deadline import Instrumented, Site
from progress.back.spirv_edit import without_line_info
from progress.back.spirv_encode import encode

SHAPES = ("alone", "occupied", "reverse", "interleave")
SHAPE_MAPPING = {"alone": "identity", "occupied": "identity", "reverse": "identity", "interleave": "identity"}
SHAPE_MAPPING.update(reverse="reverse", interleave="interleave")


@dataclass(frozen=True)
class KernelBuffer:
    """One buffer the kernel binds: descriptor set and binding, `uniform`
    (read-only uniform block), `read-only` or `storage`, its initial bytes,
    and its name (for the report)."""

    name: str
    set: int
    binding: int
    kind: str
    initial: bytes


@dataclass(frozen=True)
class KernelLaunch:
    """An instrumented kernel ready to launch: the binary the device reads,
    its entry point, workgroup size, the kernel's workgroups (x), buffers, the
    control buffer's descriptor set and the check sites."""

    name: str
    binary: bytes
    entry: str
    local_size: tuple[int, int, int]
    workgroups: int
    buffers: tuple[KernelBuffer, ...]
    control_set: int | None  # None: the kernel as written, without instrumentation
    sites: tuple[Site, ...]
    occupiers: bool = True  # whether the module has the occupiers' branch (the occupied shape)

    @property
    def invocations(self) -> int:
        x, y, z = self.local_size
        return x * y * z


def instrumented_launch(
    name: str, done: Instrumented, entry: str, workgroups: int, buffers: tuple[KernelBuffer, ...]
) -> KernelLaunch:
    """The launch of an instrumented kernel: its binary without line information
    (what naga reads), its buffers, a `push` one (set -1, `binding` its index
    among the push constants) read-only where the pass put it."""
    placed = tuple(
        b
        if b.kind != "push"
        else KernelBuffer(b.name, done.descriptor_set, done.push_bindings[b.binding], "read-only", b.initial)
        for b in buffers
    )
    binary = encode(without_line_info(done.module))
    return KernelLaunch(
        name, binary, entry, done.local_size, workgroups, placed, done.descriptor_set, done.sites, done.occupiers
    )


@dataclass(frozen=True)
class Shape:
    name: str
    occupiers: int = 0

    @property
    def mapping(self) -> str:
        return SHAPE_MAPPING[self.name]


def parse_shapes(text: str) -> tuple[str, ...]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in SHAPES]
    if unknown or not names:
        raise ValueError(f"unknown launch shape(s) {', '.join(unknown) or '(none)'}; choose from {','.join(SHAPES)}")
    return tuple(s for s in SHAPES if s in names)


def control_words(launch: KernelLaunch, shape: Shape, budget: int, ticks: int = 0) -> bytes:
    """The control buffer's initial bytes for one iteration."""
    words = [0] * (CONTROL_WORDS + RECORD_WORDS * launch.workgroups)
    words[BUDGET], words[TICKS] = budget, ticks
    words[OCCUPIERS], words[WORKGROUPS] = shape.occupiers, launch.workgroups
    words[MAPPING] = MAPPINGS.index(shape.mapping)
    return struct.pack(f"<{len(words)}I", *words)


@dataclass(frozen=True)
class WorkgroupRecord:
    done: int
    left: int
    site: int | None  # index into the launch's sites, of the first invocation to leave
    expired: bool  # that invocation left because the launch had expired, not by its own deadline


@dataclass(frozen=True)
class Iteration:
    """What one launch did."""

    workgroups: tuple[WorkgroupRecord, ...]
    first_site: int | None
    occupier_timeouts: int
    seconds: float

    def finished(self, invocations: int) -> bool:
        return self.occupier_timeouts == 0 and all(w.done == invocations and not w.left for w in self.workgroups)


def read_iteration(raw: bytes, workgroups: int, seconds: float) -> Iteration:
    """The records in a control buffer read back after a launch."""
    words = struct.unpack_from(f"<{CONTROL_WORDS + RECORD_WORDS * workgroups}I", raw)
    records = []
    for w in range(workgroups):
        base = CONTROL_WORDS + RECORD_WORDS * w
        site = words[base + SITE]
        records.append(WorkgroupRecord(words[base + DONE], words[base + LEFT], _site(site), bool(site & EXPIRY_BIT)))
    return Iteration(tuple(records), _site(words[FIRST_SITE]), words[OCCUPIER_TIMEOUTS], seconds)


def _site(word: int) -> int | None:
    index = word & ~EXPIRY_BIT
    return index - 1 if index else None


@dataclass(frozen=True)
class ShapeOutcome:
    """A launch shape's iterations, and the kernel buffers of the first
    finished iteration (for comparing outputs)."""

    shape: Shape
    iterations: tuple[Iteration, ...]
    buffers: tuple[bytes, ...] | None
    budget: int

    def timed_out(self, invocations: int) -> int:
        return sum(1 for it in self.iterations if not it.finished(invocations))

    def sites(self) -> dict[int, int]:
        """Site index -> iterations whose first timeout was there."""
        found: dict[int, int] = {}
        for it in self.iterations:
            if it.first_site is not None:
                found[it.first_site] = found.get(it.first_site, 0) + 1
        return found

    def cell(self, invocations: int) -> str:
        failed = self.timed_out(invocations)
        return "P" if not failed else f"F ({failed}/{len(self.iterations)})"
