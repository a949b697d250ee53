"""Shared memory of a kernel, flattened to 32-bit cells (docs/semantics.md section 8).

StorageBuffer and Uniform variables are laid out once for the dispatch by
their Offset and ArrayStride decorations (a byte offset / 4 is a cell); a
runtime array takes its length from `--buffer NAME=LEN`. Workgroup
variables have one copy per workgroup, laid out one cell per scalar. Every
cell starts at 0 unless `--init` says otherwise. Function and Private
variables use the same natural layout inside an invocation's local state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from progress.errors import InputError
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

SHARED_CLASSES = ("StorageBuffer", "Uniform", "Workgroup")
"""Storage classes whose memory invocations share: every access is visible."""
LOCAL_CLASSES = ("Function", "Private")


class Types:
    """Sizes and offsets of types in cells; `runtime` maps a runtime array
    type to its length."""

    def __init__(self, view: ModuleView, runtime: Mapping[int, int] | None = None):
        self.view = view
        self.runtime = dict(runtime or {})

    def size(self, tid: int) -> int:
        kind = self.view.types.get(tid)
        if isinstance(kind, (IntType, BoolType)):
            return 1
        if isinstance(kind, VectorType):
            return kind.count * self.size(kind.component)
        if isinstance(kind, ArrayType):
            return (kind.length or 0) * self.stride(tid)
        if isinstance(kind, RuntimeArrayType):
            return self.runtime.get(tid, 0) * self.stride(tid)
        if isinstance(kind, StructType):
            if not kind.members:
                return 0
            last = len(kind.members) - 1
            return self.member_offset(tid, last) + self.size(kind.members[last])
        raise InputError(f"a value of type %{tid} ({type(kind).__name__}) cannot be kept in 32-bit cells")

    def stride(self, tid: int) -> int:
        """Cells between two elements of an array type."""
        found = self.view.decoration(tid, "ArrayStride")
        kind = self.view.types[tid]
        assert isinstance(kind, (ArrayType, RuntimeArrayType))
        if found is not None and isinstance(found.value, int):
            return max(1, found.value // 4)
        return self.size(kind.element)

    def member_offset(self, tid: int, index: int) -> int:
        found = self.view.decoration(tid, "Offset", member=index)
        if found is not None and isinstance(found.value, int):
            return found.value // 4
        kind = self.view.types[tid]
        assert isinstance(kind, StructType)
        return sum(self.size(m) for m in kind.members[:index])

    def length(self, tid: int) -> int | None:
        """Elements of an array or vector type (None when not one)."""
        kind = self.view.types.get(tid)
        if isinstance(kind, VectorType):
            return kind.count
        if isinstance(kind, ArrayType):
            return kind.length
        if isinstance(kind, RuntimeArrayType):
            return self.runtime.get(tid, 0)
        if isinstance(kind, StructType):
            return len(kind.members)
        return None

    def element(self, tid: int) -> int | None:
        """The element type of a vector or array type (None for other types)."""
        kind = self.view.types.get(tid)
        if isinstance(kind, VectorType):
            return kind.component
        if isinstance(kind, (ArrayType, RuntimeArrayType)):
            return kind.element
        return None

    def leaves(self, tid: int, name: str, offset: int = 0) -> list[tuple[str, int]]:
        """Every scalar cell of a value of type `tid` at `offset`, named as a path."""
        kind = self.view.types.get(tid)
        if isinstance(kind, (IntType, BoolType)):
            return [(name, offset)]
        if isinstance(kind, VectorType):
            size = self.size(kind.component)
            return [(f"{name}.{'xyzw'[i]}", offset + i * size) for i in range(kind.count)]
        if isinstance(kind, (ArrayType, RuntimeArrayType)):
            stride = self.stride(tid)
            count = self.length(tid) or 0
            return [
                cell for i in range(count) for cell in self.leaves(kind.element, f"{name}[{i}]", offset + i * stride)
            ]
        if isinstance(kind, StructType):
            cells = []
            for i, member in enumerate(kind.members):
                label = self.view.member_names.get((tid, i))
                if label is None and name and len(kind.members) == 1:  # naga's block around a WGSL buffer
                    path = name
                else:
                    path = f"{name}.{label or f'm{i}'}" if name else label or f"m{i}"
                cells += self.leaves(member, path, offset + self.member_offset(tid, i))
            return cells
        raise InputError(f"a value of type %{tid} cannot be kept in 32-bit cells")


@dataclass(frozen=True)
class SharedLayout:
    """Where each shared variable lives: `base[var]` for buffers (absolute
    cell), `group_base[var]` for Workgroup variables (within one workgroup's
    copy of `group_size` cells, which starts at `groups_at + w * group_size`);
    `names` (name, cell) in cell order, padding left out; `initial` the
    cells at the start."""

    base: Mapping[int, int]
    group_base: Mapping[int, int]
    group_size: int
    groups_at: int
    names: tuple[tuple[str, int], ...]
    initial: tuple[int, ...]


def variable_name(view: ModuleView, var: Variable) -> str:
    """The variable's name; an anonymous block (`buffer B { ... };`) has "" and its members speak for it."""
    return view.names.get(var.id, "")


