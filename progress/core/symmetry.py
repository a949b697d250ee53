"""Symmetry of identical threads (docs/semantics.md section 9).

Threads with the same instruction list (same locations, same numbers) are
interchangeable in the program: permuting them maps runs to runs. A model
that does not look at thread ids (`ProgressModel.symmetric`) lets the
checker keep one state per orbit: the representative sorts each group's
threads by (pc, has stepped). Pure Python; the compiled explorer
(progress/core/explore_jit.py) computes the same representative.
"""

from __future__ import annotations

from progress.core.packed import Layout
from progress.core.semantics import Machine


def groups(machine: Machine) -> tuple[tuple[int, ...], ...]:
    """The groups of at least two threads with identical code, by first member."""
    by_code: dict[tuple, list[int]] = {}
    for t, code in enumerate(machine.code):
        by_code.setdefault(code, []).append(t)
    return tuple(tuple(members) for members in by_code.values() if len(members) > 1)


def canonical(shape: Layout, orbit_groups: tuple[tuple[int, ...], ...], key: int, started: int) -> tuple[int, int]:
    """The representative (key, started) of the orbit of (key, started):
    within each group, the sorted (pc, stepped) pairs are given to the
    members in increasing id order."""
    base = shape.n_locations
    for members in orbit_groups:
        pairs = sorted((shape.pc(key, t), (started >> t) & 1) for t in members)
        for t, (pc, stepped) in zip(members, pairs):
            key = shape._put(key, base + t, pc)
            started = (started & ~(1 << t)) | (stepped << t)
    return key, started
