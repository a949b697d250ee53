"""The paper's three launch heuristics as pure index arithmetic (docs/semantics.md section 7).

One test thread per workgroup. With N test threads and M instances:

- plain:   N workgroups; workgroup w runs thread w of instance 0 (M is 1).
- rr:      N*M workgroups; workgroup w runs thread w mod N of instance w div N.
- chunked: N*M workgroups; workgroup w runs thread w div M of instance w mod M.

Both stress heuristics keep the relative order of thread ids inside an
instance: thread i < j of one instance run on workgroups w_i < w_j.
The CUDA, C and WGSL writers emit the same arithmetic as kernel text
(`progress.back.mapping`); the tests compare a kernel's recorded mapping
with `slot` below.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_WORKGROUPS = 65532
"""The paper's workgroup budget: M = floor(65532 / N) instances."""

MAX_LAUNCH = 2**31 - 1
"""The most workgroups of one launch: CUDA's grid x limit, and the generated
code computes `instance * N + thread` in a C `int`."""

HEURISTICS = ("plain", "rr", "chunked")
CODES = {name: index for index, name in enumerate(HEURISTICS)}
"""The integer each heuristic is passed to a kernel as."""


@dataclass(frozen=True)
class Geometry:
    """One launch: `instances` copies of an N-thread test on `workgroups` workgroups."""

    heuristic: str
    threads: int
    instances: int

    @property
    def workgroups(self) -> int:
        return self.threads * self.instances


def auto_instances(threads: int, limit: int = MAX_WORKGROUPS) -> int:
    """M = floor(limit / N): the paper's instance count for an N-thread test."""
    if threads < 1:
        raise ValueError("a test has at least one thread")
    return max(1, limit // threads)


def geometry(heuristic: str, threads: int, instances: int) -> Geometry:
    """The launch for `heuristic`; plain always runs a single instance."""
    if heuristic not in CODES:
        raise ValueError(f"unknown heuristic {heuristic!r}; expected one of {', '.join(HEURISTICS)}")
    if instances < 1:
        raise ValueError("at least one instance")
    return Geometry(heuristic, threads, 1 if heuristic == "plain" else instances)


def slot(g: Geometry, workgroup: int) -> tuple[int, int]:
    """(instance, thread) that `workgroup` runs under geometry `g`."""
    if not 0 <= workgroup < g.workgroups:
        raise ValueError(f"workgroup {workgroup} outside 0..{g.workgroups - 1}")
    if g.heuristic == "chunked":
        return workgroup % g.instances, workgroup // g.instances
    return workgroup // g.threads, workgroup % g.threads


def workgroup_of(g: Geometry, instance: int, thread: int) -> int:
    """The inverse of `slot`: the workgroup that runs `thread` of `instance`."""
    if g.heuristic == "chunked":
        return thread * g.instances + instance
    return instance * g.threads + thread


WARP = 32
"""Lanes of one subgroup (a CUDA warp) for `--scope lane` launches on CUDA;
the wgpu backend passes its adapter's subgroup size as `width`."""
MAX_LANE_BLOCKS = MAX_WORKGROUPS // WARP
"""Blocks of one `--scope lane` launch with automatic instances: the paper's budget, in warps."""


def lane_instances(threads: int, width: int = WARP, lanes: int = MAX_WORKGROUPS) -> int:
    """Automatic M at the lane scope: floor(width/N) instances in each of
    floor(lanes/width) subgroups of `width` lanes (at least one)."""
    if not 1 <= threads <= width:
        raise ValueError(f"a lane-scope test has 1 to {width} threads, not {threads}")
    return max(1, lanes // width) * (width // threads)


def lane_blocks(g: Geometry, width: int = WARP) -> tuple[int, int]:
    """(blocks, lanes per block) of a lane-scope launch: plain is one block of
    N lanes; rr and chunked put K = floor(width/N) instances in each subgroup."""
    if g.heuristic == "plain":
        return 1, g.threads
    per_warp = width // g.threads
    return -(-g.instances // per_warp), width


def lane_slot(g: Geometry, block: int, lane: int, width: int = WARP) -> tuple[int, int] | None:
    """(instance, thread) that `lane` of `block` runs at the lane scope, or None
    (an idle lane). Every instance lies inside one subgroup of `width` lanes:
    with K = floor(width/N), rr puts instance k of a subgroup on lanes
    kN..kN+N-1 (thread = lane mod N), chunked gives thread t lanes
    tK..tK+K-1 (instance = lane mod K)."""
    n = g.threads
    if g.heuristic == "plain":
        return (0, lane) if block == 0 and lane < n else None
    per_warp = width // n
    if lane >= per_warp * n:
        return None
    if g.heuristic == "chunked":
        local, thread = lane % per_warp, lane // per_warp
    else:
        local, thread = lane // n, lane % n
    instance = block * per_warp + local
    return (instance, thread) if instance < g.instances else None
