"""The supported subset of SPIR-V, checked before anything runs.

`check_subset(module, name, entry)` returns the entry point to check, or
raises InputErrors naming every instruction outside the subset (the list:
`subset_problems`), each at its source line (`lock.comp:14: OpImageRead:
images and samplers are not supported: ...`), in line order, each (line,
reason) once, then those without a line (a type problem, a pointer's storage
class included, is shown where a value of that type is made).
The subset (docs/kernels.md, "What is supported"): a GLCompute entry point,
logical addressing, 32-bit integers, booleans and their vectors, arrays and
structs, StorageBuffer / Uniform (buffer blocks) / Workgroup / Private /
Function variables and the compute built-ins (`BUILTINS`), the instructions in
`SUPPORTED`. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from progress.errors import InputError, InputErrors
from progress.front.spirv import floats
from progress.front.spirv.ir import EntryPoint, Id, Instruction, Module, ModuleView
from progress.front.spirv.subgroup import COLLECTIVE, LOCAL, UNSCOPED
from progress.front.spirv.values import DOTS, GLSL_STD, PAIRS

SUBGROUP = (
    "this subgroup operation is not supported (ballots and their bit operations, elect, broadcasts, "
    "all/any/all-equal, integer and logical reductions, scans, clustered and partitioned ones, shuffles, "
    "quad operations, rotates and subgroup barriers are: docs/kernels.md)"
)
IMAGE = "images and samplers are not supported: kernels communicate through buffers and workgroup memory here"
FUNCTION_POINTER = "function pointers are not supported"
PHYSICAL = (
    "only logical pointers and buffer references (PhysicalStorageBuffer64) are supported, not other physical addressing"
)
FLOAT = "is not supported (32-bit floats are, with exact IEEE-754 arithmetic: docs/kernels.md)"
FLOAT_WIDTH = "only 32- and 64-bit floats are supported (IEEE-754 binary32 and binary64)"
WIDTH = "only 32- and 64-bit integers are supported (8- and 16-bit ones need byte-addressed cells)"
WIDE = "is not supported on 64-bit values (only on 32-bit ones)"
NOT_COMPUTE = "is not a compute shader instruction"
OTHER = "is not in the supported subset (docs/kernels.md, 'What is supported')"

SUPPORTED = (
    frozenset(
        """
    OpNop OpUndef OpSourceContinued OpSource OpSourceExtension OpName OpMemberName OpString OpLine OpNoLine
    OpModuleProcessed OpExtension OpExtInstImport OpExtInst OpMemoryModel OpEntryPoint OpExecutionMode
    OpExecutionModeId OpCapability OpDecorate OpDecorateId OpDecorateString OpMemberDecorate
    OpMemberDecorateString OpTypeVoid OpTypeBool OpTypeInt OpTypeVector OpTypeArray OpTypeRuntimeArray
    OpTypeStruct OpTypePointer OpTypeFunction OpConstantTrue OpConstantFalse OpConstant OpConstantComposite
    OpConstantNull OpSpecConstantTrue OpSpecConstantFalse OpSpecConstant OpSpecConstantComposite
    OpSpecConstantOp OpFunction OpFunctionParameter OpFunctionEnd OpFunctionCall OpVariable OpLoad OpStore
    OpAccessChain OpInBoundsAccessChain OpArrayLength OpVectorShuffle OpCompositeConstruct
    OpCompositeExtract OpCompositeInsert OpCopyObject OpUConvert OpSConvert OpBitcast OpSNegate OpIAdd
    OpISub OpIMul OpUDiv OpSDiv OpUMod OpSRem OpSMod OpLogicalEqual OpLogicalNotEqual OpLogicalOr
    OpLogicalAnd OpLogicalNot OpSelect OpIEqual OpINotEqual OpUGreaterThan OpSGreaterThan
    OpUGreaterThanEqual OpSGreaterThanEqual OpULessThan OpSLessThan OpULessThanEqual OpSLessThanEqual
    OpShiftRightLogical OpShiftRightArithmetic OpShiftLeftLogical OpBitwiseOr OpBitwiseXor OpBitwiseAnd
    OpNot OpControlBarrier OpMemoryBarrier OpAtomicLoad OpAtomicStore OpAtomicExchange
    OpAtomicCompareExchange OpAtomicIIncrement OpAtomicIDecrement OpAtomicIAdd OpAtomicISub OpAtomicSMin
    OpAtomicUMin OpAtomicSMax OpAtomicUMax OpAtomicAnd OpAtomicOr OpAtomicXor OpPhi OpLoopMerge
    OpSelectionMerge OpLabel OpBranch OpBranchConditional OpSwitch OpReturn OpReturnValue OpUnreachable
    OpBitFieldInsert OpBitFieldSExtract OpBitFieldUExtract OpBitReverse OpBitCount OpAll OpAny
    OpIAddCarry OpISubBorrow OpUMulExtended OpSMulExtended OpSDot OpUDot OpSUDot OpSDotAccSat
    OpUDotAccSat OpSUDotAccSat OpVectorExtractDynamic
    OpVectorInsertDynamic OpCopyLogical OpTypeFloat OpConvertFToU OpConvertFToS OpConvertSToF OpConvertUToF
    OpAtomicFAddEXT OpAtomicFMinEXT OpAtomicFMaxEXT OpFConvert OpFNegate OpIsNan OpIsInf OpDot OpVectorTimesScalar
    OpConvertUToPtr OpConvertPtrToU OpPtrAccessChain OpTypeForwardPointer
    """.split()
    )
    | (COLLECTIVE | LOCAL)
    | frozenset(floats.BINARY)
)
"""The instructions a kernel may use (what the kernel interpreter executes)."""

STORAGE_CLASSES = frozenset(
    {"StorageBuffer", "Uniform", "Workgroup", "Private", "Function", "Input", "PushConstant", "PhysicalStorageBuffer"}
)
ADDRESSING = ("Logical", "PhysicalStorageBuffer64")
BUILTINS = frozenset(
    {"GlobalInvocationId", "LocalInvocationId", "LocalInvocationIndex", "WorkgroupId", "NumWorkgroups"}
)
"""The built-in Input variables (WorkgroupSize is a constant, read by `ModuleView.local_size`)."""
SUBGROUP_BUILTINS = frozenset(
    {"SubgroupSize", "SubgroupLocalInvocationId", "SubgroupId", "NumSubgroups"}
    | {f"Subgroup{m}Mask" for m in ("Eq", "Ge", "Gt", "Le", "Lt")}
    | {f"Subgroup{m}MaskKHR" for m in ("Eq", "Ge", "Gt", "Le", "Lt")}
)
SCOPE_NAMES = {0: "CrossDevice", 1: "Device", 2: "Workgroup", 3: "Subgroup", 4: "Invocation", 5: "QueueFamily"}
NON_SEMANTIC = "NonSemantic."


@dataclass(frozen=True)
class _Problem:
    instruction: Instruction
    reason: str


def check_subset(module: Module, name: str, entry: str | None = None) -> EntryPoint:
    """The entry point to check (named `entry`, else the first), once the
    module is inside the subset; an InputError otherwise."""
    chosen = _entry_point(module.view, name, entry)
    problems = subset_problems(module, name)
    if problems:
        raise InputErrors(problems)
    return chosen


def subset_problems(module: Module, name: str) -> list[InputError]:
    """Every refusal of `module`'s instructions (see the module's contract), [] when it is
    inside the subset; the entry point is not looked at."""
    view = module.view
    problems = _problems(module, view)
    if view.memory_model and view.memory_model[0] not in ADDRESSING:
        memory_model = next(i for i in module.instructions if i.opcode == "OpMemoryModel")
        problems.append(_Problem(memory_model, f"addressing model {view.memory_model[0]}: {PHYSICAL}"))
    return [_refusal(p, name) for p in _distinct(problems)]


def _distinct(problems: list[_Problem]) -> list[_Problem]:
    """Each (source line, reason) once, in line order (a bad type is a problem of every
    value of it, and a statement compiles to several instructions); then the problems
    without a line whose reason no line has shown (declarations: types, variables)."""
    seen: set[tuple[object, ...]] = set()
    found = []
    for problem in sorted(problems, key=_order):
        source = problem.instruction.source
        key = (source.file, source.line, problem.reason) if source else (problem.reason,)
        if key not in seen:
            seen.add(key)
            found.append(problem)
    located = {p.reason for p in found if p.instruction.source is not None}
    return [p for p in found if p.instruction.source is not None or p.reason not in located]


def _order(problem: _Problem) -> tuple[int, str, int, int]:
    source = problem.instruction.source
    if source is None:
        return (1, "", 0, problem.instruction.word_offset)
    return (0, source.file, source.line, problem.instruction.word_offset)


def _entry_point(view: ModuleView, name: str, entry: str | None) -> EntryPoint:
    if not view.entry_points:
        raise InputError(f"{name}: the module has no entry point (OpEntryPoint)")
    chosen = view.entry_point(entry)
    if chosen is None:
        names = ", ".join(repr(e.name) for e in view.entry_points)
        raise InputError(f"{name}: no entry point named {entry!r} (the module has {names})")
    if chosen.model != "GLCompute":
        raise InputError(
            f"{name}: entry point {chosen.name!r} is a {chosen.model} shader: only compute (GLCompute) kernels "
            "can be checked"
        )
    return chosen


def _refusal(problem: _Problem, name: str) -> InputError:
    inst = problem.instruction
    message = f"{inst.opcode}: {problem.reason}"
    source = inst.source
    if source is None:
        return InputError(f"{name}: word {inst.word_offset}: {message}")
    return InputError(message, source.position())


def _problems(module: Module, view: ModuleView) -> list[_Problem]:
    bad_types = _bad_types(module)
    found: list[_Problem] = []
    for inst in module.instructions:
        reason = _instruction_problem(inst, view)
        if reason is None and inst.result_type in bad_types:
            reason = bad_types[inst.result_type]
        if reason is not None:
            found.append(_Problem(inst, reason))
    return found


def _bad_types(module: Module) -> dict[int, str]:
    """Type id -> why values of it are refused: unsupported scalars and
    everything built from them (vectors, arrays, structs, pointers)."""
    bad: dict[int, str] = {}
    for inst in module.instructions:
        if inst.result is None or not inst.opcode.startswith("OpType"):
            continue
        reason = _type_problem(inst)
        if inst.opcode == "OpTypePointer":  # a pointer a kernel cannot have: refused where one is made
            reason = _storage_problem(str(inst.operands[0]))
        if inst.opcode == "OpTypeForwardPointer":
            continue
        parts = [op.value for op in inst.operands if isinstance(op, Id)]
        inherited = next((bad[p] for p in parts if p in bad), None)
        if reason or inherited:
            bad[inst.result] = reason or inherited or ""
    return bad


def _type_problem(inst: Instruction) -> str | None:
    ops = inst.operands
    if inst.opcode == "OpTypeInt" and ops and ops[0] not in (32, 64):
        return f"{ops[0]}-bit integers: {WIDTH}"
    if inst.opcode == "OpTypeFloat" and ops and ops[0] not in (32, 64):
        return f"{ops[0]}-bit floats: {FLOAT_WIDTH}"
    if inst.opcode in ("OpTypeImage", "OpTypeSampler", "OpTypeSampledImage"):
        return IMAGE
    return None


def _instruction_problem(inst: Instruction, view: ModuleView) -> str | None:
    op = inst.opcode
    if op not in SUPPORTED:
        return _unsupported(op)
    if op in ("OpTypeInt", "OpTypeFloat"):
        return _type_problem(inst)
    if op == "OpTypePointer":
        return _storage_problem(str(inst.operands[0]))
    if op == "OpVariable":
        return _variable_problem(inst, view)
    if op in ("OpControlBarrier", "OpMemoryBarrier"):
        return _barrier_problem(inst, view)
    if op in COLLECTIVE and op != "OpControlBarrier" and op not in UNSCOPED:
        return _group_scope_problem(inst, view) or _wide_problem(inst, view)
    if op in PAIRS or op in DOTS or op in LOCAL:
        return _wide_problem(inst, view)
    if op == "OpExtInst":
        set_name = view.ext_imports.get(inst.operands[0].value if isinstance(inst.operands[0], Id) else -1, "")
        if set_name == "GLSL.std.450" and str(inst.operands[1]) not in GLSL_STD | floats.GLSL_STD.keys():
            return (
                f"{inst.operands[1]} of GLSL.std.450 is not supported (its integer instructions are, and those on "
                "floats with one exact result: no transcendental, no packing)"
            )
        if set_name != "GLSL.std.450" and not set_name.startswith(NON_SEMANTIC):
            return f"the extended instruction set {set_name!r} is not supported (GLSL.std.450 is)"
    return None


def _unsupported(op: str) -> str:
    if op.startswith(("OpGroup", "OpSubgroup")):
        return SUBGROUP
    if op.startswith(("OpImage", "OpSampledImage", "OpTypeImage", "OpTypeSampler", "OpTypeSampledImage")):
        return IMAGE
    if "FunctionPointer" in op:
        return FUNCTION_POINTER
    if op in (
        "OpConvertUToPtr",
        "OpConvertPtrToU",
        "OpPtrAccessChain",
        "OpTypeForwardPointer",
        "OpPtrEqual",
        "OpPtrNotEqual",
        "OpPtrDiff",
    ):
        return PHYSICAL
    if op in ("OpKill", "OpTerminateInvocation", "OpDemoteToHelperInvocation", "OpEmitVertex", "OpEndPrimitive"):
        return NOT_COMPUTE
    if op.startswith(("OpF", "OpConvertF", "OpConvertSToF", "OpConvertUToF", "OpQuantize", "OpIs", "OpOrdered")):
        return FLOAT
    return OTHER


def _storage_problem(storage: str) -> str | None:
    if storage == "UniformConstant":
        return IMAGE
    if storage == "CodeSectionINTEL":
        return FUNCTION_POINTER
    if storage not in STORAGE_CLASSES:
        return f"variables of storage class {storage} are not supported"
    return None


def _variable_problem(inst: Instruction, view: ModuleView) -> str | None:
    if inst.operands[0] != "Input" or inst.result is None:
        return None
    builtin = view.builtin(inst.result)
    if builtin not in BUILTINS | SUBGROUP_BUILTINS:
        shown = builtin or "an Input variable without a BuiltIn decoration"
        return f"{shown} is not supported (the compute built-ins are: {', '.join(sorted(BUILTINS))})"
    return None


def _wide_problem(inst: Instruction, view: ModuleView) -> str | None:
    """A subgroup operation, carry, wide product or dot product on 64-bit values (their
    tables are 32-bit)."""
    types = [inst.result_type] + [
        view.definitions[o.value].result_type
        for o in inst.operands
        if isinstance(o, Id) and o.value in view.definitions
    ]
    for tid in types:
        kind = view.types.get(tid or -1)
        while kind is not None and hasattr(kind, "component"):
            kind = view.types.get(kind.component)
        if kind is not None and getattr(kind, "width", 32) == 64:
            return WIDE
    return None


def _barrier_problem(inst: Instruction, view: ModuleView) -> str | None:
    scopes = [op.value for op in inst.operands[:2] if isinstance(op, Id)]
    values = [view.constants[s].value if s in view.constants else None for s in scopes]
    if inst.opcode == "OpControlBarrier" and values and values[0] not in (2, 3):
        shown = SCOPE_NAMES.get(values[0], str(values[0])) if values[0] is not None else "a non-constant"
        return (
            f"a barrier of {shown} execution scope: only workgroup and subgroup barriers "
            "(barrier(), subgroupBarrier()) are supported"
        )
    return None


def _group_scope_problem(inst: Instruction, view: ModuleView) -> str | None:
    scope = inst.operands[0] if inst.operands else None
    value = view.constants[scope.value].value if isinstance(scope, Id) and scope.value in view.constants else None
    if value == 3:
        return None
    shown = SCOPE_NAMES.get(value, str(value)) if isinstance(value, int) else "a non-constant"
    return f"a group operation of {shown} execution scope: only subgroup operations (Subgroup scope) are supported"
