"""naga's loop bound, recognised exactly (wgpu's `force_loop_bounding`).

naga's SPIR-V writer bounds every loop it writes (naga/src/back/spv/block.rs,
`write_force_bounded_loop_instructions`; naga-wasm gives no way to turn it
off): a Function variable `vec2<u32>` starting at (0xFFFFFFFF, 0xFFFFFFFF)
and, right after the loop header's OpLoopMerge,

    H:  OpLoopMerge %M %C ...          ; the loop's header
        OpBranch %B
    B:  %l = OpLoad %v2uint %bound
        %e = OpIEqual %v2bool %zero2 %l
        %a = OpAll %bool %e
        OpSelectionMerge %I None
        OpBranchConditional %a %M %I   ; leave the loop when the counter is 0
    I:  %x = OpCompositeExtract %uint %l 1
        %o = OpIEqual %bool %x %uint_0
        %c = OpSelect %uint %o %uint_1 %uint_0
        %d = OpCompositeConstruct %v2uint %c %uint_1
        %r = OpISub %v2uint %l %d
        OpStore %bound %r              ; 64-bit decrement
        ...                            ; the loop's own body

Checked as compiled, every loop ends after 2^64 iterations and the
counter is part of every state. `loop_bounds(module)` finds each instance
of exactly this shape (operands, types, constants, and no other use of the
variable, of the values or of the two blocks); `progress.front.wgsl.compile`
removes them (H branches to I). A kernel's own counter, however alike,
goes through naga's `if` (a block of its own for the `break`), loads its
variable more than once and is named by the source; it is never matched.
Pure.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from progress.front.spirv.ir import Id, Instruction, IntType, Module, PointerType, VectorType

_ALL_ONES = 0xFFFFFFFF
_COUNTER_STEPS = ("OpCompositeExtract", "OpIEqual", "OpSelect", "OpCompositeConstruct", "OpISub", "OpStore")


@dataclass(frozen=True)
class LoopBound:
    """One instance: the header's OpBranch to B, B's instructions (OpLabel
    first), the counter's steps at the start of I, the variable, and I."""

    header_branch: Instruction
    check: tuple[Instruction, ...]
    steps: tuple[Instruction, ...]
    variable: Instruction
    body: int


def loop_bounds(module: Module) -> list[LoopBound]:
    """Every instance of naga's loop bound in `module`, in module order."""
    view = module.view
    uses = _uses(module)
    labels = {i.result: i for i in module.instructions if i.opcode == "OpLabel"}
    found = []
    for function in view.functions.values():
        blocks = {block.label: block for block in function.blocks}
        for block in function.blocks:
            merge = block.instructions[-2] if len(block.instructions) >= 2 else None
            branch = block.terminator
            if merge is None or merge.opcode != "OpLoopMerge" or branch.opcode != "OpBranch":
                continue
            check = blocks.get(_ref(branch.operands[0]))
            if check is None:
                continue
            bound = _match(module, check, _ref(merge.operands[0]), blocks, uses)
            if bound is not None:
                found.append(LoopBound(branch, (labels[check.label], *check.instructions), *bound))
    return found


def _match(module: Module, check, merge: int, blocks, uses: Counter) -> tuple | None:
    """(steps, variable, I) when `check` (a loop header's successor) is naga's bound check."""
    code = check.instructions
    if [i.opcode for i in code] != ["OpLoad", "OpIEqual", "OpAll", "OpSelectionMerge", "OpBranchConditional"]:
        return None
    load, equal, every, selection, branch = code
    body_label = _ref(selection.operands[0])
    body = blocks.get(body_label)
    variable = module.view.definitions.get(_ref(load.operands[0]))
    if body is None or variable is None or not _is_counter(module, variable, load.result_type):
        return None
    zero2 = _ref(equal.operands[0])
    if not (
        _ref(equal.operands[1]) == load.result
        and _ref(every.operands[0]) == equal.result
        and branch.operands[:3] == (Id(every.result or 0), Id(merge), Id(body_label))
        and _constant_values(module, zero2) == (0, 0)
    ):
        return None
    steps = body.instructions[: len(_COUNTER_STEPS)]
    if tuple(i.opcode for i in steps) != _COUNTER_STEPS or not _counts(module, steps, load, variable):
        return None
    if not _used_only_inside(uses, check, steps, variable, body_label):
        return None
    return steps, variable, body_label


