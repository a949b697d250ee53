"""Find progress models through the `progress.models` entry-point group.

Built-ins and third-party models are registered the same way; an entry
point's value names a `ProgressModel` object ("module:attribute").
"""

from __future__ import annotations

from functools import lru_cache
from importlib.metadata import entry_points

from progress.errors import UsageError
from progress.models.base import ProgressModel

GROUP = "progress.models"


@lru_cache(maxsize=1)
def all_models() -> tuple[ProgressModel, ...]:
    """Every registered model, ordered by (rank, name)."""
    found: dict[str, ProgressModel] = {}
    for point in entry_points(group=GROUP):
        try:
            model = point.load()
        except Exception as error:  # a plug-in's own bug: name it, never a traceback
            raise UsageError(
                f"entry point {point.name!r} ({point.value}) cannot be loaded: {type(error).__name__}: {error}"
            ) from None
        if not isinstance(model, ProgressModel):
            raise UsageError(f"entry point {point.name!r} ({point.value}) is not a ProgressModel")
        if model.name in found:
            raise UsageError(f"two progress models are registered as {model.name!r}")
        found[model.name] = model
    if not found:
        raise UsageError("no progress models are registered: is the package installed (pip install -e .)?")
    return tuple(sorted(found.values(), key=lambda m: (m.rank, m.name)))


def _key(name: str) -> str:
    return name.strip().upper().replace("_", "+").replace("-", "+")


def find_model(name: str) -> ProgressModel:
    """The model called `name` (case-insensitive; `_` or `-` may stand for `+`)."""
    for model in all_models():
        if _key(model.name) == _key(name):
            return model
    known = ", ".join(m.name for m in all_models())
    raise UsageError(f"unknown progress model {name!r} (known: {known})")
