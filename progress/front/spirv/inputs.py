"""Dat3M's `@Input` items (progress/front/dat3m_header.py) as a launch's runtime array
lengths and initial cells.

`%name` is the variable the assembly calls so (`Module.aliases`), else the one
whose OpName is `name`, else the one whose id is the number; its value is
matched against its type level by level: an integer for a scalar, `{...}` of
as many values as a struct has members, a vector components or an array
elements, and of any number for a runtime array (its length). The result is
what `--buffer` and `--init` would say, so the command line's win over it.
Pure.
"""

from __future__ import annotations

from progress.errors import InputError
from progress.front.header import Input
from progress.front.spirv.ir import (
    ArrayType,
    BoolType,
    IntType,
    ModuleView,
    RuntimeArrayType,
    StructType,
    Variable,
    VectorType,
)
from progress.front.spirv.layout import SHARED_CLASSES, Types, runtime_names, variable_name

Init = tuple[str, int | None, int]


def input_launch(view: ModuleView, inputs: tuple[Input, ...]) -> tuple[dict[str, int], list[Init]]:
    """The `--buffer` lengths and `--init` cells that `inputs` stand for."""
    buffers: dict[str, int] = {}
    init: list[Init] = []
    for item in inputs:
        var = _variable(view, item)
        length = _runtime_length(view, view.types.get(var.pointee), item.value, item)
        lengths = {var.id: length} if length is not None else {}
        if length is not None:
            buffers[runtime_names(view)[var.id][0]] = length
        cells = Types(view, lengths).of(var.id).leaves(var.pointee, variable_name(view, var))
        values = _flat(view, var.pointee, item.value, item)
        init += [(cell, None, value) for (cell, _), value in zip(cells, values)]
    return buffers, init


def _variable(view: ModuleView, item: Input) -> Variable:
    bare = item.name[1:]
    found = [v for v in view.variables.values() if view.aliases.get(v.id) == item.name]
    found = found or [v for v in view.variables.values() if view.names.get(v.id) == bare]
    found = found or [v for v in view.variables.values() if bare.isdigit() and v.id == int(bare)]
    if not found:
        raise InputError(f"@Input {item.name}: the kernel has no variable {item.name}", item.position)
    if len(found) > 1:
        raise InputError(f"@Input {item.name}: several variables are called {bare!r}", item.position)
    if found[0].storage_class not in SHARED_CLASSES:
        raise InputError(
            f"@Input {item.name}: a {found[0].storage_class} variable; the inputs are buffers and workgroup memory",
            item.position,
        )
    return found[0]


def _runtime_length(view: ModuleView, kind: object, value: object, item: Input) -> int | None:
    """The element count the value gives the runtime array ending the variable's block."""
    if isinstance(kind, StructType) and kind.members and isinstance(value, tuple) and len(value) == len(kind.members):
        last = view.types.get(kind.members[-1])
        if isinstance(last, RuntimeArrayType):
            elements = value[-1]
            if not isinstance(elements, tuple) or not elements:
                raise InputError(f"@Input {item.name}: a runtime array's value is {{...}} of 1 or more", item.position)
            return len(elements)
    return None


def _flat(view: ModuleView, tid: int, value: object, item: Input) -> list[int]:
    """`value` as the scalars of a value of type `tid`, in the layout's leaf order."""
    kind = view.types.get(tid)
    if isinstance(kind, (IntType, BoolType)):
        if isinstance(value, tuple):
            raise InputError(f"@Input {item.name}: {_shown(value)} where a scalar is", item.position)
        assert isinstance(value, int)
        if isinstance(kind, BoolType) and value not in (0, 1):
            raise InputError(f"@Input {item.name}: {value} for a bool (0 or 1)", item.position)
        return [value]
    parts = _parts(view, kind)
    if not isinstance(value, tuple) or (parts is not None and len(value) != len(parts)):
        wanted = "any number of values" if parts is None else f"{len(parts)} value(s)"
        raise InputError(f"@Input {item.name}: {_shown(value)} where {wanted} are", item.position)
    types = parts if parts is not None else [getattr(kind, "element", -1)] * len(value)
    return [scalar for part, sub in zip(types, value) for scalar in _flat(view, part, sub, item)]


def _parts(view: ModuleView, kind: object) -> list[int] | None:
    """The types of a composite's parts in order; None for a runtime array (any number)."""
    if isinstance(kind, StructType):
        return list(kind.members)
    if isinstance(kind, VectorType):
        return [kind.component] * kind.count
    if isinstance(kind, ArrayType):
        return [kind.element] * (kind.length or 0)
    if isinstance(kind, RuntimeArrayType):
        return None
    raise InputError(f"a value of type %{getattr(kind, 'id', '?')} cannot be given by @Input")


def _shown(value: object) -> str:
    text = str(value).replace("(", "{").replace(")", "}").replace(",}", "}")
    return text if len(text) <= 40 else text[:36] + "...}"
