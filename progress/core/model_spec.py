"""`--model` values: registered models, alone or one per scope (docs/cli.md).

Accepted forms, all case-insensitive:

- `M`, or a list `M1,M2`: registered models (a bare model is M for the
  workgroups, fair inside, docs/semantics.md section 8);
- `W/S/L`: the models of the workgroups, subgroups and lanes;
- `workgroup=OBE,subgroup=HSA,lane=fair` (also `wg`, `sg`, `lane`/`invocation`,
  and `default=` for the scopes not named; unnamed scopes are fair): the
  whole value is one scoped model;
- Dat3M's hierarchy `[QF=OBE, SG=UNFAIR, DEFAULT=FAIR]`: a scope names the
  model that schedules its children, so `DV`/`QF` (the dispatch) is our
  workgroup model, `WG` our subgroup model, `SG` our lane model.
"""

from __future__ import annotations

from progress.core.registry import find_model
from progress.core.scoped import SCOPES, ScopedModel
from progress.errors import UsageError
from progress.models.base import ProgressModel

OURS = {
    "workgroup": "workgroup",
    "workgroups": "workgroup",
    "wg": "workgroup",
    "subgroup": "subgroup",
    "subgroups": "subgroup",
    "sg": "subgroup",
    "lane": "lane",
    "lanes": "lane",
    "invocation": "lane",
    "invocations": "lane",
    "inv": "lane",
    "default": "default",
}
DAT3M = {"dv": "workgroup", "qf": "workgroup", "wg": "subgroup", "sg": "lane", "default": "default"}
"""Dat3M's Vulkan scopes, by the scope whose children they schedule."""


def parse_models(values: tuple[str, ...] | list[str]) -> list[ProgressModel | ScopedModel]:
    """Every model the `--model` values name, in order, duplicates dropped."""
    found: list[ProgressModel | ScopedModel] = []
    for value in values:
        found += parse_model_value(value)
    return list(dict.fromkeys(found))


def parse_model_value(value: str) -> list[ProgressModel | ScopedModel]:
    """One `--model` value: a list of models, or one scoped model."""
    text = value.strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise UsageError(f"--model {value!r}: a Dat3M hierarchy ends with ']'")
        return [_assigned(value, text[1:-1], DAT3M, "Dat3M scope (DV, QF, WG, SG, DEFAULT)")]
    if "=" in text:
        return [_assigned(value, text, OURS, "scope (workgroup, subgroup, lane, default)")]
    found: list[ProgressModel | ScopedModel] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise UsageError(f"--model {value!r} has an empty model name (write e.g. --model HSA,OBE)")
        if "/" in item:
            parts = [p.strip() for p in item.split("/")]
            if len(parts) != 3 or not all(parts):
                raise UsageError(f"--model {item!r}: a scoped model is WORKGROUP/SUBGROUP/LANE, three model names")
            workgroup, subgroup, lane = (find_model(p) for p in parts)
            found.append(ScopedModel(workgroup, subgroup, lane))
        else:
            found.append(find_model(item))
    return found


def _assigned(value: str, body: str, keys: dict[str, str], what: str) -> ScopedModel:
    chosen: dict[str, ProgressModel] = {}
    for item in body.split(","):
        if "=" not in item:
            raise UsageError(
                f"--model {value!r}: {item.strip()!r} is not SCOPE=MODEL "
                "(a scoped model is one --model value; give a list of plain models in another)"
            )
        key, name = (part.strip() for part in item.split("=", 1))
        scope = keys.get(key.lower())
        if scope is None:
            raise UsageError(f"--model {value!r}: unknown {what}: {key!r}")
        if scope in chosen:
            raise UsageError(f"--model {value!r} names the {scope} scope twice")
        chosen[scope] = find_model(name)
    rest = chosen.get("default") or find_model("fair")
    workgroup, subgroup, lane = (chosen.get(scope, rest) for scope in SCOPES)
    return ScopedModel(workgroup, subgroup, lane)
