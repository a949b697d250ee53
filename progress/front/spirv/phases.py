"""Which Workgroup variables an invocation may still write before its next
barrier (docs/semantics.md section 15): `PhaseWrites.pending(frames)`, a
bit mask over the Workgroup variables (`PhaseWrites.bit`).

An over-approximation on the control-flow graph, values ignored: the
variables that an instruction writing memory (OpStore, OpCopyMemory*, an
atomic other than OpAtomicLoad) reachable from the innermost frame's
position without passing a Workgroup-scope OpControlBarrier may write. Its
pointer is traced back through access chains to a variable; a pointer of
another storage class writes none, one not traced may write any (ALL). A
call writes what its callee may write from its entry before a barrier, and
is a barrier when the callee cannot return without passing one. Where the
innermost frame may return without a barrier, its caller is looked at from
the instruction after its call, and so on outwards.

Monotone along steps: a unit's next position is reachable from its present
one without passing a barrier (a barrier makes it wait), so a unit of
which `pending` is False stays so until its workgroup is released.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from progress.front.spirv.code import Code, successors
from progress.front.spirv.ir import Id, Instruction, ModuleView, PointerType

WORKGROUP_SCOPE = 2
WRITES = frozenset({"OpStore", "OpCopyMemory", "OpCopyMemorySized"})
"""Besides the atomics (every one but OpAtomicLoad): the instructions that write through their first operand."""
RETURNS = frozenset({"OpReturn", "OpReturnValue"})
CHAINS = frozenset({"OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpCopyObject"})
"""Pointers into their first operand's object."""
ALL = (1 << 63) - 1
"""Every Workgroup variable (the bits fit a non-negative int64)."""


class PhaseWrites:
    """`pending(frames)`: the Workgroup variables (a mask of `bit`s) that a
    unit whose call stack is `frames` ((function id, block, instruction,
    ...) outermost first, as frozen local states hold them) may write
    before it next arrives at a Workgroup barrier."""

    def __init__(self, view: ModuleView, codes: Mapping[int, Code], constants: Mapping[int, Any]):
        self._codes = codes
        self._constants = constants
        shared = sorted(v.id for v in view.variables.values() if v.storage_class == "Workgroup")
        self._bits = {var: 1 << min(i, 62) for i, var in enumerate(shared)}  # past 63 variables bits are shared
        self._storage = _storage_classes(view, codes)
        self._base = {
            inst.result: _id(inst.operands[0])
            for code in codes.values()
            for block in code.blocks
            for inst in block.instructions
            if inst.opcode in CHAINS and inst.result is not None and inst.operands
        }
        self._writes: dict[int, int] = {fid: 0 for fid in codes}  # from its entry, before a barrier
        self._returns: dict[int, bool] = {fid: False for fid in codes}  # from its entry, without a barrier
        self._block_write: dict[int, list[int]] = {fid: [0] * len(c.blocks) for fid, c in codes.items()}
        self._block_return: dict[int, list[bool]] = {fid: [False] * len(c.blocks) for fid, c in codes.items()}
        self._succ = {
            fid: [tuple(code.index[s] for s in successors(b) if s in code.index) for b in code.blocks]
            for fid, code in codes.items()
        }
        changed = True
        while changed:  # least fixed point over blocks and the call graph (summaries only grow)
            changed = False
            for fid, code in codes.items():
                for b in range(len(code.blocks)):
                    write, ret = self._from(fid, b, 0)
                    if write | self._block_write[fid][b] != self._block_write[fid][b]:
                        self._block_write[fid][b] |= write
                        changed = True
                    if ret and not self._block_return[fid][b]:
                        self._block_return[fid][b] = changed = True
                if code.blocks:
                    if self._block_write[fid][0] | self._writes[fid] != self._writes[fid]:
                        self._writes[fid] |= self._block_write[fid][0]
                        changed = True
                    if self._block_return[fid][0] and not self._returns[fid]:
                        self._returns[fid] = changed = True

    def bit(self, var: int) -> int:
        """The bit of Workgroup variable `var` in `pending`'s masks."""
        return self._bits[var]

    def pending(self, frames: Sequence[tuple[Any, ...]]) -> int:
        mask = 0
        for depth in range(len(frames) - 1, -1, -1):
            fid, block, at = frames[depth][:3]
            write, ret = self._from(fid, block, at if depth == len(frames) - 1 else at + 1)
            mask |= write
            if not ret:
                break
        return mask

    def _from(self, fid: int, block: int, at: int) -> tuple[int, bool]:
        """(what may be written before a barrier, whether it may return without one) from `at` of `block`."""
        write, through = self._scan(fid, block, at)
        if not through:
            return write, False
        end = self._codes[fid].blocks[block].terminator
        ret = end.opcode in RETURNS
        for s in self._succ[fid][block]:
            write |= self._block_write[fid][s]
            ret = ret or self._block_return[fid][s]
        return write, ret

    def _scan(self, fid: int, block: int, at: int) -> tuple[int, bool]:
        """What `block` may write from `at` before a barrier, and whether it gets to its end without one."""
        write = 0
        for inst in self._codes[fid].blocks[block].instructions[at:]:
            op = inst.opcode
            first = _id(inst.operands[0]) if inst.operands else None
            if op == "OpControlBarrier" and first is not None and self._constants.get(first) == WORKGROUP_SCOPE:
                return write, False
            if op == "OpFunctionCall":
                callee = first
                if callee is None or callee not in self._codes:
                    write = ALL
                    continue
                write |= self._writes[callee]
                if not self._returns[callee]:
                    return write, False
            elif op in WRITES or (op.startswith("OpAtomic") and op != "OpAtomicLoad"):
                write |= self._written(inst)
        return write, True

    def _written(self, inst: Instruction) -> int:
        """The Workgroup variables `inst` may write (through its first operand)."""
        pointer = _id(inst.operands[0]) if inst.operands else None
        for _ in range(64):  # access chains are shallow; a longer trace is not followed
            if pointer is None:
                return ALL
            if pointer in self._bits:
                return self._bits[pointer]
            storage = self._storage.get(pointer)
            if storage is not None and storage != "Workgroup":
                return 0
            if pointer not in self._base:
                return ALL
            pointer = self._base[pointer]
        return ALL


def _storage_classes(view: ModuleView, codes: Mapping[int, Code]) -> dict[int, str]:
    """The storage class of every pointer id whose type says it: variables,
    function parameters and instruction results of a pointer type."""
    found = {v.id: v.storage_class for v in view.variables.values()}
    typed: list[tuple[int, int]] = []
    for code in codes.values():
        typed += [(p.id, p.type) for p in code.function.parameters]
        typed += [
            (inst.result, inst.result_type)
            for block in code.blocks
            for inst in block.instructions
            if inst.result is not None and inst.result_type is not None
        ]
    for ident, tid in typed:
        kind = view.types.get(tid)
        if isinstance(kind, PointerType):
            found.setdefault(ident, kind.storage_class)
    return found


def _id(operand: object) -> int | None:
    return operand.value if isinstance(operand, Id) else None
