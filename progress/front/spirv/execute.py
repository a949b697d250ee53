"""One invocation's local computation (docs/semantics.md section 8).

An invocation's local state is frozen into a canonical tuple

    (status, frames, private)

`frames` holds the call stack, innermost last, each frame
`(function, block, position, call result, live values, live variables)`
with only what liveness says a later instruction reads; `private` its
Private variables. `status` is POISED (the next instruction is a visible
action: an access to shared memory or a barrier arrival), WAITING (arrived
at the barrier at its position), LOOPING (its local computation comes back
to a state it has passed: a local livelock) or RETURNED (then the whole
state is `RETURNED_STATE`). `Interpreter.settle` runs local computation up
to the next visible action; `access` says what a poised invocation touches
and `perform` does it. Pure data in and out; caching is the caller's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from progress.errors import Inconclusive, InputError
from progress.front.spirv import addresses, floats, subgroup
from progress.front.spirv.code import Code, prepare
from progress.front.spirv.ir import (
    ArrayType,
    FloatType,
    Id,
    Instruction,
    IntType,
    ModuleView,
    PointerType,
    StructType,
    VectorType,
)
from progress.front.spirv.layout import SharedLayout, Types
from progress.front.spirv.values import (
    ATOMIC,
    BINARY,
    BITS,
    DOTS,
    GLSL_STD,
    MASK,
    PAIRS,
    REDUCTIONS,
    UNARY,
    WIDTHS,
    Fault,
    Tables,
    dot,
    join,
    lift,
    pair,
    resize,
    signed,
    split,
)

POISED, WAITING, LOOPING, RETURNED = 0, 1, 2, 3
RETURNED_STATE = (RETURNED, (), ())
LOCAL_STEPS = 1_000_000
"""Instructions one settle may run without a visible action before the check stops (exit 3)."""

SHARED, FUNCTION, PRIVATE, INPUT, PUSH = "s", "f", "p", "i", "c"
WORKGROUP_SCOPE = 2
SUBGROUP_SCOPE = subgroup.SUBGROUP_SCOPE
COLLECTIVE = subgroup.COLLECTIVE
INTEGER = frozenset(BITS) | frozenset(REDUCTIONS) | frozenset(PAIRS) | frozenset(DOTS)
CONVERSIONS = frozenset(
    {"OpUConvert", "OpSConvert", "OpConvertFToU", "OpConvertFToS", "OpConvertUToF", "OpConvertSToF", "OpFConvert"}
)
FLOAT_ATOMIC = frozenset({"OpAtomicFAddEXT", "OpAtomicFMinEXT", "OpAtomicFMaxEXT"})
_BUILTINS = ("GlobalInvocationId", "LocalInvocationId", "WorkgroupId", "LocalInvocationIndex", "NumWorkgroups")


@dataclass
class Frame:
    code: Code
    block: int
    at: int
    result: int | None  # the caller's OpFunctionCall result, set on return
    values: dict[int, Any]
    variables: dict[int, list[int]]


@dataclass
class Run:
    frames: list[Frame]
    private: dict[int, list[int]]

    @property
    def top(self) -> Frame:
        return self.frames[-1]

    @property
    def instruction(self) -> Instruction:
        frame = self.frames[-1]
        return frame.code.blocks[frame.block].instructions[frame.at]


@dataclass(frozen=True)
class Access:
    """What a poised instruction does to shared memory: it reads `cells`
    (absolute, in order) and, for a barrier, `barrier` is True."""

    instruction: Instruction
    cells: tuple[int, ...]
    barrier: bool = False
    collective: bool = False
    """A subgroup operation or barrier: one step of the whole subgroup (`Interpreter.collective`)."""


class Interpreter:
    """The local semantics of one kernel for one launch."""

    def __init__(
        self,
        view: ModuleView,
        entry: int,
        types: Types,
        layout: SharedLayout,
        shape: tuple[int, ...],
        subgroup_size: int | None = None,
    ):
        self.view, self.types, self.layout = view, types, layout
        self.workgroups, self.local_size = shape[0], shape[1:]
        per_group = _product(self.local_size)
        self.subgroup_size = min(subgroup_size or per_group, per_group)
        self.codes = {fid: prepare(view, f) for fid, f in view.functions.items()}
        self.entry = entry
        self.constants = {cid: self._constant(cid) for cid in view.constants}
        self._workgroup_vars = frozenset(v.id for v in view.variables.values() if v.storage_class == "Workgroup")
        self.wide: dict[int, Tables] = {}
        """Result id -> the integer tables of its 64-bit operands (absent: 32-bit)."""
        self.widths: dict[int, tuple[int, int]] = {}
        """A conversion's or bitcast's result id -> (its operand's width, its own)."""
        self._widths(view)

    def _widths(self, view: ModuleView) -> None:
        """Which instructions work on 64-bit integers, and the widths every conversion
        and bitcast goes between: read once from the types, not at each step."""
        for function in view.functions.values():
            for block in function.blocks:
                for inst in block.instructions:
                    if inst.result is None:
                        continue
                    op = inst.opcode
                    ids = [o.value for o in inst.operands if isinstance(o, Id)]
                    if op == "OpExtInst":
                        ids = ids[1:]
                    if op in CONVERSIONS or op == "OpBitcast":
                        self.widths[inst.result] = (self._width(self._type_of(ids[0])), self._width(inst.result_type))
                    elif op.startswith("OpAtomic"):
                        if self._width(inst.result_type) == 64:
                            self.wide[inst.result] = WIDTHS[64]
                    elif ids and self._width(self._type_of(ids[0])) == 64:
                        self.wide[inst.result] = WIDTHS[64]

    def _type_of(self, ident: int) -> int | None:
        source = self.view.definitions.get(ident)
        return source.result_type if source is not None else None

    def _width(self, tid: int | None) -> int:
        """The bits of a scalar type or of a vector's component (a physical pointer: 64, its
        address); 0 for other types. A vector of two 32-bit values: -2 (what a 64-bit bitcast
        splits into)."""
        kind = self.view.types.get(tid or -1)
        if isinstance(kind, VectorType):
            component = self._width(kind.component)
            return -kind.count if component == 32 and kind.count == 2 else component
        if isinstance(kind, (IntType, FloatType)):
            return kind.width
        if isinstance(kind, PointerType):
            return 64 if kind.storage_class == "PhysicalStorageBuffer" else 0
        return 0

    # --- frozen states ------------------------------------------------------

    def start(self, unit: int) -> tuple[Any, ...]:
        """The local state of `unit` at its first visible action."""
        code = self.codes[self.entry]
        frame = Frame(code, 0, 0, None, {}, self._fresh_variables(code))
        private = {
            v.id: self._initial_cells(v.pointee, v.initializer)
            for v in self.view.variables.values()
            if v.storage_class == "Private"
        }
        return self.settle(Run([frame], private), unit)

    def thaw(self, local: tuple[Any, ...]) -> Run:
        _, frames, private = local
        run_frames = []
        for fid, block, at, result, values, variables in frames:
            code = self.codes[fid]
            cells = self._fresh_variables(code)  # dead variables come back as they started
            cells.update((v, list(c)) for v, c in variables)
            run_frames.append(Frame(code, block, at, result, dict(values), cells))
        return Run(run_frames, {v: list(c) for v, c in private})

    def freeze(self, run: Run, status: int) -> tuple[Any, ...]:
        frames = []
        for frame in run.frames:
            live = frame.code.live[frame.block][frame.at]
            values = tuple(sorted((i, v) for i, v in frame.values.items() if i in live))
            variables = tuple(sorted((v, tuple(c)) for v, c in frame.variables.items() if v in live))
            frames.append((frame.code.function.id, frame.block, frame.at, frame.result, values, variables))
        private = tuple(sorted((v, tuple(c)) for v, c in run.private.items()))
        return (status, tuple(frames), private)

    # --- running ------------------------------------------------------------

    def settle(self, run: Run, unit: int) -> tuple[Any, ...]:
        """Run local computation until a visible action, a return or a local loop."""
        seen: set[tuple[Any, ...]] = set()
        for _ in range(LOCAL_STEPS):
            frame = run.top
            if frame.block in frame.code.headers and frame.at == frame.code.first[frame.block]:
                snapshot = self.freeze(run, LOOPING)
                if snapshot in seen:
                    return snapshot
                seen.add(snapshot)
            with _located(run.instruction):
                if self.access(run, unit) is not None:
                    return self.freeze(run, POISED)
                if self._local(run, unit):
                    return RETURNED_STATE
        where = run.instruction.where()
        raise Inconclusive(f"local computation ran {LOCAL_STEPS} instructions without a visible action at {where}", 0)

    def access(self, run: Run, unit: int) -> Access | None:
        """The visible action of the instruction at `run`'s position, if it is one."""
        inst = run.instruction
        op = inst.opcode
        if op == "OpControlBarrier":
            scope = self._value(run, inst.operands[0], unit)
            if scope == SUBGROUP_SCOPE:
                return Access(inst, (), collective=True)
            if scope != WORKGROUP_SCOPE:
                raise _error(inst, f"a barrier with execution scope {scope} (Workgroup, 2, and Subgroup, 3, are)")
            return Access(inst, (), True)
        if op in subgroup.UNSCOPED:
            return Access(inst, (), collective=True)
        if op in COLLECTIVE:
            scope = self._value(run, inst.operands[0], unit)
            if scope != SUBGROUP_SCOPE:
                raise _error(inst, f"a group operation of execution scope {scope} (only Subgroup, 3, is supported)")
            return Access(inst, (), collective=True)
        if op in ("OpLoad", "OpStore") or (op.startswith("OpAtomic") and op != "OpAtomicFlagClear"):
            pointer = self._value(run, inst.operands[0], unit)
            if isinstance(pointer, int):  # a buffer reference: its address
                tid = self._pointee(_id(inst.operands[0]))
                try:
                    start = addresses.resolve(self.layout.ranges, pointer, self.types.size(tid))
                except InputError as error:
                    raise _error(inst, error.message) from None
                return Access(inst, tuple(start + at for _, at in self.types.leaves(tid, "")))
            if pointer[0] == SHARED:
                tid = self._pointee(_id(inst.operands[0]))  # OpStore and OpAtomicStore have no result type
                base = pointer[2]
                if pointer[1] in self._workgroup_vars:  # workgroup-relative: resolved by the unit's workgroup
                    base += self.layout.groups_at + unit // _product(self.local_size) * self.layout.group_size
                cells = tuple(base + at for _, at in self.types.leaves(tid, ""))
                return Access(inst, cells)
        return None

    def collective(self, runs: list[Run], units: list[int]) -> None:
        """Perform the subgroup instruction every run is poised at, as one step
        (`units` in increasing order: the participants, every invocation of
        the subgroup that has not returned); each run moves past it."""
        inst = runs[0].instruction
        with _located(inst):
            if inst.opcode != "OpControlBarrier":
                skip = 0 if inst.opcode in subgroup.UNSCOPED else 1  # past the execution scope
                lanes = [u % _product(self.local_size) % self.subgroup_size for u in units]
                values = [
                    [self._value(run, o, u) for o in inst.operands[skip:] if isinstance(o, Id)]
                    for run, u in zip(runs, units)
                ]
                try:
                    found = subgroup.results(inst.opcode, inst.operands, lanes, values, self.subgroup_size)
                except subgroup.Undefined as undefined:
                    raise _error(inst, str(undefined)) from None
                for run, value in zip(runs, found):
                    run.top.values[inst.result or 0] = value
            for run in runs:
                run.top.at += 1

    def perform(self, run: Run, unit: int, old: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        """Do the poised access, `old` the values of its cells; the cells it writes."""
        with _located(run.instruction):
            return self._perform(run, unit, old)

    def _perform(self, run: Run, unit: int, old: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        inst = run.instruction
        op, ops, frame = inst.opcode, inst.operands, run.top
        access = self.access(run, unit)
        assert access is not None
        cells = access.cells
        writes: tuple[tuple[int, int], ...] = ()
        if op == "OpStore":
            value = self._value(run, ops[1], unit)
            writes = tuple(zip(cells, self._words(self._pointee(_id(ops[0])), value)))
        elif op == "OpAtomicStore":
            writes = tuple(zip(cells, _split(self._value(run, ops[3], unit), len(cells))))
        elif op in ("OpLoad", "OpAtomicLoad"):
            frame.values[inst.result or 0] = _shape(self, inst.result_type or -1, iter(old))
        else:
            before = join(old) if len(old) == 2 else old[0]  # a 64-bit atomic: both words at once
            new = self._atomic(run, inst, before, unit)
            frame.values[inst.result or 0] = before
            if new is not None:
                writes = tuple(zip(cells, _split(new, len(cells))))
        frame.at += 1
        return writes

    def _atomic(self, run: Run, inst: Instruction, old: int, unit: int) -> int | None:
        op, ops = inst.opcode, inst.operands
        tables = self.wide.get(inst.result or 0)
        if op in ATOMIC:
            return (tables.atomic if tables else ATOMIC)[op](old, self._value(run, ops[3], unit))
        if op in FLOAT_ATOMIC:  # IEEE add rounded once; min/max as minNum/maxNum (a NaN loses)
            table = floats.WIDTHS[64 if tables else 32]
            value = self._value(run, ops[3], unit)
            if op == "OpAtomicFAddEXT":
                return table.binary["OpFAdd"](old, value)
            return table.glsl_std["NMin" if op == "OpAtomicFMinEXT" else "NMax"](old, value)
        if op in ("OpAtomicIIncrement", "OpAtomicIDecrement"):
            return (tables.binary if tables else BINARY)["OpIAdd" if op.endswith("Increment") else "OpISub"](old, 1)
        if op == "OpAtomicCompareExchange":
            value, comparator = self._value(run, ops[4], unit), self._value(run, ops[5], unit)
            return value if old == comparator else None
        raise _error(inst, f"{op} is not supported")

    def _local(self, run: Run, unit: int) -> bool:
        """Execute one local instruction; True when the invocation returned."""
        inst = run.instruction
        op, frame = inst.opcode, run.top
        try:
            if op in ("OpBranch", "OpBranchConditional", "OpSwitch"):
                self._jump(run, self._target(run, inst, unit), unit)
            elif op in ("OpReturn", "OpReturnValue"):
                return self._return(run, inst, unit)
            elif op == "OpFunctionCall":
                self._call(run, inst, unit)
            else:
                self._compute(run, inst, unit)
                frame.at += 1
        except Fault as fault:
            raise _error(inst, str(fault)) from None
        return False

    def _compute(self, run: Run, inst: Instruction, unit: int) -> None:
        op, ops, frame = inst.opcode, inst.operands, run.top
        value: Any
        if op in BINARY:
            table = self.wide[inst.result].binary if inst.result in self.wide else BINARY
            value = lift(table[op], self._value(run, ops[0], unit), self._value(run, ops[1], unit))
        elif op == "OpBitcast":
            value = self._bitcast(inst, self._value(run, ops[0], unit))
        elif op in CONVERSIONS:
            value = lift(self._converter(inst), self._value(run, ops[0], unit))
        elif op in UNARY:
            unary = self.wide[inst.result].unary if inst.result in self.wide else UNARY
            value = lift(unary[op], self._value(run, ops[0], unit))
        elif op in floats.BINARY:
            fbinary = floats.WIDTHS[64 if inst.result in self.wide else 32].binary
            value = lift(fbinary[op], self._value(run, ops[0], unit), self._value(run, ops[1], unit))
        elif op in floats.UNARY:
            value = lift(
                floats.WIDTHS[64 if inst.result in self.wide else 32].unary[op], self._value(run, ops[0], unit)
            )
        elif op == "OpDot":
            width = 64 if inst.result in self.wide else 32
            value = floats.dot(self._value(run, ops[0], unit), self._value(run, ops[1], unit), width)
        elif op == "OpVectorTimesScalar":
            width = 64 if inst.result in self.wide else 32
            value = floats.times_scalar(self._value(run, ops[0], unit), self._value(run, ops[1], unit), width)
        elif op in ("OpVariable", "OpLoopMerge", "OpSelectionMerge", "OpMemoryBarrier", "OpNop"):
            return
        elif op in ("OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain"):
            value = self._chain(run, inst, unit)
        elif op in ("OpConvertUToPtr", "OpConvertPtrToU"):
            width = 64 if op == "OpConvertUToPtr" else self._width(inst.result_type)
            value = self._value(run, ops[0], unit) & ((1 << width) - 1)
        elif op == "OpLoad" or op == "OpAtomicLoad":
            value = self._load_local(run, inst, unit)
        elif op in ("OpStore", "OpAtomicStore"):
            self._store_local(run, inst, unit)
            return
        elif op == "OpSelect":
            condition = self._value(run, ops[0], unit)
            a, b = self._value(run, ops[1], unit), self._value(run, ops[2], unit)
            value = (
                lift(lambda c, x, y: x if c else y, condition, a, b)
                if isinstance(condition, tuple)
                else (a if condition else b)
            )
        elif op in INTEGER:
            value = self._integer(run, inst, unit)
        elif op in subgroup.LOCAL:
            lane = unit % _product(self.local_size) % self.subgroup_size
            args = [self._value(run, o, unit) for o in ops[1:] if isinstance(o, Id)]
            value = subgroup.local(op, ops, lane, args)
        else:
            value = self._composite(run, inst, unit)
        frame.values[inst.result or 0] = value

    def _integer(self, run: Run, inst: Instruction, unit: int) -> Any:
        """Bit fields, boolean reductions, carries and wide products, dot products."""
        op = inst.opcode
        args = [self._value(run, o, unit) for o in inst.operands if isinstance(o, Id)]
        if op in BITS:
            return lift((self.wide[inst.result].bits if inst.result in self.wide else BITS)[op], *args)
        if op in REDUCTIONS:
            return REDUCTIONS[op](args[0])
        if op in PAIRS:
            return pair(op, args[0], args[1])
        packed = "PackedVectorFormat4x8Bit" in inst.operands
        return dot(op, args[0], args[1], args[2] if len(args) > 2 else None, packed)

    def _composite(self, run: Run, inst: Instruction, unit: int) -> Any:
        op, ops = inst.opcode, inst.operands
        if op == "OpCompositeConstruct":
            return tuple(self._value(run, o, unit) for o in ops)
        if op == "OpCompositeExtract":
            value = self._value(run, ops[0], unit)
            for index in ops[1:]:
                value = value[_int(index)]
            return value
        if op == "OpCompositeInsert":
            return _insert(self._value(run, ops[1], unit), [_int(i) for i in ops[2:]], self._value(run, ops[0], unit))
        if op in ("OpVectorExtractDynamic", "OpVectorInsertDynamic"):
            vector = self._value(run, ops[0], unit)
            index = self._value(run, ops[-1], unit)
            if not 0 <= index < len(vector):
                raise _error(inst, f"index {index} is out of bounds of a vector of {len(vector)} components")
            if op == "OpVectorExtractDynamic":
                return vector[index]
            return vector[:index] + (self._value(run, ops[1], unit),) + vector[index + 1 :]
        if op == "OpVectorShuffle":
            joined = tuple(self._value(run, ops[0], unit)) + tuple(self._value(run, ops[1], unit))
            return tuple(joined[_int(i)] for i in ops[2:])
        if op == "OpArrayLength":
            struct = self.view.types.get(self._pointee(_id(ops[0])))
            assert isinstance(struct, StructType)
            pointer = self._value(run, ops[0], unit)
            if isinstance(pointer, int):
                raise _error(inst, "the length of a runtime array behind a buffer reference is not known here")
            return self.types.of(pointer[1]).length(struct.members[_int(ops[1])])
        if op == "OpUndef":
            return self._zero(inst.result_type or -1)
        name = str(ops[1]) if op == "OpExtInst" else ""
        if name in GLSL_STD:
            table = self.wide[inst.result or 0].glsl_std if inst.result in self.wide else GLSL_STD
            return lift(table[name], *(self._value(run, o, unit) for o in ops[2:]))
        if name in floats.GLSL_STD:
            table = floats.WIDTHS[64 if inst.result in self.wide else 32].glsl_std
            return lift(table[name], *(self._value(run, o, unit) for o in ops[2:]))
        raise _error(inst, f"{op if op != 'OpExtInst' else ops[1]} is not supported by the kernel interpreter")

    def _converter(self, inst: Instruction) -> Any:
        """One component's conversion between the widths `widths` recorded."""
        source, width = self.widths.get(inst.result or 0, (32, 32))
        source, width = abs(source), abs(width)
        op = inst.opcode
        if op in ("OpUConvert", "OpSConvert"):
            return lambda a: resize(a, source, width, op == "OpSConvert")
        if op in ("OpConvertUToF", "OpConvertSToF"):
            return lambda a: floats.to_float(a, source, op == "OpConvertSToF", width)
        if op in ("OpConvertFToU", "OpConvertFToS"):
            return lambda a: floats.to_int(a, width, op == "OpConvertFToS", source)
        if op == "OpFConvert":
            return lambda a: floats.convert(a, source, width)
        return lambda a: a  # OpBitcast of equal widths: the same bits

    def _bitcast(self, inst: Instruction, value: Any) -> Any:
        """OpBitcast: the same bits; a 64-bit scalar and a vector of two 32-bit words
        (low first) are each other's bitcasts."""
        source, width = self.widths.get(inst.result or 0, (32, 32))
        if source == 64 and width == -2:
            return split(value)
        if source == -2 and width == 64:
            return join(value)
        return value

    # --- control flow -------------------------------------------------------

    def _target(self, run: Run, inst: Instruction, unit: int) -> int:
        ops = inst.operands
        if inst.opcode == "OpBranch":
            return _id(ops[0])
        if inst.opcode == "OpBranchConditional":
            return _id(ops[1]) if self._value(run, ops[0], unit) else _id(ops[2])
        selector = self._value(run, ops[0], unit)
        for literal, label in zip(ops[2::2], ops[3::2]):
            if literal == selector:
                return _id(label)
        return _id(ops[1])

    def _jump(self, run: Run, label: int, unit: int) -> None:
        """Enter block `label`, evaluating its OpPhi instructions for the edge taken."""
        frame = run.top
        previous = frame.code.blocks[frame.block].label
        frame.block, frame.at = frame.code.index[label], 0
        instructions = frame.code.blocks[frame.block].instructions
        chosen = {}
        while instructions[frame.at].opcode == "OpPhi":
            phi = instructions[frame.at]
            pairs = zip(phi.operands[0::2], phi.operands[1::2])
            value = next(v for v, parent in pairs if _id(parent) == previous)
            chosen[phi.result or 0] = self._value(run, value, unit)
            frame.at += 1
        frame.values.update(chosen)

    def _call(self, run: Run, inst: Instruction, unit: int) -> None:
        callee = self.codes[_id(inst.operands[0])]
        args = [self._value(run, o, unit) for o in inst.operands[1:]]
        values = {p.id: a for p, a in zip(callee.function.parameters, args)}
        run.frames.append(Frame(callee, 0, 0, inst.result, values, self._fresh_variables(callee)))

    def _return(self, run: Run, inst: Instruction, unit: int) -> bool:
        value = self._value(run, inst.operands[0], unit) if inst.opcode == "OpReturnValue" else None
        done = run.frames.pop()
        if not run.frames:
            return True
        caller = run.top
        if done.result is not None:
            caller.values[done.result] = value
        caller.at += 1
        return False

    # --- values and pointers ------------------------------------------------

    def _value(self, run: Run, operand: object, unit: int) -> Any:
        ident = _id(operand)
        frame = run.top
        if ident in frame.values:
            return frame.values[ident]
        if ident in self.constants:
            return self.constants[ident]
        if ident in frame.variables:
            return (FUNCTION, (len(run.frames) - 1, ident), 0)
        var = self.view.variables.get(ident)
        if var is not None:
            return self._global_pointer(var.id, var.storage_class, unit)
        raise InputError(f"the kernel reads %{ident} before it is defined (at {run.instruction.where()})")

    def _global_pointer(self, var: int, storage: str, unit: int) -> tuple[Any, ...]:
        if (
            storage == "Workgroup"
        ):  # relative to the workgroup's copy (`access` adds its start): the same in every workgroup
            return (SHARED, var, self.layout.group_base[var])
        if storage in ("StorageBuffer", "Uniform"):
            return (SHARED, var, self.layout.base[var])
        if storage == "Private":
            return (PRIVATE, var, 0)
        if storage == "Input":
            return (INPUT, var, 0)
        if storage == "PushConstant":
            return (PUSH, var, 0)
        raise InputError(f"variables of storage class {storage} are not supported (%{var})")

    def _pointee(self, pointer: int) -> int:
        """The type a pointer id points to."""
        source = self.view.definitions.get(pointer)
        kind = self.view.types.get(source.result_type or -1) if source is not None else None
        if not isinstance(kind, PointerType):
            raise InputError(f"%{pointer} is used as a pointer but is not one")
        return kind.pointee

    def _chain(self, run: Run, inst: Instruction, unit: int) -> Any:
        base = self._value(run, inst.operands[0], unit)
        if isinstance(base, int):
            return self._physical_chain(run, inst, base, unit)
        space, key, offset = base
        tid = self._pointee(_id(inst.operands[0]))
        types = self.types.of(key) if space == SHARED else self.types
        for operand in inst.operands[1:]:
            index = self._value(run, operand, unit)
            length = types.length(tid)
            kind = self.view.types[tid]
            if length is None or not 0 <= index < length:
                name = self.view.names.get(_id(inst.operands[0]), "")
                raise _error(inst, f"index {index} is out of bounds of {name or 'an array'} of length {length}")
            if isinstance(kind, StructType):
                offset += types.member_offset(tid, index)
                tid = kind.members[index]
            else:
                element = types.element(tid) or -1
                step = types.size(element) if isinstance(kind, VectorType) else types.stride(tid)
                offset += index * step
                tid = element
        return (space, key, offset)

    def _physical_chain(self, run: Run, inst: Instruction, address: int, unit: int) -> int:
        """An access chain from a buffer reference: its address plus the bytes the indexes
        step over (Offset and ArrayStride decorations; the first index of OpPtrAccessChain
        steps over whole elements of the pointer type's ArrayStride). Indexes are signed;
        whether the address is in a buffer is asked where it is accessed."""
        tid = self._pointee(_id(inst.operands[0]))
        indexes = [(self._value(run, o, unit), self._width(self._type_of(_id(o)))) for o in inst.operands[1:]]
        if inst.opcode == "OpPtrAccessChain":
            (element, width), indexes = indexes[0], indexes[1:]
            stride = self.view.decoration(self._type_of(_id(inst.operands[0])) or -1, "ArrayStride")
            step = stride.value if stride is not None and isinstance(stride.value, int) else 4 * self.types.size(tid)
            address += signed(element, width or 32) * step
        for value, width in indexes:
            index = signed(value, width or 32)
            kind = self.view.types[tid]
            if isinstance(kind, StructType):
                address += 4 * self.types.member_offset(tid, index)
                tid = kind.members[index]
                continue
            length = self.types.length(tid) if isinstance(kind, (ArrayType, VectorType)) else None
            if length is not None and not 0 <= index < length:
                raise _error(inst, f"index {index} is out of bounds of an array of length {length}")
            element = self.types.element(tid) or -1
            step = self.types.size(element) if isinstance(kind, VectorType) else self.types.stride(tid)
            address += 4 * index * step
            tid = element
        return address & ((1 << 64) - 1)

    def _cells_of(self, run: Run, pointer: tuple[Any, ...]) -> list[int]:
        space, key = pointer[0], pointer[1]
        if space == FUNCTION:
            return run.frames[key[0]].variables[key[1]]
        if space == PRIVATE:
            return run.private[key]
        if space == PUSH:
            return list(self.layout.push[key])  # a copy: push constants are read-only
        raise InputError(f"a local access through a pointer into {space}")

    def _load_local(self, run: Run, inst: Instruction, unit: int) -> Any:
        pointer = self._value(run, inst.operands[0], unit)
        tid = inst.result_type or -1
        if pointer[0] == INPUT:
            return self._builtin(pointer, tid, unit)
        cells = self._cells_of(run, pointer)
        return _shape(self, tid, iter([cells[pointer[2] + at] for _, at in self.types.leaves(tid, "")]))

    def _words(self, tid: int, value: Any) -> list[int]:
        """A value of type `tid` as the 32-bit words of its cells, in `Types.leaves` order."""
        kind = self.view.types.get(tid)
        if isinstance(kind, StructType):
            return [w for member, part in zip(kind.members, value) for w in self._words(member, part)]
        element = self.types.element(tid)
        if element is not None and isinstance(value, tuple):
            return [w for part in value for w in self._words(element, part)]
        return list(_split(value, self.types.words(tid)))

    def _store_local(self, run: Run, inst: Instruction, unit: int) -> None:
        pointer = self._value(run, inst.operands[0], unit)
        value = self._value(run, inst.operands[1 if inst.opcode == "OpStore" else 3], unit)
        cells = self._cells_of(run, pointer)
        tid = self._pointee(_id(inst.operands[0]))
        for (_, at), word in zip(self.types.leaves(tid, ""), self._words(tid, value)):
            cells[pointer[2] + at] = word

    def _builtin(self, pointer: tuple[Any, ...], tid: int, unit: int) -> Any:
        name = self.view.builtin(pointer[1])
        size = _product(self.local_size)
        group, index = divmod(unit, size)
        x, y, _ = self.local_size
        local = (index % x, index // x % y, index // (x * y))
        s = self.subgroup_size
        lane = index % s
        table = {
            "SubgroupSize": s,
            "SubgroupLocalInvocationId": lane,
            "SubgroupId": index // s,
            "NumSubgroups": -(-size // s),
            "SubgroupEqMask": _mask128(1 << lane),
            "SubgroupGeMask": _mask128(((1 << s) - 1) & ~((1 << lane) - 1)),
            "SubgroupGtMask": _mask128(((1 << s) - 1) & ~((1 << (lane + 1)) - 1)),
            "SubgroupLeMask": _mask128((1 << (lane + 1)) - 1),
            "SubgroupLtMask": _mask128((1 << lane) - 1),
            "GlobalInvocationId": (group * x + local[0], local[1], local[2]),
            "LocalInvocationId": local,
            "WorkgroupId": (group, 0, 0),
            "LocalInvocationIndex": index,
            "NumWorkgroups": (self.workgroups, 1, 1),
            "WorkgroupSize": tuple(self.local_size),
        }
        if name is not None and name.endswith("MaskKHR"):
            name = name[: -len("KHR")]
        if name not in table:
            raise InputError(f"the built-in {name} is not supported (supported: {', '.join(_BUILTINS)})")
        value: Any = table[name]
        if isinstance(value, tuple) and self.types.length(tid) is None:
            return value[pointer[2]]  # one component, through an access chain
        return value

    # --- layout of values ---------------------------------------------------

    def _flatten(self, tid: int, value: Any) -> list[int]:
        """A value of type `tid` as the cells of its layout."""
        cells = [0] * self.types.size(tid)
        for (_, at), word in zip(self.types.leaves(tid, ""), self._words(tid, value)):
            cells[at] = word
        return cells

    def _fresh_variables(self, code: Code) -> dict[int, list[int]]:
        found = {}
        for var, pointee in code.variables:
            source = self.view.definitions[var]
            init = _id(source.operands[1]) if len(source.operands) > 1 else None
            found[var] = self._initial_cells(pointee, init)
        return found

    def _initial_cells(self, tid: int, init: int | None) -> list[int]:
        cells = [0] * self.types.size(tid)
        if init is not None and init in self.constants:
            flat = self._flatten(tid, self.constants[init])
            cells[: len(flat)] = flat
        return cells

    def _constant(self, cid: int) -> Any:
        constant = self.view.constants[cid]
        if constant.value is not None and not self.types.length(constant.type):
            return constant.value & ((1 << (64 if self.types.words(constant.type) == 2 else 32)) - 1)
        if constant.opcode.endswith("Composite"):
            return tuple(self._constant(part) for part in constant.constituents)
        return self._zero(constant.type)

    def _zero(self, tid: int) -> Any:
        count = self.types.length(tid)
        if count is None:
            return 0
        kind = self.view.types[tid]
        if isinstance(kind, StructType):
            return tuple(self._zero(m) for m in kind.members)
        element = self.types.element(tid) or -1
        return tuple(self._zero(element) for _ in range(count))


def _shape(interp: Interpreter, tid: int, scalars: Any) -> Any:
    """A value of type `tid` from an iterator over its cells' words."""
    types = interp.types
    count = types.length(tid)
    if count is None:
        low = next(scalars)
        return low | next(scalars) << 32 if types.words(tid) == 2 else low
    kind = interp.view.types[tid]
    if isinstance(kind, StructType):
        return tuple(_shape(interp, m, scalars) for m in kind.members)
    element = types.element(tid) or -1
    return tuple(_shape(interp, element, scalars) for _ in range(count))


def _split(value: int, words: int) -> tuple[int, ...]:
    """A scalar as the words of its cells: itself, or a 64-bit one's low and high words."""
    return split(value) if words == 2 else (value,)


def _insert(composite: Any, path: list[int], value: Any) -> Any:
    if not path:
        return value
    parts = list(composite)
    parts[path[0]] = _insert(parts[path[0]], path[1:], value)
    return tuple(parts)


def _mask128(bits: int) -> tuple[int, ...]:
    """A subgroup mask built-in: 128 bits as four 32-bit words."""
    return tuple((bits >> (32 * k)) & MASK for k in range(4))


def _product(shape: tuple[int, ...]) -> int:
    result = 1
    for n in shape:
        result *= n
    return result


def _int(operand: object) -> int:
    return operand if isinstance(operand, int) else -1


def _id(operand: object) -> int:
    return operand.value if isinstance(operand, Id) else -1


@contextmanager
def _located(inst: Instruction) -> Iterator[None]:
    """An InputError raised without saying where (a layout's, a value's) gets `inst`'s source line."""
    try:
        yield
    except InputError as error:
        if error.position is not None or error.message.startswith(inst.where() + ": "):
            raise
        raise _error(inst, error.message) from None


def _error(inst: Instruction, reason: str) -> InputError:
    text = f": {inst.source.text}" if inst.source and inst.source.text else ""
    return InputError(f"{inst.where()}: {inst.opcode}: {reason}{text}")
