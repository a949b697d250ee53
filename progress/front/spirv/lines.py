"""Source lines for a decoded module's instructions.

SPIR-V says where code came from in two ways, both read here: the core's
`OpLine %file line column` (what `glslangValidator -g` emits, one per
statement) and the NonSemantic.Shader.DebugInfo.100 set's `DebugLine`
(`-gV`, and DXC). Either applies to the instructions after it until the next
line instruction, an `OpNoLine` / `DebugNoLine`, or the end of the block
(its terminator included). A line's text comes from the source the module
embeds (`OpSource` with its `OpSourceContinued` parts, or `DebugSource`),
unless `texts` has the file (the file itself: an embedded copy may be cut);
file names are shown as `rename` maps them. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from progress.front.spirv.ir import Id, Instruction, Module, SourceLine

TERMINATORS = frozenset(
    {
        "OpBranch",
        "OpBranchConditional",
        "OpSwitch",
        "OpReturn",
        "OpReturnValue",
        "OpKill",
        "OpUnreachable",
        "OpTerminateInvocation",
        "OpFunctionEnd",
    }
)
DEBUG_INFO = "NonSemantic.Shader.DebugInfo.100"
_PREAMBLE = re.compile(r"(?:// OpModuleProcessed [^\n]*\n)+#line 1\n")


def attach_lines(
    module: Module, rename: Mapping[str, str] | None = None, texts: Mapping[str, str] | None = None
) -> Module:
    """`module` with each instruction's `source` set (see the module's contract)."""
    strings = {i.result: str(i.operands[0]) for i in module.instructions if i.opcode == "OpString"}
    names = _Files(strings, _embedded(module, strings), texts or {}, rename or {})
    debug_sets = {
        i.result
        for i in module.instructions
        if i.opcode == "OpExtInstImport" and i.operands and i.operands[0] == DEBUG_INFO
    }
    constants = {
        i.result: i.operands[0]
        for i in module.instructions
        if i.opcode == "OpConstant" and i.operands and isinstance(i.operands[0], int)
    }
    debug_sources = {
        i.result: _ref(i.operands[2])
        for i in module.instructions
        if _is_debug(i, debug_sets, "DebugSource") and len(i.operands) > 2
    }
    current: SourceLine | None = None
    attached: list[Instruction] = []
    for inst in module.instructions:
        if inst.opcode == "OpLine" and len(inst.operands) == 3:
            current = names.line(_ref(inst.operands[0]), inst.operands[1], inst.operands[2])
        elif inst.opcode == "OpNoLine" or _is_debug(inst, debug_sets, "DebugNoLine"):
            current = None
        elif _is_debug(inst, debug_sets, "DebugLine") and len(inst.operands) >= 7:
            file_id = debug_sources.get(_ref(inst.operands[2]), 0)
            line, column = (constants.get(_ref(op), 0) for op in (inst.operands[3], inst.operands[5]))
            current = names.line(file_id, line, column)
        attached.append(replace(inst, source=current) if current is not None else inst)
        if inst.opcode in TERMINATORS:
            current = None
    return replace(module, instructions=tuple(attached))


def embedded_sources(module: Module) -> dict[str, str]:
    """File name -> the source text the module embeds for it."""
    strings = {i.result: str(i.operands[0]) for i in module.instructions if i.opcode == "OpString"}
    return _embedded(module, strings)


def _embedded(module: Module, strings: Mapping[int | None, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    last: str | None = None
    debug_sets = {
        i.result
        for i in module.instructions
        if i.opcode == "OpExtInstImport" and i.operands and i.operands[0] == DEBUG_INFO
    }
    for inst in module.instructions:
        ops = inst.operands
        if inst.opcode == "OpSource":
            files = [strings.get(op.value) for op in ops[2:3] if isinstance(op, Id)]
            last = files[0] if files else None
            if last is not None and len(ops) > 3 and isinstance(ops[3], str):
                found[last] = ops[3]
        elif inst.opcode == "OpSourceContinued" and last in found and ops:
            found[last] += str(ops[0])
        elif _is_debug(inst, debug_sets, "DebugSource") and len(ops) > 3:
            file, text = strings.get(_ref(ops[2])), strings.get(_ref(ops[3]))
            if file is not None and text is not None:
                found.setdefault(file, text)
    return {file: without_preamble(text) for file, text in found.items()}


def without_preamble(text: str) -> str:
    """The source glslang embedded, without the `// OpModuleProcessed ...`
    lines and `#line 1` it puts before a source that does not start with
    `#version` (a kernel whose header comes first): OpLine counts lines from
    after that preamble."""
    match = _PREAMBLE.match(text)
    return text[match.end() :] if match else text


def _is_debug(inst: Instruction, debug_sets: set[int | None], name: str) -> bool:
    return (
        inst.opcode == "OpExtInst"
        and len(inst.operands) > 1
        and _ref(inst.operands[0]) in debug_sets
        and inst.operands[1] == name
    )


def _ref(operand: object) -> int:
    return operand.value if isinstance(operand, Id) else 0


class _Files:
    """Turns (file string id, line, column) into SourceLines, the text of
    each file split into lines once."""

    def __init__(
        self,
        strings: Mapping[int | None, str],
        embedded: Mapping[str, str],
        texts: Mapping[str, str],
        rename: Mapping[str, str],
    ):
        self.strings = strings
        self.sources = {**embedded, **texts}  # the file itself wins over what a compiler embedded
        self.rename = rename
        self.split: dict[str, list[str]] = {}

    def line(self, file_id: int, line: object, column: object) -> SourceLine:
        name = self.strings.get(file_id, "")
        number = line if isinstance(line, int) else 0
        return SourceLine(
            self.rename.get(name, name), number, column if isinstance(column, int) else 0, self.text(name, number)
        )

    def text(self, name: str, number: int) -> str:
        if name not in self.sources:
            return ""
        if name not in self.split:
            self.split[name] = self.sources[name].split("\n")
        lines = self.split[name]
        return lines[number - 1].strip() if 0 < number <= len(lines) else ""
