"""A loaded kernel's buffers as a device binds them (what `progress run` launches).

`buffer_plans(loaded)` gives, for every StorageBuffer and Uniform variable,
its descriptor set and binding, how it is bound (`storage`; `read-only`
when every member is NonWritable; `uniform` for a Uniform block) and its
initial bytes: the cells of `layout.shared_layout` (the checker's own
layout, `--buffer` lengths and `--init` values included) as little-endian
32-bit words. Workgroup memory has no host-side bytes: an `--init` of a
workgroup variable is an InputError (a device cannot be told it).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from progress.errors import InputError
from progress.front.spirv.ir import ModuleView, StructType
from progress.front.spirv.layout import Types, runtime_lengths, shared_layout, variable_name
from progress.front.spirv.load import LoadedKernel


class NotRunnable(InputError):
    """A kernel whose launch a device run cannot reproduce yet (exit 2 on its own;
    `progress run` reports it and runs the other kernels)."""


@dataclass(frozen=True)
class BufferPlan:
    name: str
    set: int
    binding: int
    kind: str
    initial: bytes


def buffer_plans(loaded: LoadedKernel, path: str) -> tuple[BufferPlan, ...]:
    view = loaded.module.view
    settings = loaded.settings
    unsupported = [
        what
        for what, given in (
            ("specialization constants (--spec)", settings.spec),
            ("push constants (--push)", settings.push),
            ("--local-size", settings.local_size),
            ("Dat3M @Input lines", settings.inputs),
        )
        if given
    ]
    if unsupported:
        raise NotRunnable(f"{path}: progress run does not pass {', '.join(unsupported)} to a device yet")
    types = Types(view, runtime_lengths(view, settings.buffers, path))
    layout = shared_layout(view, types, settings.workgroups or 1, settings.init, path)
    shared_by_groups = {cell.split(":", 1)[1] for cell, at in layout.names if at >= layout.groups_at}
    for name, index, _ in settings.init:
        target = name if index is None else f"{name}[{index}]"
        if any(cell == target or cell.startswith((target + ".", target + "[")) for cell in shared_by_groups):
            raise InputError(f"{path}: --init {target}: workgroup memory cannot be initialized on a device")
    plans = []
    for var_id, base in sorted(layout.base.items()):
        var = view.variables[var_id]
        size = types.of(var_id).size(var.pointee)
        cells = layout.initial[base : base + size]
        plans.append(
            BufferPlan(
                variable_name(view, var) or view.names.get(var.pointee, f"%{var_id}"),
                _number(view, var_id, "DescriptorSet"),
                _number(view, var_id, "Binding"),
                _kind(view, var.storage_class, var.pointee),
                struct.pack(f"<{len(cells)}I", *cells),
            )
        )
    return tuple(plans)


def _number(view: ModuleView, target: int, name: str) -> int:
    found = view.decoration(target, name)
    return found.value if found is not None and isinstance(found.value, int) else 0


def _kind(view: ModuleView, storage: str, pointee: int) -> str:
    if storage == "Uniform" and view.decoration(pointee, "BufferBlock") is None:
        return "uniform"
    block = view.types.get(pointee)
    members = range(len(block.members)) if isinstance(block, StructType) else range(0)
    if members and all(view.decoration(pointee, "NonWritable", member=m) is not None for m in members):
        return "read-only"
    return "storage"
