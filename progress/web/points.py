"""The 11 verdicts in one order on every page: the lattice's, bottom up
(`core.classify.lattice_order`): unfair, then the models under weak
fairness from HSA to fair, then the same under strong fairness. A verdict
vector lists a test's verdicts in this order. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from progress.core.analyze import NO_FAIRNESS
from progress.core.classify import Column, columns_for, lattice_order
from progress.models.base import ProgressModel

T = TypeVar("T")


def points(models: Sequence[ProgressModel]) -> tuple[Column, ...]:
    """Every (model, fairness) of `models`, in the pages' order."""
    return tuple(lattice_order(list(models), columns_for(list(models))))


def in_order(items: Iterable[T], key_of: Callable[[T], tuple[str, str]], models: Sequence[ProgressModel]) -> list[T]:
    """`items` sorted into the pages' order by `key_of(item)` = (model, fairness);
    an item of a point the models do not have goes last."""
    rank = {(c.model, c.fairness): i for i, c in enumerate(points(models))}
    return sorted(items, key=lambda item: rank.get(key_of(item), len(rank)))


def point_label(model: str, fairness: str) -> str:
    """`HSA/weak`, or `unfair` for a model without fairness."""
    return model if fairness == NO_FAIRNESS else f"{model}/{fairness}"
