"""The decoded SPIR-V module: frozen data, no decoding.

The contract between the SPIR-V front end (decode, source lines, toolchain)
and whoever executes a kernel. An `Instruction` is one instruction as the
binary holds it, its operands typed by the grammar:

- an id (IdRef, IdScope, IdMemorySemantics...) is `Id(n)`;
- a literal integer is an `int`, a literal string a `str`;
- a context-dependent number (OpConstant, OpSpecConstant, OpSwitch's
  selectors) is its raw bit pattern as a non-negative `int`, low word first
  when it spans two words (a 64-bit type): `-1` of a 32-bit int is 0xFFFFFFFF;
- an enumerant (ValueEnum) is its name (`"GLCompute"`, `"BuiltIn"`), followed
  by its parameters as further operands (`"BuiltIn", "GlobalInvocationId"`;
  `"Offset", 4`); a BitEnum is its set names joined by `|` in bit order
  (`"Volatile|Aligned"`, `"None"` for 0), followed by the parameters of each
  set bit in that order, as `spirv-dis` writes them.

`ModuleView` is what a module declares, derived once from the instructions
(`Module.view`): capabilities, entry points, types, constants, variables,
functions split into blocks. Dictionaries in it are read-only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any

from progress.errors import SourcePosition


@dataclass(frozen=True, order=True)
class Id:
    """A reference to a result id (`%n`)."""

    value: int

    def __str__(self) -> str:
        return f"%{self.value}"


Operand = Id | int | str


@dataclass(frozen=True)
class SourceLine:
    """Where an instruction came from: 1-based line, column (0 when the
    compiler did not say), and that line's text, stripped ("" when the
    source text is not known)."""

    file: str
    line: int
    column: int
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"

    def position(self) -> SourcePosition:
        """For an error at this line: the column (1 when unknown), the text
        indented so that a caret under the column points at the statement."""
        column = max(self.column, 1)
        return SourcePosition(self.file, self.line, column, " " * (column - 1) + self.text)


@dataclass(frozen=True)
class Instruction:
    """One instruction. `word_offset` is the index of its first word in the
    binary (the header is words 0-4); `source` is the OpLine (or debug-info
    line) in force, if any."""

    opcode: str
    result_type: int | None
    result: int | None
    operands: tuple[Operand, ...]
    word_offset: int
    source: SourceLine | None = None

    def ids(self) -> tuple[int, ...]:
        """The ids among the operands, in order (not the result or its type)."""
        return tuple(op.value for op in self.operands if isinstance(op, Id))

    def where(self) -> str:
        """`file:line` when the source is known, else the word offset."""
        return str(self.source) if self.source else f"word {self.word_offset}"


# --- What a module declares -------------------------------------------------


@dataclass(frozen=True)
class EntryPoint:
    model: str  # "GLCompute", "Vertex", ...
    function: int
    name: str
    interface: tuple[int, ...]


@dataclass(frozen=True)
class ExecutionMode:
    entry: int
    mode: str  # "LocalSize", "LocalSizeId", ...
    operands: tuple[Operand, ...]


@dataclass(frozen=True)
class Decoration:
    name: str  # "Binding", "BuiltIn", "Block", ...
    operands: tuple[Operand, ...] = ()

    @property
    def value(self) -> Operand | None:
        """The first parameter (Binding's number, BuiltIn's name), if any."""
        return self.operands[0] if self.operands else None


@dataclass(frozen=True)
class VoidType:
    id: int


@dataclass(frozen=True)
class BoolType:
    id: int


@dataclass(frozen=True)
class IntType:
    id: int
    width: int
    signed: bool


@dataclass(frozen=True)
class FloatType:
    id: int
    width: int


@dataclass(frozen=True)
class VectorType:
    id: int
    component: int
    count: int


@dataclass(frozen=True)
class ArrayType:
    """`length` is the value of the length constant `length_id` when it is a
    plain constant (None for a spec constant's or an unknown value)."""

    id: int
    element: int
    length_id: int
    length: int | None


@dataclass(frozen=True)
class RuntimeArrayType:
    id: int
    element: int


@dataclass(frozen=True)
class StructType:
    id: int
    members: tuple[int, ...]


@dataclass(frozen=True)
class PointerType:
    id: int
    storage_class: str  # "StorageBuffer", "Workgroup", "Function", ...
    pointee: int


@dataclass(frozen=True)
class FunctionType:
    id: int
    return_type: int
    parameters: tuple[int, ...]


@dataclass(frozen=True)
class OtherType:
    """Any other type instruction (images, samplers, matrices...)."""

    id: int
    opcode: str


Type = (
    VoidType
    | BoolType
    | IntType
    | FloatType
    | VectorType
    | ArrayType
    | RuntimeArrayType
    | StructType
    | PointerType
    | FunctionType
    | OtherType
)


@dataclass(frozen=True)
class Constant:
    """A constant or specialization constant.

    `value`: OpConstant/OpSpecConstant the raw bit pattern (the default for a
    spec constant); True/False 1/0; OpConstantNull 0; None for composites,
    OpSpecConstantOp and a module-scope OpUndef (which the interpreter reads
    as zero, as it does an uninitialized variable). `constituents`: the ids of a composite's parts, or of
    an OpSpecConstantOp's operands (its opcode in `operation`). `spec_id`:
    the SpecId decoration of a specialization constant, if any."""

    id: int
    type: int
    opcode: str
    value: int | None
    constituents: tuple[int, ...] = ()
    operation: str | None = None
    spec_id: int | None = None

    @property
    def is_spec(self) -> bool:
        return self.opcode.startswith("OpSpec")


@dataclass(frozen=True)
class Variable:
    """An OpVariable: `type` is its pointer type, `pointee` what it points to."""

    id: int
    type: int
    storage_class: str
    pointee: int
    initializer: int | None
    instruction: Instruction


@dataclass(frozen=True)
class Parameter:
    id: int
    type: int


@dataclass(frozen=True)
class Block:
    """A basic block: its label and its instructions after the OpLabel, up to
    and including the terminator. OpLine/OpNoLine and non-semantic extended
    instructions are left out (their effect is in `Instruction.source`)."""

    label: int
    instructions: tuple[Instruction, ...]

    @property
    def terminator(self) -> Instruction:
        return self.instructions[-1]


@dataclass(frozen=True)
class Function:
    id: int
    result_type: int
    control: str  # FunctionControl: "None", "Inline", ...
    function_type: int
    parameters: tuple[Parameter, ...]
    blocks: tuple[Block, ...]
    instruction: Instruction  # the OpFunction

    @property
    def entry_block(self) -> Block:
        return self.blocks[0]


@dataclass(frozen=True)
class ModuleView:
    capabilities: tuple[str, ...]
    extensions: tuple[str, ...]
    ext_imports: Mapping[int, str]  # result id -> "GLSL.std.450"
    memory_model: tuple[str, str] | None  # (addressing, memory model)
    entry_points: tuple[EntryPoint, ...]
    execution_modes: tuple[ExecutionMode, ...]
    names: Mapping[int, str]
    aliases: Mapping[int, str]  # `Module.aliases`: an assembly's own %names
    member_names: Mapping[tuple[int, int], str]
    decorations: Mapping[int, tuple[Decoration, ...]]
    member_decorations: Mapping[tuple[int, int], tuple[Decoration, ...]]
    types: Mapping[int, Type]
    constants: Mapping[int, Constant]
    variables: Mapping[int, Variable]  # global (module-level) variables
    functions: Mapping[int, Function]
    definitions: Mapping[int, Instruction]  # result id -> the instruction

    def decoration(self, target: int, name: str, member: int | None = None) -> Decoration | None:
        """The first decoration `name` of `target` (or of its `member`)."""
        found = (
            self.decorations.get(target, ()) if member is None else self.member_decorations.get((target, member), ())
        )
        return next((d for d in found if d.name == name), None)

    def builtin(self, target: int) -> str | None:
        """The BuiltIn a variable is decorated with ("GlobalInvocationId"...)."""
        found = self.decoration(target, "BuiltIn")
        return str(found.value) if found else None

    def entry_point(self, name: str | None = None) -> EntryPoint | None:
        """The entry point called `name`, or the first when `name` is None."""
        return next((e for e in self.entry_points if name is None or e.name == name), None)

    def local_size(self, entry: EntryPoint) -> tuple[int, int, int] | None:
        """The workgroup size of a compute entry point: a constant decorated
        BuiltIn WorkgroupSize wins (SPIR-V's rule), then LocalSize, then
        LocalSizeId (of constants, spec constants at their defaults); None
        when unknown."""
        for constant in self.constants.values():
            if self.builtin(constant.id) == "WorkgroupSize":
                return self._three(constant.constituents)
        for mode in self.execution_modes:
            if mode.entry != entry.function:
                continue
            if mode.mode == "LocalSize" and len(mode.operands) == 3:
                x, y, z = (op if isinstance(op, int) else 0 for op in mode.operands)
                return x, y, z
            if mode.mode == "LocalSizeId":
                return self._three(tuple(op.value for op in mode.operands if isinstance(op, Id)))
        return None

    def _three(self, ids: tuple[int, ...]) -> tuple[int, int, int] | None:
        values = [self.constants[i].value if i in self.constants else None for i in ids]
        if len(values) != 3:
            return None
        x, y, z = values
        return None if x is None or y is None or z is None else (x, y, z)


@dataclass(frozen=True)
class Module:
    """A decoded module: header words and every instruction in order.
    `version` is (major, minor). `aliases`: names the binary does not carry,
    (id, name) for ids without an OpName: an assembly's own `%names` of its
    variables (`%16`, `%flag`), which headers written for that text use."""

    version: tuple[int, int]
    generator: int
    bound: int
    instructions: tuple[Instruction, ...]
    aliases: tuple[tuple[int, str], ...] = ()

    @cached_property
    def view(self) -> ModuleView:
        """What the module declares, computed on first use."""
        return _build_view(self.instructions, self.aliases)


# --- Building the view ------------------------------------------------------

_TYPE_OPCODES = frozenset(
    {
        "OpTypeVoid",
        "OpTypeBool",
        "OpTypeInt",
        "OpTypeFloat",
        "OpTypeVector",
        "OpTypeArray",
        "OpTypeRuntimeArray",
        "OpTypeStruct",
        "OpTypePointer",
        "OpTypeFunction",
    }
)
_CONSTANT_OPCODES = frozenset(
    {
        "OpConstant",
        "OpConstantTrue",
        "OpConstantFalse",
        "OpConstantNull",
        "OpConstantComposite",
        "OpSpecConstant",
        "OpSpecConstantTrue",
        "OpSpecConstantFalse",
        "OpSpecConstantComposite",
        "OpSpecConstantOp",
        "OpUndef",  # at module scope (spirv-opt writes them there): a constant of no particular value
    }
)
_LINE_OPCODES = frozenset({"OpLine", "OpNoLine"})


def _build_view(instructions: tuple[Instruction, ...], aliases: tuple[tuple[int, str], ...] = ()) -> ModuleView:
    globals_, functions = _split_functions(instructions)
    ext_imports = {i.result: str(i.operands[0]) for i in globals_ if i.opcode == "OpExtInstImport"}
    decorations, member_decorations = _decorations(globals_)
    constants: dict[int, Constant] = {}
    types: dict[int, Type] = {}
    for inst in globals_:
        if inst.opcode in _CONSTANT_OPCODES and inst.result is not None:
            constants[inst.result] = _constant(inst, decorations)
        elif inst.opcode.startswith("OpType") and inst.result is not None:
            types[inst.result] = _type(inst, constants)
    memory_model = next(
        ((str(i.operands[0]), str(i.operands[1])) for i in globals_ if i.opcode == "OpMemoryModel"),
        None,
    )
    return ModuleView(
        capabilities=tuple(str(i.operands[0]) for i in globals_ if i.opcode == "OpCapability"),
        extensions=tuple(str(i.operands[0]) for i in globals_ if i.opcode == "OpExtension"),
        ext_imports=MappingProxyType(dict(ext_imports)),  # type: ignore[arg-type]
        memory_model=memory_model,
        entry_points=tuple(_entry_point(i) for i in globals_ if i.opcode == "OpEntryPoint"),
        execution_modes=tuple(
            ExecutionMode(_id(i.operands[0]), str(i.operands[1]), i.operands[2:])
            for i in globals_
            if i.opcode in ("OpExecutionMode", "OpExecutionModeId")
        ),
        names=_frozen({_id(i.operands[0]): str(i.operands[1]) for i in globals_ if i.opcode == "OpName"}),
        aliases=_frozen(dict(aliases)),
        member_names=_frozen(
            {
                (_id(i.operands[0]), _int(i.operands[1])): str(i.operands[2])
                for i in globals_
                if i.opcode == "OpMemberName"
            }
        ),
        decorations=_frozen(decorations),
        member_decorations=_frozen(member_decorations),
        types=_frozen(types),
        constants=_frozen(constants),
        variables=_frozen(_variables(globals_, types)),
        functions=_frozen({f.id: f for f in functions}),
        definitions=_frozen({i.result: i for i in instructions if i.result is not None}),
    )


def _frozen(mapping: dict[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(mapping)


def _id(operand: Operand) -> int:
    return operand.value if isinstance(operand, Id) else -1


def _int(operand: Operand) -> int:
    return operand if isinstance(operand, int) else -1


def _entry_point(inst: Instruction) -> EntryPoint:
    model, function, name, *interface = inst.operands
    return EntryPoint(str(model), _id(function), str(name), tuple(_id(op) for op in interface))


def _decorations(
    globals_: Iterable[Instruction],
) -> tuple[dict[int, tuple[Decoration, ...]], dict[tuple[int, int], tuple[Decoration, ...]]]:
    plain: dict[int, tuple[Decoration, ...]] = {}
    member: dict[tuple[int, int], tuple[Decoration, ...]] = {}
    for inst in globals_:
        if inst.opcode in ("OpDecorate", "OpDecorateId", "OpDecorateString"):
            target = _id(inst.operands[0])
            plain[target] = plain.get(target, ()) + (Decoration(str(inst.operands[1]), inst.operands[2:]),)
        elif inst.opcode in ("OpMemberDecorate", "OpMemberDecorateString"):
            key = (_id(inst.operands[0]), _int(inst.operands[1]))
            member[key] = member.get(key, ()) + (Decoration(str(inst.operands[2]), inst.operands[3:]),)
    return plain, member


def _constant(inst: Instruction, decorations: Mapping[int, tuple[Decoration, ...]]) -> Constant:
    assert inst.result is not None and inst.result_type is not None
    spec = next((d for d in decorations.get(inst.result, ()) if d.name == "SpecId"), None)
    spec_id = int(spec.operands[0]) if spec and isinstance(spec.operands[0], int) else None
    opcode, ops = inst.opcode, inst.operands
    value: int | None = None
    constituents: tuple[int, ...] = ()
    operation: str | None = None
    if opcode in ("OpConstant", "OpSpecConstant"):
        value = ops[0] if isinstance(ops[0], int) else None
    elif opcode.endswith("True"):
        value = 1
    elif opcode.endswith("False") or opcode == "OpConstantNull":
        value = 0
    elif opcode == "OpSpecConstantOp":
        operation = str(ops[0])
        constituents = tuple(_id(op) for op in ops[1:] if isinstance(op, Id))
    else:
        constituents = tuple(_id(op) for op in ops)
    return Constant(inst.result, inst.result_type, opcode, value, constituents, operation, spec_id)


def _type(inst: Instruction, constants: Mapping[int, Constant]) -> Type:
    assert inst.result is not None
    tid, ops = inst.result, inst.operands
    match inst.opcode:
        case "OpTypeVoid":
            return VoidType(tid)
        case "OpTypeBool":
            return BoolType(tid)
        case "OpTypeInt":
            return IntType(tid, _int(ops[0]), bool(ops[1]))
        case "OpTypeFloat":
            return FloatType(tid, _int(ops[0]))
        case "OpTypeVector":
            return VectorType(tid, _id(ops[0]), _int(ops[1]))
        case "OpTypeArray":
            length = constants.get(_id(ops[1]))
            known = length.value if length and not length.is_spec else None
            return ArrayType(tid, _id(ops[0]), _id(ops[1]), known)
        case "OpTypeRuntimeArray":
            return RuntimeArrayType(tid, _id(ops[0]))
        case "OpTypeStruct":
            return StructType(tid, tuple(_id(op) for op in ops))
        case "OpTypePointer":
            return PointerType(tid, str(ops[0]), _id(ops[1]))
        case "OpTypeFunction":
            return FunctionType(tid, _id(ops[0]), tuple(_id(op) for op in ops[1:]))
    return OtherType(tid, inst.opcode)


def _variables(globals_: Iterable[Instruction], types: Mapping[int, Type]) -> dict[int, Variable]:
    found: dict[int, Variable] = {}
    for inst in globals_:
        if inst.opcode == "OpVariable" and inst.result is not None and inst.result_type is not None:
            pointer = types.get(inst.result_type)
            pointee = pointer.pointee if isinstance(pointer, PointerType) else -1
            init = _id(inst.operands[1]) if len(inst.operands) > 1 else None
            found[inst.result] = Variable(inst.result, inst.result_type, str(inst.operands[0]), pointee, init, inst)
    return found


def _split_functions(
    instructions: tuple[Instruction, ...],
) -> tuple[list[Instruction], list[Function]]:
    """The module-level instructions, and the functions (OpFunction ..
    OpFunctionEnd) with their parameters and blocks."""
    globals_: list[Instruction] = []
    functions: list[Function] = []
    current: list[Instruction] | None = None
    for inst in instructions:
        if inst.opcode == "OpFunction":
            current = [inst]
        elif current is None:
            globals_.append(inst)
        elif inst.opcode == "OpFunctionEnd":
            functions.append(_function(current, _non_semantic_sets(globals_)))
            current = None
        else:
            current.append(inst)
    return globals_, functions


def _non_semantic_sets(globals_: Iterable[Instruction]) -> frozenset[int]:
    return frozenset(
        i.result
        for i in globals_
        if i.opcode == "OpExtInstImport" and i.result is not None and str(i.operands[0]).startswith("NonSemantic.")
    )


def _function(body: list[Instruction], non_semantic: frozenset[int]) -> Function:
    head = body[0]
    assert head.result is not None and head.result_type is not None
    parameters: list[Parameter] = []
    blocks: list[Block] = []
    label: int | None = None
    content: list[Instruction] = []
    for inst in body[1:]:
        if inst.opcode == "OpFunctionParameter" and inst.result is not None:
            parameters.append(Parameter(inst.result, inst.result_type or -1))
        elif inst.opcode == "OpLabel" and inst.result is not None:
            if label is not None:
                blocks.append(Block(label, tuple(content)))
            label, content = inst.result, []
        elif label is not None and not _is_debug(inst, non_semantic):
            content.append(inst)
    if label is not None:
        blocks.append(Block(label, tuple(content)))
    return Function(
        head.result,
        head.result_type,
        str(head.operands[0]),
        _id(head.operands[1]),
        tuple(parameters),
        tuple(blocks),
        head,
    )


def _is_debug(inst: Instruction, non_semantic: frozenset[int]) -> bool:
    """OpLine/OpNoLine, and extended instructions of a NonSemantic.* set."""
    if inst.opcode in _LINE_OPCODES:
        return True
    return inst.opcode == "OpExtInst" and _id(inst.operands[0]) in non_semantic
