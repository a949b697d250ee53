"""The contract every progress model must meet, as a check third parties can run.

    from progress.core.contract import check_model_contract
    check_model_contract(MY_MODEL)          # raises AssertionError if broken

It tries every enabled mask for 1..`max_threads` threads with every model
memory reachable from `memory.initial(n)` (up to `max_memories` of them) and
checks, with a message naming the model and the inputs:

- F = fair(enabled, memory, n) is an int with F a subset of enabled (so F is
  empty when no thread is enabled), and F is always empty when
  `has_fairness` is False;
- fair() is deterministic and pure: the same inputs give the same F, and the
  memory passed in is not mutated;
- memory.initial(n) and memory.after(memory, t) are deterministic, hashable,
  and after() does not mutate its input;
- the names in `below` are registered models (or in `known`), and the
  model is not below itself;
- the reductions it declares hold (docs/semantics.md section 9):
  `symmetric`: its memory is NONE or STARTED and F commutes with every
  permutation of thread ids; `view`: equal views give equal F for every
  enabled set and equal views after every step; `contains`: each named
  model's F is a subset of this one's in every state (that model's memory
  NONE or this model's). `contains` is checked when `models` names the
  contained model (the registry's models when `known` is None).

Pure: no printing, no files; imports the registry only when `known` is None.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Iterable
from itertools import permutations

from progress.models.base import NONE, STARTED, ProgressModel


def check_model_contract(
    model: ProgressModel, known: Iterable[str] | None = None, max_threads: int = 4, max_memories: int = 256
) -> None:
    """Raise AssertionError naming the first broken rule; return None if all hold."""
    _require(isinstance(model, ProgressModel), f"{model!r} is not a ProgressModel")
    _require(isinstance(model.name, str) and model.name.strip() != "", f"model name {model.name!r} is empty")
    _require(
        isinstance(model.definition, str) and model.definition != "", f"model {model.name!r} has no one-line definition"
    )
    _check_below(model, known)
    for n in range(1, max_threads + 1):
        memories = _memories(model, n, max_memories)
        for memory in memories:
            for enabled in range(1 << n):
                _check_fair(model, enabled, memory, n)
        check_reductions(model, n, memories, _contained(model, known))


def _contained(model: ProgressModel, known: Iterable[str] | None) -> list[ProgressModel]:
    if not model.contains or known is not None:
        return []
    from progress.core.registry import all_models

    return [m for m in all_models() if m.name in model.contains]


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _check_below(model: ProgressModel, known: Iterable[str] | None) -> None:
    if known is None:
        from progress.core.registry import all_models

        known = [m.name for m in all_models()]
    names = set(known)
    for name in model.below:
        _require(
            name in names,
            f"model {model.name!r}: 'below' names {name!r}, which is not a registered model "
            f"(known: {', '.join(sorted(names))})",
        )
    _require(model.name not in model.below, f"model {model.name!r} is listed below itself")


def _memories(model: ProgressModel, n: int, limit: int) -> list[Hashable]:
    """Every memory reachable from initial(n) by steps of threads 0..n-1 (at most `limit`)."""
    memory = model.memory
    start = memory.initial(n)
    _require(_same(start, memory.initial(n)), f"model {model.name!r}: memory.initial({n}) is not deterministic")
    _hashable(model, start, f"memory.initial({n})")
    seen = {start: None}
    todo = [start]
    while todo and len(seen) < limit:
        current = todo.pop()
        for t in range(n):
            before = copy.deepcopy(current)
            nxt = memory.after(current, t)
            _require(_same(current, before), f"model {model.name!r}: memory.after({before!r}, {t}) mutated its input")
            _require(
                _same(nxt, memory.after(current, t)),
                f"model {model.name!r}: memory.after({current!r}, {t}) is not deterministic",
            )
            _hashable(model, nxt, f"memory.after({current!r}, {t})")
            if nxt not in seen:
                seen[nxt] = None
                todo.append(nxt)
    return list(seen)


def _hashable(model: ProgressModel, value: object, where: str) -> None:
    try:
        hash(value)
    except TypeError:
        raise AssertionError(f"model {model.name!r}: {where} returned unhashable {value!r}") from None


def _check_fair(model: ProgressModel, enabled: int, memory: Hashable, n: int) -> None:
    call = f"fair(enabled={enabled:#0{n + 2}b}, memory={memory!r}, n={n})"
    before = copy.deepcopy(memory)
    fair = model.fair(enabled, memory, n)
    _require(
        isinstance(fair, int) and not isinstance(fair, bool),
        f"model {model.name!r}: {call} returned {fair!r}, not an int bitmask",
    )
    _require(_same(memory, before), f"model {model.name!r}: {call} mutated its memory argument")
    _require(fair & ~enabled == 0, f"model {model.name!r}: {call} = {fair:#b} holds threads that are not enabled")
    _require(fair >= 0, f"model {model.name!r}: {call} = {fair} is negative")
    again = model.fair(enabled, copy.deepcopy(memory), n)
    _require(again == fair, f"model {model.name!r}: {call} is not deterministic ({fair:#b}, then {again:#b})")
    if not model.has_fairness:
        _require(fair == 0, f"model {model.name!r} has has_fairness=False but {call} = {fair:#b} is not empty")


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def check_reductions(model: ProgressModel, n: int, memories: list[Hashable], contained: list[ProgressModel]) -> None:
    """The `symmetric`, `view` and `contains` claims on every enabled set and memory for n threads."""
    if model.symmetric:
        _check_symmetric(model, n, memories)
    if model.view is not None:
        _check_view(model, n, memories)
    for other in contained:
        _require(
            other.memory is NONE or other.memory is model.memory,
            f"model {model.name!r} contains {other.name!r}, whose memory is neither NONE nor its own",
        )
        for memory in memories:
            for enabled in range(1 << n):
                theirs = other.fair(enabled, None if other.memory is NONE else memory, n)
                _require(
                    theirs & ~model.fair(enabled, memory, n) == 0,
                    f"model {model.name!r} claims to contain {other.name!r}, but at enabled={enabled:#b}, "
                    f"memory={memory!r}, n={n} {other.name!r} has F={theirs:#b}",
                )


def _check_symmetric(model: ProgressModel, n: int, memories: list[Hashable]) -> None:
    _require(
        model.memory is NONE or model.memory is STARTED,
        f"model {model.name!r} is symmetric but its memory is neither NONE nor STARTED",
    )
    for order in permutations(range(n)):
        for memory in memories:
            moved = None if model.memory is NONE else _permute(memory, order)  # type: ignore[arg-type]
            for enabled in range(1 << n):
                want = _permute(model.fair(enabled, memory, n), order)
                got = model.fair(_permute(enabled, order), moved, n)
                _require(
                    got == want,
                    f"model {model.name!r} is declared symmetric, but moving threads by {order} "
                    f"turns F={want:#b} into {got:#b} (enabled={enabled:#b}, memory={memory!r}, n={n})",
                )


def _permute(mask: int, order: tuple[int, ...]) -> int:
    return sum(1 << order[t] for t in range(len(order)) if mask >> t & 1)


def _check_view(model: ProgressModel, n: int, memories: list[Hashable]) -> None:
    view = model.view
    assert view is not None
    classes: dict[Hashable, Hashable] = {}
    for memory in memories:
        first = classes.setdefault(view(memory, n), memory)
        for enabled in range(1 << n):
            _require(
                model.fair(enabled, memory, n) == model.fair(enabled, first, n),
                f"model {model.name!r}: view({memory!r}) = view({first!r}) but F differs (enabled={enabled:#b}, n={n})",
            )
        for t in range(n):
            after = (view(model.memory.after(memory, t), n), view(model.memory.after(first, t), n))
            _require(
                after[0] == after[1],
                f"model {model.name!r}: view({memory!r}) = view({first!r}) but not after a step of thread {t} (n={n})",
            )
