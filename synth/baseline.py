"""The straightforward synthesizer the engines are measured against: every
program meeting constraint 4 generated one at a time, skipped unless its
locations are in first-use order (one per class), and judged by
`constraints.violations` on its explicit LTS (static checks first, stopping
at the first violation). No grouping, no bulk pruning, no step tables.
Also a reference for tests: on small bounds it checks that static pruning
loses nothing.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass

from . import canonical
from .constraints import violations
from .space import Bounds, Candidate, Code, Instruction, instruction_options, partitions


@dataclass(frozen=True)
class BaselineResult:
    found: frozenset[Candidate]
    judged: int  # canonical candidates judged
    complete: bool  # False when the deadline stopped it


def baseline_search(bounds: Bounds, time_limit: float | None = None) -> BaselineResult:
    deadline = None if time_limit is None else time.monotonic() + time_limit
    found: set[Candidate] = set()
    judged = 0
    for lengths in partitions(bounds):
        columns = [instruction_options(n, i, bounds) for n in lengths for i in range(n)]
        for flat in itertools.product(*columns):
            candidate = _split(flat, lengths)
            if not canonical.is_canonical(candidate):
                continue
            judged += 1
            if deadline is not None and judged % 1024 == 0 and time.monotonic() > deadline:
                return BaselineResult(frozenset(found), judged, False)
            if not violations(canonical.to_program(candidate), first_only=True):
                found.add(candidate)
    return BaselineResult(frozenset(found), judged, True)


def _split(flat: Sequence[Instruction], lengths: Sequence[int]) -> Candidate:
    codes: list[Code] = []
    start = 0
    for n in lengths:
        codes.append(tuple(flat[start : start + n]))
        start += n
    return tuple(codes)