def _is_counter(module: Module, variable: Instruction, loaded_type: int | None) -> bool:
    """A Function variable of vec2<u32> starting at (0xFFFFFFFF, 0xFFFFFFFF)."""
    view = module.view
    pointer = view.types.get(variable.result_type or -1)
    vector = view.types.get(loaded_type or -1)
    if variable.opcode != "OpVariable" or not isinstance(pointer, PointerType) or not isinstance(vector, VectorType):
        return False
    component = view.types.get(vector.component)
    return (
        pointer.storage_class == "Function"
        and pointer.pointee == loaded_type
        and vector.count == 2
        and isinstance(component, IntType)
        and component.width == 32
        and not component.signed
        and len(variable.operands) == 2
        and _constant_values(module, _ref(variable.operands[1])) == (_ALL_ONES, _ALL_ONES)
    )


def _counts(module: Module, steps: tuple[Instruction, ...], load: Instruction, variable: Instruction) -> bool:
    """The six steps are the 64-bit decrement of the loaded counter, stored back."""
    extract, low_zero, carry, decrement, result, store = steps
    values = {i: _scalar(module, i) for i in (_ref(op) for s in steps for op in s.operands)}
    return (
        extract.operands == (Id(load.result or 0), 1)
        and _ref(low_zero.operands[0]) == extract.result
        and values.get(_ref(low_zero.operands[1])) == 0
        and _ref(carry.operands[0]) == low_zero.result
        and (values.get(_ref(carry.operands[1])), values.get(_ref(carry.operands[2]))) == (1, 0)
        and _ref(decrement.operands[0]) == carry.result
        and values.get(_ref(decrement.operands[1])) == 1
        and result.operands == (Id(load.result or 0), Id(decrement.result or 0))
        and store.operands[:2] == (Id(variable.result or 0), Id(result.result or 0))
        and len(store.operands) == 2
        and result.result_type == load.result_type
    )


def _used_only_inside(uses: Counter, check, steps, variable: Instruction, body: int) -> bool:
    """No instruction outside the construct reads its values, its variable or its check block."""
    inside: Counter = Counter()
    for inst in (*check.instructions, *steps):
        inside.update(op.value for op in inst.operands if isinstance(op, Id))
    produced = [i.result for i in (*check.instructions, *steps) if i.result is not None]
    return (
        all(uses[r] == inside[r] for r in produced)
        and uses[variable.result or -1] - _named(uses, variable) == inside[variable.result or -1]
        and uses[check.label] == 1  # the header's branch
        and uses[body] == 2  # B's selection merge and conditional branch
    )


def _named(uses: Counter, variable: Instruction) -> int:
    """Uses of the variable by debug instructions (OpName), counted apart."""
    return uses.get(("name", variable.result), 0)


def _uses(module: Module) -> Counter:
    """How many operands refer to each id (OpName's counted under ("name", id) as well)."""
    uses: Counter = Counter()
    for inst in module.instructions:
        ids = [op.value for op in inst.operands if isinstance(op, Id)]
        uses.update(ids)
        if inst.opcode == "OpName" and ids:
            uses[("name", ids[0])] += 1
    return uses


def _constant_values(module: Module, constant: int) -> tuple[int | None, ...] | None:
    found = module.view.constants.get(constant)
    if found is None or found.opcode != "OpConstantComposite":
        return None
    return tuple(_scalar(module, part) for part in found.constituents)


def _scalar(module: Module, constant: int) -> int | None:
    found = module.view.constants.get(constant)
    return found.value if found is not None and found.opcode == "OpConstant" else None


def _ref(operand: object) -> int:
    return operand.value if isinstance(operand, Id) else -1
