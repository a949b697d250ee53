"""WGSL to the SPIR-V the checker reads: naga's module, as the source says.

`wgsl_to_spirv(source, name, limits)`:

0. makes each `override` a `const` of the value the launch gives it
   (`overrides.py`: `--spec`, `--local-size`, else its initializer; naga-wasm
   cannot set pipeline constants), columns kept; takes `subgroups` out of
   `enable` directives (`enables.py`: naga-wasm refuses the name, not the
   built-ins);
1. marks each statement (`marks.py`) and has naga translate the marked
   source (`naga.py`); when naga refuses it, the source as written is
   translated instead, so naga's error is positioned in the user's text
   (`file:line:col`), and a source naga accepts only unmarked is checked
   without lines (said in `notes`);
2. removes naga's loop bound from every loop (`loopbound.py`), names
   naga's block around each buffer's member by the buffer (its cells are
   `flag`, `message.data`) and drops the layout decorations naga puts on the
   types of workgroup, private and function memory (Vulkan forbids them
   there);
3. turns each marker store into `OpLine %"kernel.wgsl" line column` and
   removes the marker variable. SPIR-V scopes a line to its block, so each
   block that does not start with a statement of its own opens with the
   line in force: a loop's continue target (a `for` loop's update) takes its
   loop header's, any other block the line at the end of the block before
   it in the function; what comes between a function's entry block (naga's
   hoisted loads of built-ins and access chains of globals: no line) and
   its first statement (naga's zero-initialisation of workgroup memory) has
   the line of its `fn`.

The result is a module as glslang's `-g` would have it (lines by OpLine,
the file named by OpString), which `progress.front.spirv.load` optimizes,
validates, decodes and checks like any other. Pure but for naga's run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from progress.front.spirv.decode import decode
from progress.front.spirv.ir import Block, Id, Module, StructType
from progress.front.spirv.toolchain import DEFAULT_LIMITS, ToolLimits
from progress.front.wgsl.enables import REFUSED, without_naga_refused
from progress.front.wgsl.loopbound import LoopBound, loop_bounds
from progress.front.wgsl.marks import Marked, Unmarkable, marked_source
from progress.front.wgsl.naga import NagaRefusal, refusal_error, translate
from progress.front.wgsl.overrides import with_values
from progress.front.wgsl.splice import Splice, instruction

FILE_NAME = "kernel.wgsl"
"""The file name the OpLines carry (`load.py` shows the kernel's own instead)."""
_PREAMBLE = frozenset(
    {
        "OpCapability",
        "OpExtension",
        "OpExtInstImport",
        "OpMemoryModel",
        "OpEntryPoint",
        "OpExecutionMode",
        "OpExecutionModeId",
        "OpString",
        "OpSourceExtension",
        "OpSource",
        "OpSourceContinued",
    }
)


@dataclass(frozen=True)
class Compiled:
    """The binary to check, how many of naga's loop bounds it lost, and notes for the user."""

    binary: bytes
    unbounded: int
    notes: tuple[str, ...] = ()


class _Unlined(Exception):
    """naga's module does not use the markers as they were written."""


def wgsl_to_spirv(
    source: str,
    name: str,
    limits: ToolLimits = DEFAULT_LIMITS,
    spec: tuple[tuple[str, int], ...] = (),
    local_size: tuple[int, int, int] | None = None,
    entry: str | None = None,
    yields: frozenset[str] = frozenset(),
) -> Compiled:
    """The checker's SPIR-V for the WGSL `source`, shown as `name` (see the
    module's contract); `spec`, `local_size` and `entry` are the launch's, for
    the overrides (`yields`: the `--spec` keys that win over `local_size`)."""
    text, overridden = with_values(source, name, spec, local_size, entry, yields)
    text, enabled = without_naga_refused(text)
    compiled = _compiled(text, source, name, limits)
    if enabled:
        refused = ", ".join(sorted(REFUSED))
        note = f"{name}: `enable {refused};` taken out for naga, which refuses it by name but translates the built-ins"
        compiled = replace(compiled, notes=(*compiled.notes, note))
    if not overridden:
        return compiled
    note = f"{name}: overrides, as constants (naga-wasm sets no pipeline constants): {', '.join(overridden)}"
    return replace(compiled, notes=(*compiled.notes, note))


def _compiled(text: str, source: str, name: str, limits: ToolLimits) -> Compiled:
    """`text` (the source with its overrides made constants) through naga; errors shown in `source`."""
    marked = _marked(text)
    if marked is not None:
        binary = _translated(marked.source, limits)
        if binary is not None:
            try:
                return _rewritten(binary, name, marked)
            except _Unlined:
                pass
    try:
        binary = translate(text, limits)
    except NagaRefusal as refusal:
        raise refusal_error(refusal, source, name) from None
    compiled = _rewritten(binary, name, None)
    unlined = f"{name}: its statements could not be marked for naga, so lassos show no WGSL lines"
    return Compiled(compiled.binary, compiled.unbounded, (*compiled.notes, unlined))


def _marked(source: str) -> Marked | None:
    try:
        return marked_source(source)
    except Unmarkable:
        return None


def _translated(source: str, limits: ToolLimits) -> bytes | None:
    try:
        return translate(source, limits)
    except NagaRefusal:
        return None


SPIRV_1_3 = 0x00010300
GROUP_NON_UNIFORM = range(61, 69)
"""The GroupNonUniform* capabilities (61..68), core from SPIR-V 1.3."""


def with_subgroup_version(binary: bytes) -> bytes:
    """naga's SPIR-V 1.0 raised to 1.3 when it declares a GroupNonUniform
    capability (naga writes the subgroup built-ins' instructions at 1.0, where
    spirv-val refuses their capabilities; 1.3 is a superset that makes them core)."""
    if len(binary) < 20 or binary[:4] != b"\x03\x02\x23\x07":
        return binary
    words = [int.from_bytes(binary[i : i + 4], "little") for i in range(0, len(binary) - len(binary) % 4, 4)]
    at, needs = 5, False
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        if count == 0:
            break
        if opcode == 17 and at + 1 < len(words) and words[at + 1] in GROUP_NON_UNIFORM:
            needs = True
        at += count
    if not needs or words[1] >= SPIRV_1_3:
        return binary
    return binary[:4] + SPIRV_1_3.to_bytes(4, "little") + binary[8:]


def _rewritten(binary: bytes, name: str, marked: Marked | None) -> Compiled:
    binary = with_subgroup_version(binary)
    module = decode(binary, f"{name} (naga's SPIR-V)")
    splice = Splice(binary, module)
    bounds = loop_bounds(module)
    removed = _remove_bounds(module, splice, bounds)
    _name_blocks(module, splice)
    _unlaid(module, splice)
    bound = module.bound
    notes: list[str] = []
    if bounds:
        loops = f"{len(bounds)} loop{'s' if len(bounds) > 1 else ''}"
        notes.append(
            f"{name}: naga's loop bound (wgpu's force_loop_bounding, a 64-bit counter that ends every loop "
            f"after 2^64 iterations) removed from {loops}: checked as the WGSL says, without it"
        )
    if marked is not None:
        file_id = bound
        bound += 1
        stores = _lines(module, splice, marked, file_id, removed)
        notes += [
            f"{name}: naga zero-initialises workgroup memory before the first statement of {function}, as WGSL "
            f"requires (stores and a barrier, shown at the line of `fn {function}`)"
            for function in _zeroing(module, stores)
        ]
    return Compiled(splice.binary(bound), len(bounds), tuple(notes))


def _remove_bounds(module: Module, splice: Splice, bounds: list[LoopBound]) -> set[int]:
    """Drops each bound (its header branches to the body, its variable and the
    variable's name go); the labels of the dropped blocks."""
    counters = {Id(found.variable.result or -1) for found in bounds}
    for inst in module.instructions:
        if inst.opcode == "OpName" and inst.operands[0] in counters:
            splice.drop(inst)
    dropped = set()
    for found in bounds:
        splice.replace(found.header_branch, instruction("OpBranch", Id(found.body)))
        for inst in (*found.check, *found.steps, found.variable):
            splice.drop(inst)
        dropped.add(found.check[0].result or -1)
    return dropped


def _name_blocks(module: Module, splice: Splice) -> None:
    """naga wraps each buffer in a block struct of one unnamed member; the
    variable's name goes to that member, as a GLSL instance-less block names
    its members, so the buffer's cells are `flag` and `message.data`, not
    `flag.m0` and `message.m0.data`."""
    view = module.view
    users = Counter(v.pointee for v in view.variables.values())
    named = {_ref(i.operands[0]): i for i in module.instructions if i.opcode == "OpName"}
    for variable in view.variables.values():
        block = view.types.get(variable.pointee)
        if (
            variable.storage_class in ("StorageBuffer", "Uniform", "PushConstant")
            and variable.id in named
            and isinstance(block, StructType)
            and len(block.members) == 1
            and users[block.id] == 1
            and block.id not in view.names
            and (block.id, 0) not in view.member_names
            and view.decoration(block.id, "Block") is not None
        ):
            splice.replace(named[variable.id], instruction("OpMemberName", Id(block.id), 0, view.names[variable.id]))


EXPLICIT_LAYOUT = frozenset(
    {"StorageBuffer", "Uniform", "PushConstant", "PhysicalStorageBuffer", "ShaderRecordBufferKHR"}
)
"""Storage classes whose types carry an explicit layout (Offset, ArrayStride, MatrixStride)."""
_LAYOUT = frozenset({"Offset", "ArrayStride", "MatrixStride"})


def _unlaid(module: Module, splice: Splice) -> None:
    """naga decorates every array with ArrayStride (and struct members with Offset), also those
    of workgroup, private and function memory, which Vulkan forbids there
    (VUID-StandaloneSpirv-None-10684, checked since SPIRV-Tools 2025): spirv-val refused every
    WGSL kernel with a `var<workgroup>` array. The layout decorations of the types that no
    explicitly laid out storage class reaches go (they mean nothing there); a type both reach
    keeps them (and is refused, as naga wrote it)."""
    parts: dict[int, list[int]] = {}
    roots: list[int] = []
    for inst in module.instructions:
        if inst.result is None:
            continue
        if inst.opcode == "OpTypePointer" and inst.operands[0] in EXPLICIT_LAYOUT:
            roots.append(_ref(inst.operands[1]))
        elif inst.opcode in ("OpTypeArray", "OpTypeRuntimeArray", "OpTypeMatrix", "OpTypeVector"):
            parts[inst.result] = [_ref(inst.operands[0])]
        elif inst.opcode == "OpTypeStruct":
            parts[inst.result] = [_ref(op) for op in inst.operands]
    laid: set[int] = set()
    while roots:
        found = roots.pop()
        if found not in laid:
            laid.add(found)
            roots += parts.get(found, [])
    for inst in module.instructions:
        decorated = inst.opcode in ("OpDecorate", "OpMemberDecorate") and inst.operands
        position = 1 if inst.opcode == "OpDecorate" else 2
        if decorated and _ref(inst.operands[0]) in parts and _ref(inst.operands[0]) not in laid:
            if len(inst.operands) > position and inst.operands[position] in _LAYOUT:
                splice.drop(inst)


def _lines(module: Module, splice: Splice, marked: Marked, file_id: int, dropped: set[int]) -> dict[int, int]:
    """Markers to OpLines (see the module's contract); the marker stores found."""
    view = module.view
    variable = next((v for v, n in view.names.items() if n == marked.variable), None)
    stores = _marker_stores(module, variable)
    for inst in module.instructions:
        if inst.opcode == "OpName" and inst.operands and inst.operands[0] == Id(variable or -1):
            splice.drop(inst)
        elif inst.result == variable:
            splice.drop(inst)
    first_debug = next((i for i in module.instructions if i.opcode not in _PREAMBLE), None)
    if first_debug is None:
        raise _Unlined
    splice.insert_before(first_debug, instruction("OpString", Id(file_id), FILE_NAME))
    for function in view.functions.values():
        start = marked.functions.get(view.names.get(function.id, ""))
        _function_lines(function.blocks, start, stores, marked, splice, file_id, dropped)
    return stores


def _zeroing(module: Module, stores: dict[int, int]) -> list[str]:
    """The functions with a barrier before their first statement: naga's zero-initialisation of workgroup memory."""
    found = []
    for function in module.view.functions.values():
        for inst in (i for block in function.blocks for i in block.instructions):
            if inst.word_offset in stores:
                break
            if inst.opcode == "OpControlBarrier":
                found.append(module.view.names.get(function.id, f"%{function.id}"))
                break
    return found


def _marker_stores(module: Module, variable: int | None) -> dict[int, int]:
    """Word offset of each marker store -> the marker value it stores."""
    if variable is None:
        raise _Unlined
    constants = module.view.constants
    stores: dict[int, int] = {}
    for inst in module.instructions:
        refers = Id(variable) in inst.operands
        if inst.opcode == "OpStore" and inst.operands[0] == Id(variable):
            value = constants.get(_ref(inst.operands[1]))
            if value is None or value.value is None:
                raise _Unlined
            stores[inst.word_offset] = value.value
        elif refers and inst.opcode != "OpName":
            raise _Unlined
    return stores


def _function_lines(
    blocks: Iterable[Block],
    start: tuple[int, int] | None,
    stores: dict[int, int],
    marked: Marked,
    splice: Splice,
    file_id: int,
    dropped: set[int],
) -> None:
    """OpLines for one function's blocks in layout order (see the module's
    contract). The entry block, where naga hoists the loads of built-ins and
    the access chains of globals, has none; the blocks after it take the
    `fn` line (`start`; None for a function naga wrote itself) until the
    first statement."""
    at_header: dict[int, tuple[int, int] | None] = {}
    current: tuple[int, int] | None = None
    for index, block in enumerate(blocks):
        if block.label in dropped:
            continue
        current = at_header.get(block.label, current if index else None)
        body = [i for i in block.instructions if i.opcode not in ("OpVariable", "OpPhi")]
        if current is not None and body and body[0].word_offset not in stores:
            splice.insert_before(body[0], _line(file_id, current))
        for inst in body:
            if inst.word_offset in stores:
                current = _position(marked, stores[inst.word_offset])
                splice.replace(inst, _line(file_id, current))
            elif inst.opcode == "OpLoopMerge":
                at_header[_ref(inst.operands[1])] = current
        if index == 0 and current is None:
            current = start


def _position(marked: Marked, value: int) -> tuple[int, int]:
    if not 0 <= value < len(marked.positions):
        raise _Unlined
    return marked.positions[value]


def _line(file_id: int, position: tuple[int, int]) -> list[int]:
    return instruction("OpLine", Id(file_id), position[0], position[1])


def _ref(operand: object) -> int:
    return operand.value if isinstance(operand, Id) else -1
