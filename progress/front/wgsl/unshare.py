"""One runtime array type per buffer, as the kernel checker needs.

naga declares each type once, so two WGSL buffers of one element type
(`scan: array<u32>` and `info: array<u32>`) share one OpTypeRuntimeArray
inside their two block structs; the checker gives a runtime array its
length (`--buffer NAME=LEN`) by its type, so the two buffers could not have
lengths of their own. `unshare_runtime_arrays(module, splice, bound)` gives
every block struct after the first that holds a shared runtime array a
fresh copy of it (with its ArrayStride), a fresh StorageBuffer pointer to it
where naga declared one, and makes the access chains into that struct's
variables produce that pointer. Nothing else changes: the copies are the
same type to every instruction. Returns the new id bound. Pure.
"""

from __future__ import annotations

from progress.front.spirv.ir import Id, Instruction, Module, RuntimeArrayType, StructType
from progress.front.wgsl.splice import Splice, instruction


def unshare_runtime_arrays(module: Module, splice: Splice, bound: int) -> int:
    """Copies of shared runtime array types (see the module's contract); the new bound."""
    view = module.view
    holders: dict[int, list[int]] = {}
    for tid, kind in view.types.items():
        if (
            isinstance(kind, StructType)
            and kind.members
            and isinstance(view.types.get(kind.members[-1]), RuntimeArrayType)
        ):
            holders.setdefault(kind.members[-1], []).append(tid)
    for array, structs in holders.items():
        for struct in structs[1:]:
            bound = _copy_for(module, splice, array, struct, bound)
    return bound


def _copy_for(module: Module, splice: Splice, array: int, struct: int, bound: int) -> int:
    """Gives `struct` its own copy of the runtime array type `array`."""
    view = module.view
    copy, pointer_copy = bound, bound + 1
    element = view.types[array]
    assert isinstance(element, RuntimeArrayType)
    pointer = _storage_pointer_to(module, array)
    declared = [instruction("OpTypeRuntimeArray", Id(copy), Id(element.element))]
    if pointer is not None:
        declared.append(instruction("OpTypePointer", Id(pointer_copy), "StorageBuffer", Id(copy)))
    struct_inst = view.definitions[struct]
    splice.insert_before(struct_inst, [word for inst in declared for word in inst])
    members = [Id(m.value if isinstance(m, Id) and m.value != array else copy) for m in struct_inst.operands]
    splice.replace(struct_inst, instruction("OpTypeStruct", Id(struct), *members))
    for inst in module.instructions:
        if inst.opcode == "OpDecorate" and inst.operands[0] == Id(array):
            splice.insert_before(inst, _redecorated(inst, copy))
    if pointer is not None:
        variables = {v.id for v in view.variables.values() if v.pointee == struct}
        for inst in module.instructions:
            if inst.opcode == "OpAccessChain" and inst.result_type == pointer and _ref(inst.operands[0]) in variables:
                splice.replace(
                    inst, instruction("OpAccessChain", Id(pointer_copy), Id(inst.result or 0), *inst.operands)
                )
    return bound + 2


def _storage_pointer_to(module: Module, array: int) -> int | None:
    for inst in module.instructions:
        if inst.opcode == "OpTypePointer" and inst.operands == ("StorageBuffer", Id(array)):
            return inst.result
    return None


def _redecorated(inst: Instruction, target: int) -> list[int]:
    return instruction("OpDecorate", Id(target), *inst.operands[1:])


def _ref(operand: object) -> int:
    return operand.value if isinstance(operand, Id) else -1
