"""Random SPIR-V assembly for the decoder's property tests.

Instructions are drawn from the grammar with random operands (ids,
literals, strings, enumerants with their parameters), plus the forms whose
literals depend on a type (constants of 16/32/64-bit ints and floats,
OpSwitch on a typed selector, OpSpecConstantOp, GLSL.std.450 OpExtInst).
`spirv-as` assembles the text; the text is not meant to be valid SPIR-V,
only well-formed, which is all a decoder needs.
"""

from __future__ import annotations

import struct

from hypothesis import strategies as st

from progress.front.spirv.grammar import OperandSpec, core_grammar, ext_grammar

PRELUDE = """OpCapability Shader
%1 = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
%2 = OpTypeInt 32 0
%3 = OpTypeInt 32 1
%4 = OpTypeInt 64 0
%5 = OpTypeInt 64 1
%6 = OpTypeFloat 32
%7 = OpTypeFloat 64
%8 = OpTypeInt 16 1
%9 = OpTypeFloat 16
"""
NUMERIC = {2: (32, False), 3: (32, True), 4: (64, False), 5: (64, True), 8: (16, True)}
FLOATS = {6: 32, 7: 64, 9: 16}
FIRST_FREE = 10
SIMPLE = {"IdRef", "IdScope", "IdMemorySemantics", "LiteralInteger", "LiteralString", "PairIdRefIdRef"}
SKIP = {
    "OpSwitch",
    "OpConstant",
    "OpSpecConstant",
    "OpExtInst",
    "OpSpecConstantOp",
    "OpExtInstImport",
    "OpTypeInt",
    "OpTypeFloat",
}

ids = st.integers(1, 60).map(lambda n: f"%{n}")
text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)


def quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def generic_specs():
    grammar = core_grammar()
    kinds = grammar.kinds
    found = []
    for spec in grammar.instructions.values():
        if spec.name in SKIP or not spec.name.startswith("Op"):
            continue
        rest = [op for op in spec.operands if op.kind not in ("IdResult", "IdResultType")]
        if all(op.kind in SIMPLE or kinds[op.kind].category in ("ValueEnum", "BitEnum") for op in rest):
            found.append(spec)
    return sorted(found, key=lambda s: s.opcode)


@st.composite
def operand(draw, slot: OperandSpec) -> list[str]:
    kind = slot.kind
    if kind in ("IdRef", "IdScope", "IdMemorySemantics"):
        return [draw(ids)]
    if kind == "PairIdRefIdRef":
        return [draw(ids), draw(ids)]
    if kind == "LiteralInteger":
        return [str(draw(st.integers(0, 2**32 - 1)))]
    if kind == "LiteralString":
        return [quoted(draw(text))]
    entry = core_grammar().kinds[kind]
    choices = sorted(entry.enumerants.values(), key=lambda e: e.value)
    if entry.category == "BitEnum":
        chosen = draw(st.lists(st.sampled_from([e for e in choices if e.value]), max_size=3, unique=True))
        chosen.sort(key=lambda e: e.value)
        if not chosen:
            return ["None"] if 0 in entry.enumerants else [choices[0].name]
        words = ["|".join(e.name for e in chosen)]
        for enumerant in chosen:
            words += draw(operands(enumerant.parameters))
        return words
    enumerant = draw(st.sampled_from(choices))
    return [enumerant.name] + draw(operands(enumerant.parameters))


@st.composite
def operands(draw, slots) -> list[str]:
    words: list[str] = []
    for slot in slots:
        repeat = {"": 1, "?": draw(st.integers(0, 1)), "*": draw(st.integers(0, 3))}[slot.quantifier]
        for _ in range(repeat):
            words += draw(operand(slot))
        if slot.quantifier and repeat == 0:
            break  # an absent optional operand ends the list: what follows would be read as it
    return words


def head(spec, result: int) -> list[str]:
    kinds = [op.kind for op in spec.operands]
    words = []
    if "IdResult" in kinds:
        words.append(f"%{result} =")
    words.append(spec.name)
    if "IdResultType" in kinds:
        words.append("%2")
    return words


@st.composite
def generic(draw, result: int) -> str:
    spec = draw(st.sampled_from(generic_specs()))
    rest = [op for op in spec.operands if op.kind not in ("IdResult", "IdResultType")]
    return " ".join(head(spec, result) + draw(operands(rest)))


@st.composite
def constant(draw, result: int) -> str:
    opcode = draw(st.sampled_from(["OpConstant", "OpSpecConstant"]))
    type_id = draw(st.sampled_from(sorted(NUMERIC) + sorted(FLOATS)))
    if type_id in FLOATS:
        width = FLOATS[type_id]
        value = draw(st.floats(width=width, allow_nan=False, allow_infinity=False))
        shown = repr(struct.unpack("<e", struct.pack("<e", value))[0]) if width == 16 else repr(value)
    else:
        width, signed = NUMERIC[type_id]
        low, high = (-(2 ** (width - 1)), 2 ** (width - 1) - 1) if signed else (0, 2**width - 1)
        shown = str(draw(st.integers(low, high)))
    return f"%{result} = {opcode} %{type_id} {shown}"


@st.composite
def switch(draw, result: int) -> list[str]:
    type_id = draw(st.sampled_from(sorted(NUMERIC)))
    width, signed = NUMERIC[type_id]
    low, high = (-(2 ** (width - 1)), 2 ** (width - 1) - 1) if signed else (0, 2**width - 1)
    cases = draw(st.lists(st.integers(low, high), max_size=4, unique=True))
    pairs = " ".join(f"{value} {draw(ids)}" for value in cases)
    return [f"%{result} = OpConstant %{type_id} 0", f"OpSwitch %{result} {draw(ids)} {pairs}"]


@st.composite
def ext_inst(draw, result: int) -> str:
    specs = sorted(ext_grammar("GLSL.std.450").instructions.values(), key=lambda s: s.opcode)
    spec = draw(st.sampled_from(specs))
    return f"%{result} = OpExtInst %2 %1 {spec.name} " + " ".join(draw(operands(spec.operands)))


@st.composite
def spec_constant_op(draw, result: int) -> str:
    name = draw(st.sampled_from(["IAdd", "ISub", "IMul", "UDiv", "BitwiseAnd", "SNegate", "Not"]))
    count = 1 if name in ("SNegate", "Not") else 2
    return f"%{result} = OpSpecConstantOp %2 {name} " + " ".join(draw(ids) for _ in range(count))


@st.composite
def module_text(draw) -> str:
    lines = [PRELUDE]
    for index in range(draw(st.integers(0, 12))):
        result = FIRST_FREE + 2 * index
        form = draw(st.sampled_from([generic, generic, constant, switch, ext_inst, spec_constant_op]))
        made = draw(form(result))
        lines += made if isinstance(made, list) else [made]
    return "\n".join(lines) + "\n"
