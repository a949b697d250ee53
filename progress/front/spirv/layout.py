"""Shared memory of a kernel, flattened to 32-bit cells (docs/semantics.md section 8).

StorageBuffer and Uniform variables are laid out once for the dispatch by
their Offset and ArrayStride decorations (a byte offset / 4 is a cell); a
runtime array takes its length from `--buffer NAME=LEN`, per variable. Workgroup
variables have one copy per workgroup, laid out one cell per scalar. Every
cell starts at 0 unless `--init` says otherwise. Function and Private
variables use the same natural layout inside an invocation's local state.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from progress.errors import InputError, InputErrors
from progress.front.spirv import addresses
from progress.front.spirv.addresses import Range
from progress.front.spirv.ir import (
    ArrayType,
    BoolType,
    FloatType,
    IntType,
    ModuleView,
    PointerType,
    RuntimeArrayType,
    StructType,
    Variable,
    VectorType,
)

SHARED_CLASSES = ("StorageBuffer", "Uniform", "Workgroup")
"""Storage classes whose memory invocations share: every access is visible."""
LOCAL_CLASSES = ("Function", "Private")


class Types:
    """Sizes and offsets of types in cells. `lengths` maps a variable whose
    block ends in a runtime array to that array's length: two variables of
    one block type (HLSL structured buffers, clspv's arguments) may differ.
    `of(var)` is the layout of that variable's type; on `Types` itself a
    runtime array is empty."""

    def __init__(self, view: ModuleView, lengths: Mapping[int, int] | None = None):
        self.view = view
        self.lengths = dict(lengths or {})
        self.runtime: dict[int, int] = {}  # runtime array type -> length, for `of(var)`'s view
        self._of: dict[int, Types] = {}

    def of(self, var: int) -> Types:
        """The layout of variable `var`'s type: its runtime array as long as `lengths` says."""
        found = self._of.get(var)
        if found is None:
            found = self._of[var] = Types(self.view, self.lengths)
            array = _runtime_array(self.view, self.view.variables[var]) if var in self.view.variables else None
            if array is not None:
                found.runtime = {array: self.lengths.get(var, 0)}
        return found

    def words(self, tid: int) -> int:
        """32-bit cells of a scalar type: 2 for a 64-bit integer or float and for a
        physical pointer (its 64-bit address), 1 for the others (0: not a scalar)."""
        kind = self.view.types.get(tid)
        if isinstance(kind, (IntType, FloatType)):
            return 2 if kind.width == 64 else 1
        if isinstance(kind, BoolType):
            return 1
        if isinstance(kind, PointerType) and kind.storage_class == "PhysicalStorageBuffer":
            return 2
        return 0

    def size(self, tid: int) -> int:
        words = self.words(tid)
        if words:
            return words
        kind = self.view.types.get(tid)
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
        """Every cell of a value of type `tid` at `offset`, named as a path: one a scalar,
        two (`x`, then `x:hi`) a 64-bit one."""
        words = self.words(tid)
        if words:
            return [(name, offset)] if words == 1 else [(name, offset), (name + HI, offset + 1)]
        kind = self.view.types.get(tid)
        if isinstance(kind, VectorType):
            size = self.size(kind.component)
            return [
                cell
                for i in range(kind.count)
                for cell in self.leaves(kind.component, f"{name}.{'xyzw'[i]}", offset + i * size)
            ]
        if isinstance(kind, (ArrayType, RuntimeArrayType)):
            stride = self.stride(tid)
            count = self.length(tid) or 0
            return [
                cell for i in range(count) for cell in self.leaves(kind.element, f"{name}[{i}]", offset + i * stride)
            ]
        if isinstance(kind, StructType):
            cells = []
            for i, member in enumerate(kind.members):
                label = self.view.member_names.get((tid, i)) or f"m{i}"
                path = f"{name}.{label}" if name else label
                if name and label == SLANG_WRAPPER and len(kind.members) == 1:  # Slang's structured buffer
                    path = name
                cells += self.leaves(member, path, offset + self.member_offset(tid, i))
            return cells
        raise InputError(f"a value of type %{tid} cannot be kept in 32-bit cells")


HI = ":hi"
"""The name of a 64-bit value's high word is the value's name and this."""
SLANG_WRAPPER = "__member0"
"""The one member of the block Slang wraps a structured buffer's array in: its cells are
named after the buffer alone (`b[1]`, not `b.__member0[1]`)."""


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
    push: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    """Each PushConstant variable's cells (read-only, local to every invocation, not shared)."""
    ranges: tuple[Range, ...] = ()
    """The buffers and raw regions a buffer reference can address, in order (addresses.py)."""


def variable_name(view: ModuleView, var: Variable) -> str:
    """The variable's name (OpName). An anonymous block (`buffer B { ... };`, or no OpName) whose
    members have names has "" and its members speak for it. Any other variable without a name
    (clspv writes none) is called as SPIR-V assembly calls it: its `%name` in the assembly it was
    read from, else its id, `%16`."""
    if var.id in view.names:
        return view.names[var.id]
    block = view.types.get(var.pointee)
    if isinstance(block, StructType) and any((block.id, i) in view.member_names for i in range(len(block.members))):
        return ""
    return view.aliases.get(var.id, f"%{var.id}")


def shared_variables(view: ModuleView) -> list[Variable]:
    return sorted((v for v in view.variables.values() if v.storage_class in SHARED_CLASSES), key=lambda v: v.id)


def _runtime_array(view: ModuleView, var: Variable) -> int | None:
    """The runtime array type that ends `var`'s block, if it has one."""
    block = view.types.get(var.pointee)
    if isinstance(block, StructType) and block.members:
        last = block.members[-1]
        if isinstance(view.types.get(last), RuntimeArrayType):
            return last
    return None


def runtime_names(view: ModuleView) -> dict[int, tuple[str, ...]]:
    """Each variable ending in a runtime array -> the names `--buffer` may give its length by,
    most specific first: the variable's, its member's, its block type's ("" left out). The
    first is the one that names it alone where there is one (HLSL's member `@data` and block
    types are shared by every structured buffer of an element type)."""
    found: dict[int, tuple[str, ...]] = {}
    for var in shared_variables(view):
        if _runtime_array(view, var) is not None:
            block = view.types[var.pointee]
            assert isinstance(block, StructType)
            member = view.member_names.get((block.id, len(block.members) - 1), "")
            member = "" if member == SLANG_WRAPPER else member  # every Slang structured buffer's: no name
            names = (variable_name(view, var), member, view.names.get(block.id, ""))
            found[var.id] = tuple(dict.fromkeys(a for a in names if a))
    owners = Counter(alias for aliases in found.values() for alias in aliases)
    return {
        var: tuple(sorted(aliases, key=lambda a: owners[a] > 1 or a.startswith("@"))) for var, aliases in found.items()
    }


def runtime_lengths(
    view: ModuleView,
    buffers: Mapping[str, int],
    path: str,
    push: tuple[tuple[str, int | None, int | str], ...] = (),
) -> dict[int, int]:
    """Each variable ending in a runtime array -> its length by the `--buffer NAME=LEN` items.
    A name sizes the variables it names at its most specific level (a variable's own name
    before a member's, a member's before a block type's), and a variable takes the most
    specific name given for it. Every runtime array the code uses needs a length; one it never
    uses is empty unless given. A name a `--push NAME=@REGION` address names is a raw region's
    size instead (addresses.py)."""
    wanted = runtime_names(view)
    known = {alias for aliases in wanted.values() for alias in aliases}
    known |= {target[0] for _, _, v in push if isinstance(v, str) and (target := addresses.parse(v))}
    problems: list[InputError] = []
    for name, length in buffers.items():
        if name not in known:
            choices = ", ".join(sorted(known)) or "none"
            problems.append(
                InputError(f"{path}: --buffer {name}={length}: no runtime-sized array is called {name!r} ({choices})")
            )
        elif length < 1:
            problems.append(InputError(f"{path}: --buffer {name}={length}: a length must be at least 1"))
    levels = _alias_levels(view, wanted)
    used = referenced_ids(view)
    lengths: dict[int, int] = {}
    missing: list[str] = []
    for var, aliases in wanted.items():
        given = sorted((levels[var][a], a) for a in aliases if a in buffers and levels[var][a] == _lowest(levels, a))
        if given:
            lengths[var] = buffers[given[0][1]]
        elif var in used:
            missing.append(aliases[0])
    if len(missing) == 1:
        problems.append(
            InputError(f"{path}: the runtime-sized array {missing[0]!r} needs a length: --buffer {missing[0]}=LEN")
        )
    elif missing:
        shown = ", ".join(repr(name) for name in missing)
        problems.append(
            InputError(
                f"{path}: the runtime-sized arrays {shown} need lengths: "
                + " ".join(f"--buffer {name}=LEN" for name in missing)
            )
        )
    if problems:  # every --buffer problem at once
        raise InputErrors.joined(problems)
    return lengths


def _alias_levels(view: ModuleView, wanted: Mapping[int, tuple[str, ...]]) -> dict[int, dict[str, int]]:
    """Variable -> alias -> 0 its own name, 1 its member's, 2 its block type's."""
    levels: dict[int, dict[str, int]] = {}
    for var in wanted:
        block = view.types[view.variables[var].pointee]
        assert isinstance(block, StructType)
        member = view.member_names.get((block.id, len(block.members) - 1), "")
        named = {view.names.get(block.id, ""): 2, member: 1, variable_name(view, view.variables[var]): 0}
        levels[var] = {alias: level for alias, level in named.items() if alias}
    return levels


def _lowest(levels: Mapping[int, Mapping[str, int]], alias: str) -> int:
    return min(found[alias] for found in levels.values() if alias in found)


def referenced_ids(view: ModuleView) -> frozenset[int]:
    """Every id an instruction of a function reads."""
    return frozenset(
        ident
        for function in view.functions.values()
        for block in function.blocks
        for inst in block.instructions
        for ident in inst.ids()
    )


def shared_layout(
    view: ModuleView,
    types: Types,
    workgroups: int,
    init: tuple[tuple[str, int | None, int], ...],
    path: str,
    push: tuple[tuple[str, int | None, int | str], ...] = (),
    buffers: Mapping[str, int] | None = None,
) -> SharedLayout:
    """Buffers first (then the raw regions `--push` addresses name, `NAME[i]` a word each),
    then one copy of the Workgroup variables per workgroup."""
    base: dict[int, int] = {}
    group_base: dict[int, int] = {}
    names: list[tuple[str, int]] = []
    group_names: list[tuple[str, int]] = []
    ranges: list[Range] = []
    top = group_top = 0
    for var in shared_variables(view):
        own = types.of(var.id)
        leaves = own.leaves(var.pointee, variable_name(view, var))
        if var.storage_class == "Workgroup":
            group_base[var.id] = group_top
            group_names += [(name, group_top + at) for name, at in leaves]
            group_top += own.size(var.pointee)
        else:
            base[var.id] = top
            names += [(name, top + at) for name, at in leaves]
            ranges.append(Range(variable_name(view, var) or view.names.get(var.pointee, f"%{var.id}"), top, 0))
            top += own.size(var.pointee)
            ranges[-1] = Range(ranges[-1].name, ranges[-1].start, top - ranges[-1].start)
    bound = {r.name for r in ranges}
    for name, words in addresses.regions(push, bound, buffers or {}, path).items():
        names += [(f"{name}[{i}]", top + i) for i in range(words)]
        ranges.append(Range(name, top, words))
        top += words
    for w in range(workgroups):
        names += [(f"wg{w}:{name}", top + w * group_top + at) for name, at in group_names]
    cells = [0] * (top + workgroups * group_top)
    _initialize(cells, names, init, path)
    constants = push_constants(view, types, _addressed(push, ranges, path), path)
    return SharedLayout(base, group_base, group_top, top, tuple(names), tuple(cells), constants, tuple(ranges))


def _addressed(
    push: tuple[tuple[str, int | None, int | str], ...], ranges: list[Range], path: str
) -> tuple[tuple[str, int | None, int], ...]:
    """`--push` items with each `@BUFFER[+BYTES]` replaced by that address."""
    index = {r.name: i for i, r in enumerate(ranges)}
    found = []
    for name, element, value in push:
        if isinstance(value, str):
            target = addresses.parse(value)
            if target is None or target[0] not in index:
                raise InputError(f"{path}: --push {name}={value}: no buffer is called {value[1:]!r}")
            value = addresses.address_of(index[target[0]], target[1])
        found.append((name, element, value))
    return tuple(found)


def push_constants(
    view: ModuleView, types: Types, push: tuple[tuple[str, int | None, int], ...], path: str
) -> dict[int, tuple[int, ...]]:
    """Each PushConstant variable's cells, laid out by Offset as a buffer is: 0 unless `--push`
    (named as `--init` names a cell) says otherwise."""
    variables = sorted((v for v in view.variables.values() if v.storage_class == "PushConstant"), key=lambda v: v.id)
    names: list[tuple[str, int]] = []
    starts: dict[int, tuple[int, int]] = {}
    top = 0
    for var in variables:
        names += [(name, top + at) for name, at in types.leaves(var.pointee, variable_name(view, var))]
        starts[var.id] = (top, types.size(var.pointee))
        top += types.size(var.pointee)
    if push and not variables:
        name, index, value = push[0]
        raise InputError(
            f"{path}: --push {name}{'' if index is None else f'[{index}]'}={value}: the kernel has no push constants"
        )
    cells = [0] * top
    _initialize(cells, names, push, path, "--push", "push constant")
    return {var: tuple(cells[start : start + size]) for var, (start, size) in starts.items()}


def _initialize(
    cells: list[int],
    names: list[tuple[str, int]],
    init: tuple[tuple[str, int | None, int], ...],
    path: str,
    option: str = "--init",
    what: str = "shared memory cell",
) -> None:
    """`--init NAME=V` sets every cell of NAME (a scalar, an array, a struct; a Workgroup
    variable's in every workgroup, or `wgN:NAME` in one); `--init NAME[i]=V` one element's
    cells. Values are 32-bit (negative ones wrap); a 64-bit cell takes a 64-bit value, its
    high word (`NAME:hi`) the high half."""
    problems: list[InputError] = []
    for name, index, value in init:
        target = name if index is None else f"{name}[{index}]"
        chosen = [(cell, at) for cell, at in names if _within(cell.removesuffix(HI), target)]
        wide = any(cell.endswith(HI) for cell, _ in chosen)
        if not chosen:
            problems.append(
                InputError(f"{path}: {option} {target}={value}: no {what} is called {target!r}" + _hint(names, what))
            )
        elif not (-(2**63) <= value < 2**64 if wide else -(2**31) <= value < 2**32):
            bits = 64 if wide else 32
            problems.append(InputError(f"{path}: {option} {target}={value}: the value does not fit in {bits} bits"))
        for cell, at in chosen:
            cells[at] = (value >> 32 if cell.endswith(HI) else value) & 0xFFFFFFFF
    if problems:  # every item's problem at once
        raise InputErrors.joined(problems)


def _within(cell: str, target: str) -> bool:
    """`cell` is `target` or a part of it; a Workgroup variable's cell (`wg1:s[0]`) is also
    named without its workgroup, for every workgroup's copy at once."""
    if not _GROUP.match(target):
        cell = _GROUP.sub("", cell, count=1)
    return cell == target or cell.startswith(target + ".") or cell.startswith(target + "[")


_GROUP = re.compile(r"wg\d+:")


def _hint(names: list[tuple[str, int]], what: str) -> str:
    roots = sorted({cell.split("[")[0].split(".")[0] for cell, _ in names})
    shown = ", ".join(roots[:12]) or "none"
    return f" (the {what}s are in: {shown})"
