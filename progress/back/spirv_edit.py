"""A decoded module opened for editing: what a SPIR-V-to-SPIR-V pass needs.

`Draft(module)` splits the instruction stream into its sections (everything
before the functions, then each function as its head, raw blocks and end)
and hands out fresh ids above the module's bound. Types, constants and
variables are found or added (`uint`, `pointer`, `constant`, `variable`),
decorations and names added to their sections, so that the finished module
keeps SPIR-V's layout order. A `RawBlock` keeps every instruction of the
block as decoded (OpLine included), after its OpLabel. `finish()` gives the
edited `Module`, each instruction at its word offset in the encoded binary
and with the source line it had (new ones have none).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

from progress.back.spirv_encode import with_offsets
from progress.front.spirv.ir import Id, Instruction, Module, Operand

TERMINATORS = frozenset(
    {"OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpKill", "OpUnreachable"}
)
MERGES = frozenset({"OpSelectionMerge", "OpLoopMerge"})
_ANNOTATIONS = frozenset(
    {"OpDecorate", "OpMemberDecorate", "OpDecorateId", "OpDecorateString", "OpMemberDecorateString"}
)
_DEBUG_NAMES = frozenset({"OpName", "OpMemberName"})
_PREAMBLE_OPCODES = frozenset({"OpCapability", "OpExtension"})


def op(opcode: str, *operands: Operand, result: int | None = None, type_: int | None = None) -> Instruction:
    """An instruction to insert (word offsets are fixed by `Draft.finish`)."""
    return Instruction(opcode, type_, result, tuple(operands), 0)


@dataclass
class RawBlock:
    """A block: its label and every instruction after the OpLabel, in order."""

    label: int
    body: list[Instruction]

    @property
    def terminator(self) -> Instruction:
        return self.body[-1]

    def merge(self) -> Instruction | None:
        """The block's OpSelectionMerge or OpLoopMerge, if it is a header."""
        return next((i for i in self.body if i.opcode in MERGES), None)

    def successors(self) -> list[int]:
        end = self.terminator
        if end.opcode == "OpBranch":
            return [_ref(end.operands[0])]
        if end.opcode == "OpBranchConditional":
            return [_ref(end.operands[1]), _ref(end.operands[2])]
        if end.opcode == "OpSwitch":
            return [_ref(o) for o in end.operands[1:] if isinstance(o, Id)]
        return []


@dataclass
class RawFunction:
    head: list[Instruction]  # OpFunction and its OpFunctionParameters
    blocks: list[RawBlock]
    end: Instruction

    @property
    def id(self) -> int:
        return self.head[0].result or 0

    def block(self, label: int) -> RawBlock:
        return next(b for b in self.blocks if b.label == label)


