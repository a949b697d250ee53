"""A compact covering suite (`progress select`).

From a set of classified tests, choose a small suite such that every
requirement (a lattice edge under a rule, synth/separate.py) that some test
meets is met by at least k chosen tests (or by all of them, when fewer
exist), and every distinct verdict vector (the pattern of all verdicts) is
represented at least once.

The choice is greedy and deterministic: repeatedly take the test that
covers the most still-needed items (one per missing separating test of each
requirement, one for an unrepresented verdict vector); ties go to the
smallest test (threads, instructions, then canonical order), so the same
tests always give the same suite, whatever order they came in. Pure: no
files, no printing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .separate import Requirement

DEFAULT_K = 3


@dataclass(frozen=True)
class Classified:
    """One input test: `order` sorts it (smallest first, unique); `verdicts`
    maps column labels to True (passes), False, or None."""

    name: str
    order: tuple
    verdicts: tuple[tuple[str, bool | None], ...]

    @property
    def vector(self) -> str:
        """The verdict pattern, e.g. `FPPFF...`, in the tests' column order."""
        return "".join({True: "P", False: "F", None: "?"}[v] for _, v in self.verdicts)


@dataclass(frozen=True)
class Coverage:
    """Per requirement: separating tests in the input, chosen ones."""

    requirement: Requirement
    available: int
    chosen: int


@dataclass(frozen=True)
class Selection:
    chosen: tuple[Classified, ...]  # smallest first
    coverage: tuple[Coverage, ...]
    vectors: int  # distinct verdict vectors in the input (all represented)
    tests: int  # tests in the input
    k: int


def select(tests: list[Classified], reqs: list[Requirement], k: int = DEFAULT_K) -> Selection:
    if k < 1:
        raise ValueError("k must be at least 1")
    ordered = sorted(tests, key=lambda t: t.order)
    masks = []
    for test in ordered:
        verdicts = dict(test.verdicts)
        masks.append(sum(1 << i for i, req in enumerate(reqs) if req.met_by(verdicts)))
    available = [sum(1 for m in masks if m >> i & 1) for i in range(len(reqs))]
    need = [min(k, n) for n in available]
    vectors = [t.vector for t in ordered]
    missing_vectors = set(vectors)
    # the gain of a test depends only on (mask, vector): keep each group's untaken tests, smallest first
    groups: dict[tuple[int, str], list[int]] = {}
    for index in range(len(ordered) - 1, -1, -1):
        groups.setdefault((masks[index], vectors[index]), []).append(index)
    chosen: list[int] = []
    while any(need) or missing_vectors:
        open_reqs = sum(1 << i for i, n in enumerate(need) if n)
        best_key: tuple[int, str] | None = None
        best = (0, 0)
        for key, members in groups.items():
            if not members:
                continue
            mask, vector = key
            gain = (mask & open_reqs).bit_count() + (vector in missing_vectors)
            if gain > 0 and (gain, -members[-1]) > best:
                best_key, best = key, (gain, -members[-1])
        assert best_key is not None  # a needed item always has an untaken test that covers it
        pick = groups[best_key].pop()
        chosen.append(pick)
        missing_vectors.discard(vectors[pick])
        for i in range(len(reqs)):
            if need[i] and masks[pick] >> i & 1:
                need[i] -= 1
    chosen.sort()
    picked = set(chosen)
    coverage = tuple(
        Coverage(req, available[i], sum(1 for j in picked if masks[j] >> i & 1)) for i, req in enumerate(reqs)
    )
    return Selection(tuple(ordered[j] for j in chosen), coverage, len(set(vectors)), len(ordered), k)
