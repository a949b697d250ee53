"""A loaded kernel's buffers as a device binds them (what `progress run` launches).

`buffer_plans(loaded)` gives, for every StorageBuffer and Uniform variable,
its descriptor set and binding, how it is bound (`storage`; `read-only`
when every member is NonWritable; `uniform` for a Uniform block) and its
initial bytes: the cells of `layout.shared_layout` (the checker's own
layout under the checker's launch: `--buffer` lengths, `--init` values and
Dat3M's `@Input` included) as little-endian 32-bit words; then the push
constants' bytes (`--push`). Workgroup memory has no host-side bytes: an `--init` of a
workgroup variable is an InputError (a device cannot be told it).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from progress.errors import InputError
from progress.front.spirv.ir import ModuleView, StructType
from progress.front.spirv.layout import Types, runtime_lengths, shared_layout, variable_name
from progress.front.spirv.load import LoadedKernel, launch_of


class NotRunnable(InputError):
    """A kernel whose launch a device run cannot reproduce (exit 2 on its own;
    `progress run` reports it and runs the other kernels)."""


@dataclass(frozen=True)
class BufferPlan:
    name: str
    set: int
    binding: int
    kind: str
    initial: bytes


def buffer_plans(loaded: LoadedKernel, path: str) -> tuple[BufferPlan, ...]:
    """Every buffer the kernel binds, then each PushConstant variable (kind
    `push`, in id order, its `binding` the index among them: a device run
    binds it where the instrumentation puts it)."""
    view = loaded.module.view
    launch = launch_of(loaded)
    for name, _, value in launch.push:
        if isinstance(value, str):
            raise NotRunnable(f"{path}: --push {name}={value}: a device run cannot be given a buffer's address")
    types = Types(view, runtime_lengths(view, launch.buffers, path))
    layout = shared_layout(view, types, launch.workgroups, launch.init, path, launch.push)
    shared_by_groups = {cell.split(":", 1)[1] for cell, at in layout.names if at >= layout.groups_at}
    for name, index, _ in launch.init:
        target = name if index is None else f"{name}[{index}]"
        if any(cell == target or cell.startswith((target + ".", target + "[")) for cell in shared_by_groups):
            raise NotRunnable(f"{path}: --init {target}: workgroup memory cannot be initialized on a device")
    plans = []
    for var_id, base in sorted(layout.base.items()):
        var = view.variables[var_id]
        size = types.of(var_id).size(var.pointee)
        plans.append(
            BufferPlan(
                _name(view, var_id),
                _number(view, var_id, "DescriptorSet"),
                _number(view, var_id, "Binding"),
                _kind(view, var.storage_class, var.pointee),
                _bytes(layout.initial[base : base + size]),
            )
        )
    for index, (var_id, cells) in enumerate(sorted(layout.push.items())):
        plans.append(BufferPlan(_name(view, var_id), -1, index, "push", _bytes(cells)))
    return tuple(plans)


def _name(view: ModuleView, var_id: int) -> str:
    var = view.variables[var_id]
    return variable_name(view, var) or view.names.get(var.pointee, f"%{var_id}")


def _bytes(cells: tuple[int, ...]) -> bytes:
    return struct.pack(f"<{len(cells)}I", *(c & 0xFFFFFFFF for c in cells))


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