@dataclass
class Draft:
    """The module being edited (see the module's contract)."""

    module: Module
    globals_: list[Instruction] = field(init=False)
    functions: list[RawFunction] = field(init=False)
    bound: int = field(init=False)

    def __post_init__(self) -> None:
        self.globals_, self.functions = _split(self.module.instructions)
        self.bound = self.module.bound

    def fresh(self) -> int:
        self.bound += 1
        return self.bound - 1

    # --- finding or adding declarations --------------------------------------

    def find(self, opcode: str, *operands: Operand, type_: int | None = None) -> int | None:
        return next(
            (
                i.result
                for i in self.globals_
                if i.opcode == opcode and i.operands == operands and i.result_type == type_ and i.result is not None
            ),
            None,
        )

    def declare(self, opcode: str, *operands: Operand, type_: int | None = None, reuse: bool = True) -> int:
        """The id of a type or constant declared as given, added if missing."""
        found = self.find(opcode, *operands, type_=type_) if reuse else None
        if found is not None:
            return found
        result = self.fresh()
        self.globals_.append(op(opcode, *operands, result=result, type_=type_))
        return result

    def uint(self) -> int:
        return self.declare("OpTypeInt", 32, 0)

    def bool(self) -> int:
        return self.declare("OpTypeBool")

    def uvec3(self) -> int:
        return self.declare("OpTypeVector", Id(self.uint()), 3)

    def pointer(self, storage: str, pointee: int) -> int:
        return self.declare("OpTypePointer", storage, Id(pointee))

    def constant(self, value: int) -> int:
        return self.declare("OpConstant", value & 0xFFFFFFFF, type_=self.uint())

    def true(self) -> int:
        return self.declare("OpConstantTrue", type_=self.bool())

    def false(self) -> int:
        return self.declare("OpConstantFalse", type_=self.bool())

    def variable(self, pointee: int, storage: str, initializer: int | None = None) -> int:
        result = self.fresh()
        extra: tuple[Operand, ...] = (Id(initializer),) if initializer is not None else ()
        self.globals_.append(op("OpVariable", storage, *extra, result=result, type_=self.pointer(storage, pointee)))
        return result

    def decorate(self, target: int, *decoration: Operand, member: int | None = None) -> None:
        inst = (
            op("OpDecorate", Id(target), *decoration)
            if member is None
            else op("OpMemberDecorate", Id(target), member, *decoration)
        )
        self._insert_after_last(_ANNOTATIONS | _DEBUG_NAMES, inst)

    def name(self, target: int, text: str) -> None:
        self._insert_after_last(
            _DEBUG_NAMES | {"OpSource", "OpSourceContinued", "OpString"}, op("OpName", Id(target), text)
        )

    def require(self, capability: str | None = None, extension: str | None = None) -> None:
        """Add an OpCapability / OpExtension the module lacks."""
        if capability and not self.find("OpCapability", capability):
            self.globals_.insert(0, op("OpCapability", capability))
        if extension and not any(i.opcode == "OpExtension" and i.operands == (extension,) for i in self.globals_):
            self._insert_after_last(_PREAMBLE_OPCODES, op("OpExtension", extension))

    def builtin(self, name: str) -> int | None:
        """The Input variable decorated BuiltIn `name`, if the module has one."""
        for inst in self.globals_:
            if inst.opcode == "OpDecorate" and inst.operands[1:] == ("BuiltIn", name):
                return _ref(inst.operands[0])
        return None

    def _insert_after_last(self, opcodes: Iterable[str], inst: Instruction) -> None:
        wanted = frozenset(opcodes)
        at = max((n + 1 for n, i in enumerate(self.globals_) if i.opcode in wanted), default=None)
        if at is None:
            at = next(n for n, i in enumerate(self.globals_) if i.opcode == "OpMemoryModel") + 1
            at = max(
                (
                    n + 1
                    for n, i in enumerate(self.globals_)
                    if i.opcode in ("OpEntryPoint", "OpExecutionMode", "OpExecutionModeId")
                ),
                default=at,
            )
        self.globals_.insert(at, inst)

    # --- finishing -------------------------------------------------------------

    def instructions(self) -> Iterator[Instruction]:
        yield from self.globals_
        for function in self.functions:
            yield from function.head
            for block in function.blocks:
                yield op("OpLabel", result=block.label)
                yield from block.body
            yield function.end

    def finish(self) -> Module:
        return with_offsets(replace(self.module, bound=self.bound, instructions=tuple(self.instructions())))


def _ref(operand: Operand) -> int:
    assert isinstance(operand, Id), operand
    return operand.value


def _split(instructions: tuple[Instruction, ...]) -> tuple[list[Instruction], list[RawFunction]]:
    globals_: list[Instruction] = []
    functions: list[RawFunction] = []
    current: RawFunction | None = None
    for inst in instructions:
        if inst.opcode == "OpFunction":
            current = RawFunction([inst], [], inst)
        elif current is None:
            globals_.append(inst)
        elif inst.opcode == "OpFunctionEnd":
            current.end = inst
            functions.append(current)
            current = None
        elif inst.opcode == "OpLabel" and inst.result is not None:
            current.blocks.append(RawBlock(inst.result, []))
        elif current.blocks:
            current.blocks[-1].body.append(inst)
        else:
            current.head.append(inst)
    return globals_, functions


def rename_phi_parents(function: RawFunction, targets: Iterable[int], old: int, new: int) -> None:
    """In the blocks `targets`, OpPhi operands that name block `old` as the
    parent now name `new` (after `old`'s terminator moved to `new`)."""
    wanted = set(targets)
    for block in function.blocks:
        if block.label not in wanted:
            continue
        block.body = [_renamed_phi(i, old, new) if i.opcode == "OpPhi" else i for i in block.body]


def _renamed_phi(inst: Instruction, old: int, new: int) -> Instruction:
    operands = list(inst.operands)
    for n in range(1, len(operands), 2):
        if operands[n] == Id(old):
            operands[n] = Id(new)
    return replace(inst, operands=tuple(operands))


def without_line_info(module: Module) -> Module:
    """`module` without OpLine/OpNoLine and NonSemantic extended instructions
    (naga, wgpu's SPIR-V reader, refuses OpLine among the types)."""
    sets = {
        i.result
        for i in module.instructions
        if i.opcode == "OpExtInstImport" and str(i.operands[0]).startswith("NonSemantic.")
    }
    kept = tuple(
        i
        for i in module.instructions
        if i.opcode not in ("OpLine", "OpNoLine")
        and i.result not in sets
        and not (i.opcode == "OpExtInst" and i.operands and i.operands[0] in {Id(s) for s in sets if s})
    )
    return with_offsets(replace(module, instructions=kept))