def shared_variables(view: ModuleView) -> list[Variable]:
    return sorted((v for v in view.variables.values() if v.storage_class in SHARED_CLASSES), key=lambda v: v.id)


def runtime_lengths(view: ModuleView, buffers: Mapping[str, int], path: str) -> dict[int, int]:
    """The runtime array types, by the `--buffer NAME=LEN` lengths; every runtime array needs one."""
    wanted: dict[int, tuple[str, ...]] = {}
    for var in shared_variables(view):
        block = view.types.get(var.pointee)
        if isinstance(block, StructType) and block.members:
            last = block.members[-1]
            if isinstance(view.types.get(last), RuntimeArrayType):
                member = view.member_names.get((block.id, len(block.members) - 1), "")
                names = [member, variable_name(view, var), view.names.get(block.id, "")]
                wanted[last] = tuple(a for a in names if a)
    lengths: dict[int, int] = {}
    known = {alias for aliases in wanted.values() for alias in aliases}
    for name, length in buffers.items():
        if name not in known:
            choices = ", ".join(sorted(known)) or "none"
            raise InputError(f"{path}: --buffer {name}={length}: no runtime-sized array is called {name!r} ({choices})")
        if length < 1:
            raise InputError(f"{path}: --buffer {name}={length}: a length must be at least 1")
    for tid, aliases in wanted.items():
        given = [buffers[a] for a in aliases if a in buffers]
        if not given:
            raise InputError(
                f"{path}: the runtime-sized array {aliases[0]!r} needs a length: --buffer {aliases[0]}=LEN"
            )
        lengths[tid] = given[0]
    return lengths


def shared_layout(
    view: ModuleView, types: Types, workgroups: int, init: tuple[tuple[str, int | None, int], ...], path: str
) -> SharedLayout:
    base: dict[int, int] = {}
    group_base: dict[int, int] = {}
    names: list[tuple[str, int]] = []
    group_names: list[tuple[str, int]] = []
    top = group_top = 0
    for var in shared_variables(view):
        leaves = types.leaves(var.pointee, variable_name(view, var))
        if var.storage_class == "Workgroup":
            group_base[var.id] = group_top
            group_names += [(name, group_top + at) for name, at in leaves]
            group_top += types.size(var.pointee)
        else:
            base[var.id] = top
            names += [(name, top + at) for name, at in leaves]
            top += types.size(var.pointee)
    for w in range(workgroups):
        names += [(f"wg{w}:{name}", top + w * group_top + at) for name, at in group_names]
    cells = [0] * (top + workgroups * group_top)
    _initialize(cells, names, init, path)
    return SharedLayout(base, group_base, group_top, top, tuple(names), tuple(cells))


def _initialize(
    cells: list[int], names: list[tuple[str, int]], init: tuple[tuple[str, int | None, int], ...], path: str
) -> None:
    """`--init NAME=V` sets every cell of NAME (a scalar, an array, a struct);
    `--init NAME[i]=V` one element's cells. Values are 32-bit (negative ones wrap)."""
    for name, index, value in init:
        target = name if index is None else f"{name}[{index}]"
        chosen = [at for cell, at in names if _within(cell, target)]
        if not chosen:
            raise InputError(
                f"{path}: --init {target}={value}: no shared memory cell is called {target!r}" + _hint(names, name)
            )
        if not -(2**31) <= value < 2**32:
            raise InputError(f"{path}: --init {target}={value}: the value does not fit in 32 bits")
        for at in chosen:
            cells[at] = value & 0xFFFFFFFF


def _within(cell: str, target: str) -> bool:
    return cell == target or cell.startswith(target + ".") or cell.startswith(target + "[")


def _hint(names: list[tuple[str, int]], name: str) -> str:
    roots = sorted({cell.split("[")[0].split(".")[0] for cell, _ in names})
    shown = ", ".join(roots[:12]) or "none"
    return f" (the shared variables: {shown})"
