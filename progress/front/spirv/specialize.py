"""Specialization: a module with its specialization constants frozen, as a Vulkan
pipeline freezes them when it is created (docs/kernels.md, "Launch settings").

`specialize(module, spec, local_size, entry, path)` returns the module in which
every OpSpecConstant, OpSpecConstantTrue/False and OpSpecConstantComposite is the
plain constant of its value (`--spec` given by SpecId or by name, else its
default), and every OpSpecConstantOp is the constant it evaluates to; array
lengths, the workgroup size and every read of such a constant then follow.

The SpecId decorations go too (SPIR-V allows them on specialization constants
only), so the result is a valid module by itself, as the pipeline's is, and
every entry point's LocalSize (or LocalSizeId) says the size it now has.

`local_size` (`--local-size X,Y,Z`) sets the workgroup size where the kernel
reads it: the specialization constants it is made of (`local_size_x_id`,
LocalSizeId), or the built-in WorkgroupSize constant (`gl_WorkGroupSize`) that
the code reads, which is given constants of its own. A `--spec` of a size's
constant with another value than `--local-size` gives it is refused, both named
at the line that declares the size (`text`), unless its key is in `yields`: a
`--spec` given where the size was not (the command line over the header) wins. A size written into the
kernel and never read as gl_WorkGroupSize is refused unless it is the one asked
for: the code may depend on it in ways no rewrite can see. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from progress.errors import InputError, SourcePosition
from progress.front.spirv.ir import BoolType, Constant, EntryPoint, Id, Instruction, Module, ModuleView
from progress.front.spirv.layout import referenced_ids
from progress.front.spirv.values import MASK, WIDTHS, Fault, Tables, lift
from progress.source import source_lines

Value = int | tuple  # a scalar's 32-bit pattern, or a composite's parts


def specialize(
    module: Module,
    spec: tuple[tuple[str, int], ...],
    local_size: tuple[int, int, int] | None,
    entry: EntryPoint | None,
    path: str,
    text: str = "",
    yields: frozenset[str] = frozenset(),
) -> Module:
    """`module` specialized (see the module's contract); an InputError names a `--spec`
    that matches no constant, a value its constant cannot hold, a size that cannot be set,
    a `--spec` and a `--local-size` that give one constant two values."""
    view = module.view
    given, keys = _given_values(view, spec, path)
    fresh: dict[int, tuple[int, ...]] = {}
    if local_size is not None and entry is not None:
        size_values, fresh = _local_size(view, entry, local_size, path)
        for cid, value in size_values.items():
            if cid in given and given[cid] != value and keys[cid] not in yields:
                raise _both(view, cid, keys[cid], given[cid], local_size, path, text)
        given = size_values | given
    if not given and not fresh and not any(c.is_spec for c in view.constants.values()):
        return module
    return _sized(_rewritten(module, given, fresh, path))


def _sized(module: Module) -> Module:
    """Every entry point's LocalSize / LocalSizeId made the LocalSize it now has
    (the built-in WorkgroupSize constant wins, as in SPIR-V), so that a reader
    that looks only at the execution mode (naga) sees the specialized size."""
    view = module.view
    out = []
    for inst in module.instructions:
        if inst.opcode in ("OpExecutionMode", "OpExecutionModeId") and inst.operands[1] in ("LocalSize", "LocalSizeId"):
            entry = next((e for e in view.entry_points if e.function == _ident(inst.operands[0])), None)
            size = view.local_size(entry) if entry is not None else None
            if size is not None:
                inst = replace(inst, opcode="OpExecutionMode", operands=(inst.operands[0], "LocalSize", *size))
        out.append(inst)
    return replace(module, instructions=tuple(out))


def _given_values(
    view: ModuleView, spec: tuple[tuple[str, int], ...], path: str
) -> tuple[dict[int, int], dict[int, str]]:
    """`--spec` items as constant id -> value, and constant id -> the key that gave it."""
    specs = [c for c in view.constants.values() if c.opcode in _SCALAR_SPECS]
    values: dict[int, int] = {}
    keys: dict[int, str] = {}
    for key, value in spec:
        matches = [c for c in specs if (str(c.spec_id) == key if key.isdigit() else view.names.get(c.id) == key)]
        if not matches:
            raise InputError(
                f"{path}: --spec {key}={value}: no specialization constant has " + _known(view, specs, key)
            )
        for constant in matches:
            if isinstance(view.types.get(constant.type), BoolType) and value not in (0, 1):
                raise InputError(f"{path}: --spec {key}={value}: the constant is a bool (true, false, 1 or 0)")
            values[constant.id] = value
            keys[constant.id] = key
    return values, keys


def _both(
    view: ModuleView, cid: int, key: str, value: int, size: tuple[int, int, int], path: str, text: str
) -> InputError:
    """`--spec key=value` against the `--local-size` that sets the same constant otherwise."""
    constant = view.constants[cid]
    message = (
        f"--spec {key}={value} and --local-size {_size(size)} both set the specialization constant "
        f"{constant.spec_id}"
        + (f" ({view.names[cid]})" if view.names.get(cid) else "")
        + ", the workgroup size: give one of them (a --spec on the command line wins over the header's --local-size)"
    )
    pattern = re.compile(rf"local_size_[xyz]_id\s*=\s*{constant.spec_id}\b|\bSpecId\s+{constant.spec_id}\b")
    for number, line in enumerate(source_lines(text), 1):
        found = pattern.search(line)
        if found:
            return InputError(message, SourcePosition(path, number, found.start() + 1, line))
    return InputError(f"{path}: {message}")


def _known(view: ModuleView, specs: list[Constant], key: str) -> str:
    what = f"SpecId {key}" if key.isdigit() else f"the name {key!r}"
    shown = ", ".join(
        f"{c.spec_id}" + (f" {view.names[c.id]}" if view.names.get(c.id) else "")
        for c in specs
        if c.spec_id is not None
    )
    return f"{what} (the kernel's: {shown or 'none'})"


_SCALAR_SPECS = ("OpSpecConstant", "OpSpecConstantTrue", "OpSpecConstantFalse")


def _local_size(
    view: ModuleView, entry: EntryPoint, size: tuple[int, int, int], path: str
) -> tuple[dict[int, int], dict[int, tuple[int, ...]]]:
    """(spec constant id -> value, built-in composite id -> its new size) that make the
    workgroup size `size`."""
    builtin = next((c for c in view.constants.values() if view.builtin(c.id) == "WorkgroupSize"), None)
    if builtin is not None and builtin.opcode == "OpConstantComposite":
        if tuple(_plain(view, part) for part in builtin.constituents) == size:
            return {}, {}
        if builtin.id not in referenced_ids(view) | _initializers(view):
            raise _fixed(view, builtin.constituents, size, path)
        return {}, {builtin.id: size}
    if builtin is not None:
        return _through_specs(view, builtin.constituents, size, path), {}
    for mode in view.execution_modes:
        if mode.entry == entry.function and mode.mode == "LocalSizeId":
            return _through_specs(view, tuple(op.value for op in mode.operands if isinstance(op, Id)), size, path), {}
        if mode.entry == entry.function and mode.mode == "LocalSize" and tuple(mode.operands) != size:
            raise InputError(
                f"{path}: --local-size {_size(size)}: the workgroup size {_size(tuple(mode.operands))} is written "
                "into the kernel (LocalSize) and the kernel does not read it as gl_WorkGroupSize, so its code may "
                "depend on it where no setting can change it; make it a specialization constant (local_size_x_id)"
            )
    return {}, {}


def _through_specs(view: ModuleView, parts: tuple[int, ...], size: tuple[int, int, int], path: str) -> dict[int, int]:
    """The spec constants among `parts` set to `size`; a plain part must already be its size."""
    values: dict[int, int] = {}
    for axis, (part, wanted) in enumerate(zip(parts, size)):
        constant = view.constants.get(part)
        if constant is not None and constant.opcode == "OpSpecConstant":
            values[part] = wanted
        elif _plain(view, part) != wanted:
            raise InputError(
                f"{path}: --local-size {_size(size)}: the size along {'xyz'[axis]} is the constant "
                f"{_plain(view, part)} in the kernel, not a specialization constant"
            )
    return values


def _fixed(view: ModuleView, parts: tuple[int, ...], size: tuple[int, int, int], path: str) -> InputError:
    written = _size(tuple(_plain(view, p) or 0 for p in parts))
    return InputError(
        f"{path}: --local-size {_size(size)}: the workgroup size {written} is written into the kernel and the "
        "kernel does not read gl_WorkGroupSize, so its code may depend on it where no setting can change it; "
        "make it a specialization constant (local_size_x_id)"
    )


def _plain(view: ModuleView, cid: int) -> int | None:
    constant = view.constants.get(cid)
    return constant.value if constant is not None else None


def _initializers(view: ModuleView) -> set[int]:
    return {v.initializer for v in view.variables.values() if v.initializer is not None}


def _size(size: Iterable[object]) -> str:
    return ",".join(str(s) for s in size)


# --- the rewrite ------------------------------------------------------------


def _rewritten(module: Module, given: dict[int, int], fresh: dict[int, tuple[int, ...]], path: str) -> Module:
    """Every spec constant (and each built-in composite in `fresh`) as a plain constant."""
    view = module.view
    known: dict[int, Value] = {}
    bound = module.bound
    out: list[Instruction] = []
    for inst in module.instructions:
        constant = view.constants.get(inst.result or -1)
        if inst.opcode == "OpDecorate" and inst.operands[1:2] == ("SpecId",):
            continue  # every specialization constant is frozen: a SpecId on a plain constant is invalid SPIR-V
        if inst.result in fresh:
            made, bound = _as_plain(view, replace(inst, opcode="OpSpecConstantOp"), fresh[inst.result], bound)
            out += made
        elif constant is not None and constant.is_spec:
            value = _value(view, constant, given, known, inst, path)
            known[constant.id] = value
            made, bound = _as_plain(view, inst, value, bound)
            out += made
        elif inst.opcode == "OpTypeArray" and view.constants.get(_ident(inst.operands[1]), _PLAIN).is_spec:
            length = known[_ident(inst.operands[1])]
            if not isinstance(length, int) or not 0 < length <= _MAX_LENGTH:
                raise _at(inst, path, f"specialized to the length {length}, not in 1..{_MAX_LENGTH}")
            out.append(inst)
        else:
            if constant is not None and constant.value is not None:
                known[constant.id] = constant.value
            elif constant is not None and constant.opcode == "OpConstantComposite":
                known[constant.id] = tuple(known.get(part, 0) for part in constant.constituents)
            out.append(inst)
    return replace(module, bound=bound, instructions=tuple(out))


_PLAIN = Constant(-1, -1, "OpConstant", 0)
_MAX_LENGTH = 1 << 16
"""The longest array a specialization may make (as `--buffer` for a runtime array)."""


def _at(inst: Instruction, path: str, reason: str) -> InputError:
    """An InputError at `inst`'s source line (or its word offset)."""
    if inst.source is None:
        return InputError(f"{path}: word {inst.word_offset}: {inst.opcode}: {reason}")
    return InputError(f"{inst.opcode}: {reason}", inst.source.position())


def _ident(operand: object) -> int:
    return operand.value if isinstance(operand, Id) else -1


def _scalar(view: ModuleView, inst: Instruction) -> int | None:
    """The component type of a vector-typed instruction's result."""
    vector = view.types.get(inst.result_type or -1)
    return getattr(vector, "component", inst.result_type)


def _value(
    view: ModuleView, constant: Constant, given: dict[int, int], known: dict[int, Value], inst: Instruction, path: str
) -> Value:
    if constant.opcode in _SCALAR_SPECS:
        return given.get(constant.id, constant.value if constant.value is not None else 0)
    if constant.opcode == "OpSpecConstantComposite":
        return tuple(known[part] for part in constant.constituents)
    try:
        wide = any(_is_wide(view, _type_of(view, o)) for o in inst.operands[1:])
        return _operation(inst, known, WIDTHS[64] if wide else WIDTHS[32])
    except (Fault, KeyError, IndexError, TypeError) as error:
        raise _at(inst, path, f"{inst.operands[0]} cannot be evaluated ({error})") from None


def _type_of(view: ModuleView, operand: object) -> int | None:
    source = view.definitions.get(operand.value) if isinstance(operand, Id) else None
    return source.result_type if source is not None else None


def _is_wide(view: ModuleView, tid: int | None) -> bool:
    """A 64-bit scalar type, or a vector of them (the evaluation's tables are 32-bit)."""
    kind = view.types.get(tid or -1)
    kind = view.types.get(getattr(kind, "component", -1), kind)
    return getattr(kind, "width", 32) == 64


def _operation(inst: Instruction, known: dict[int, Value], tables: Tables = WIDTHS[32]) -> Value:
    """An OpSpecConstantOp's value from its operands' (`known`), at its operands' width
    (`tables`: an integer conversion's result is masked to its own width when made a constant)."""
    op, ops = str(inst.operands[0]), inst.operands[1:]

    def arg(i: int) -> Value:
        operand = ops[i]
        assert isinstance(operand, Id)
        return known[operand.value]

    if op in tables.binary:
        return lift(tables.binary[op], arg(0), arg(1))  # type: ignore[return-value]
    if op in ("OpSConvert",) and tables is WIDTHS[32]:
        return lift(lambda a: a - (1 << 32) if a >> 31 else a, arg(0))  # type: ignore[return-value]
    if op in tables.unary:
        return lift(tables.unary[op], arg(0))  # type: ignore[return-value]
    if op == "OpSelect":
        condition, a, b = arg(0), arg(1), arg(2)
        if isinstance(condition, tuple):
            return tuple(x if c else y for c, x, y in zip(condition, a, b))  # type: ignore[arg-type]
        return a if condition else b
    if op == "OpCompositeExtract":
        value = arg(0)
        for index in ops[1:]:
            value = value[int(index)]  # type: ignore[index, arg-type]
        return value
    if op == "OpCompositeInsert":
        return _insert(arg(1), [int(i) for i in ops[2:]], arg(0))  # type: ignore[arg-type]
    if op == "OpVectorShuffle":
        joined = tuple(arg(0)) + tuple(arg(1))  # type: ignore[arg-type]
        return tuple(joined[int(i)] if int(i) != MASK else 0 for i in ops[2:])  # type: ignore[arg-type]
    raise Fault(f"{op} is not an operation this checker evaluates")


def _insert(composite: tuple, path: list[int], value: Value) -> Value:
    if not path:
        return value
    parts = list(composite)
    parts[path[0]] = _insert(parts[path[0]], path[1:], value)
    return tuple(parts)


def _as_plain(view: ModuleView, inst: Instruction, value: Value, bound: int) -> tuple[list[Instruction], int]:
    """The plain constant(s) of `value` with `inst`'s result: new scalar constants first when
    a composite's parts are not constants already (an OpSpecConstantOp's vector)."""
    if not isinstance(value, tuple):
        return [_scalar_constant(view, inst, inst.result, inst.result_type, value)], bound
    if inst.opcode == "OpSpecConstantComposite":
        return [replace(inst, opcode="OpConstantComposite")], bound
    parts, made = [], []
    for part in value:
        assert not isinstance(part, tuple), "a composite of composites from OpSpecConstantOp"
        made.append(_scalar_constant(view, inst, bound, _scalar(view, inst), part))
        parts.append(Id(bound))
        bound += 1
    return made + [replace(inst, opcode="OpConstantComposite", operands=tuple(parts))], bound


def _scalar_constant(
    view: ModuleView, inst: Instruction, result: int | None, type_id: int | None, value: int
) -> Instruction:
    """A plain scalar constant at `inst`'s place: OpConstantTrue/False for a bool."""
    if isinstance(view.types.get(type_id or -1), BoolType):
        opcode = "OpConstantTrue" if value else "OpConstantFalse"
        return replace(inst, opcode=opcode, result=result, result_type=type_id, operands=())
    mask = (1 << 64) - 1 if _is_wide(view, type_id) else MASK
    return replace(inst, opcode="OpConstant", result=result, result_type=type_id, operands=(value & mask,))
