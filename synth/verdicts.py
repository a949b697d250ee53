"""Every verdict of many synthesized candidates: the classification that work
units (`work.py`) and the raw-index classifier (`stream_classify.py`) share.

Pure: nothing here touches the store or prints.
"""

from __future__ import annotations

from functools import lru_cache

from progress.core.analyze import Query, check_program, queries_for
from progress.core.classify import Column, cell_text
from progress.core.registry import all_models

from . import canonical
from .space import Candidate
from .store import pack_verdicts


@lru_cache(maxsize=1)
def queries() -> tuple[Query, ...]:
    """The verdicts every test is classified under, in the order of every mask."""
    return tuple(queries_for(all_models()))


@lru_cache(maxsize=1)
def labels() -> tuple[str, ...]:
    """The verdicts' names, in the order of every mask (11 for the built-in models)."""
    return tuple(Column(q.model.name, q.fairness).label for q in queries())


def classify_batch(candidates: list[Candidate]) -> tuple[tuple[str, ...], list[int]]:
    """(labels, one verdict mask per candidate): every test under every
    verdict, all at once with the compiled batch classifier (`progress.core.batch`)."""
    from progress.core import batch  # numpy + numba (~100 MB): only where tests are classified, not to export

    programs = [canonical.to_program(c) for c in candidates]
    return labels(), [pack_verdicts([cell_text(c) for c in cells]) for cells in batch.verdicts(programs, queries())]


def classify_reference(candidates: list[Candidate]) -> tuple[tuple[str, ...], list[int]]:
    """`classify_batch` by one `check_program` per test: the oracle it is tested against."""
    masks = []
    for candidate in candidates:
        report = check_program(canonical.to_program(candidate), list(queries()), witnesses=False)
        masks.append(pack_verdicts([cell_text(v.terminates) for v in report.verdicts]))
    return labels(), masks
