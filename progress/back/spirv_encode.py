"""Encode a `Module` as a SPIR-V binary: the decoder's inverse.

Contract: `encode(module)` returns little-endian SPIR-V words such that
`decode(encode(m)) == m` for every module `decode` returns (source lines
aside: `attach_lines` adds them, the binary holds OpLine), and
`encode(decode(b)) == b` for every little-endian binary `b` the decoder
reads whose strings are padded with zero bytes (what every producer writes;
a big-endian binary comes back little-endian). Operands are walked by the
same grammar as `decode.py` walks them: ids, literal numbers as wide as
their type, strings nul-terminated and zero-padded, enumerants by name with
their parameters, extended instructions by their set's grammar,
OpSpecConstantOp's operation by its opcode. An operand that does not fit its
slot is a ValueError naming the instruction (a bug in whoever built the
module, not bad input).
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Mapping
from dataclasses import replace

from progress.front.spirv.grammar import Grammar, InstructionSpec, OperandSpec, core_grammar, ext_grammar
from progress.front.spirv.ir import Id, Instruction, Module, Operand

MAGIC = 0x07230203
HEADER_WORDS = 5
_ID_KINDS = frozenset({"IdRef", "IdScope", "IdMemorySemantics"})


def encode(module: Module, grammar: Grammar | None = None) -> bytes:
    """The binary of `module` (see the module's contract)."""
    encoder = _Encoder(grammar or core_grammar())
    major, minor = module.version
    words = array("I", [MAGIC, (major << 16) | (minor << 8), module.generator, module.bound, 0])
    assert len(words) == HEADER_WORDS
    for inst in module.instructions:
        words.extend(encoder.instruction(inst))
    if array("I", [1]).tobytes()[0] != 1:
        words.byteswap()
    return words.tobytes()


def with_offsets(module: Module) -> Module:
    """`module` with each instruction's `word_offset` where `encode` puts it
    (as `decode` of the binary would give it; source lines are kept)."""
    encoder = _Encoder(core_grammar())
    placed: list[Instruction] = []
    offset = HEADER_WORDS
    for inst in module.instructions:
        placed.append(replace(inst, word_offset=offset))
        offset += len(encoder.instruction(inst))
    return replace(module, instructions=tuple(placed))


class _Encoder:
    """Operand encoding, with what earlier instructions declared (the decoder's
    `_Decoder` mirrored): numeric widths, result types, extended sets."""

    def __init__(self, grammar: Grammar):
        self.grammar = grammar
        self.widths: dict[int, int] = {}
        self.signed: set[int] = set()
        self.result_types: dict[int, int] = {}
        self.ext_sets: dict[int, str] = {}
        self.opcodes: Mapping[str, InstructionSpec] = {spec.name: spec for spec in grammar.instructions.values()}
        self.enums: dict[str, Mapping[str, int]] = {}

    def enum_values(self, kind: str) -> Mapping[str, int]:
        """Enumerant name -> value of an enum kind (aliases included)."""
        if kind not in self.enums:
            self.enums[kind] = {e.name: e.value for e in self.grammar.kinds[kind].enumerants.values()}
        return self.enums[kind]

    def instruction(self, inst: Instruction) -> list[int]:
        spec = self.opcodes.get(inst.opcode)
        if spec is None:
            raise ValueError(f"{inst.opcode}: not an opcode of the grammar")
        body: list[int] = []
        operands = deque(inst.operands)
        pending = deque(spec.operands)
        while pending:
            slot = pending.popleft()
            if slot.kind == "IdResultType":
                body.append(self._required(inst, inst.result_type, "result type"))
                continue
            if slot.kind == "IdResult":
                body.append(self._required(inst, inst.result, "result id"))
                continue
            if slot.quantifier and not operands:
                continue
            if slot.quantifier == "*":
                pending.appendleft(slot)
            if not operands:
                raise ValueError(f"{inst.opcode}: too few operands for {spec.name}'s {slot.kind}")
            body += self.operand(slot.kind, operands, pending, inst)
        if operands:
            raise ValueError(f"{inst.opcode}: {len(operands)} operand(s) left over")
        self.record(inst)
        count = len(body) + 1
        if count > 0xFFFF:
            raise ValueError(f"{inst.opcode}: {count} words, more than an instruction can hold")
        return [(count << 16) | spec.opcode, *body]

    @staticmethod
    def _required(inst: Instruction, value: int | None, what: str) -> int:
        if value is None:
            raise ValueError(f"{inst.opcode}: no {what}")
        return value

    def operand(self, kind: str, operands: deque[Operand], pending: deque[OperandSpec], inst: Instruction) -> list[int]:
        """The words of the operand(s) one slot of `kind` takes from `operands`."""
        if kind in ("LiteralExtInstInteger", "LiteralSpecConstantOpInteger"):
            return [self.switching(kind, operands.popleft(), pending, inst)]
        entry = self.grammar.kinds.get(kind)
        if entry is not None and entry.category == "Composite":
            return [w for base in entry.bases for w in self.operand(base, operands, pending, inst)]
        value = operands.popleft()
        if kind in _ID_KINDS:
            return [_id(value, inst)]
        if kind == "LiteralInteger" and inst.opcode == "OpSwitch":
            width, signed = self.selector_type(inst)
            return _number(value, width, inst, signed)
        if kind == "LiteralInteger":
            return _number(value, 32, inst)
        if kind == "LiteralString":
            return _string(value, inst)
        if kind == "LiteralContextDependentNumber":
            type_id = inst.result_type or 0
            return _number(value, self.widths.get(type_id, 32), inst, type_id in self.signed)
        if entry is None:
            raise ValueError(f"{inst.opcode}: the grammar has no operand kind {kind}")
        if entry.category == "ValueEnum":
            return [self.value_enum(kind, value, pending, inst)]
        if entry.category == "BitEnum":
            return [self.bit_enum(kind, value, pending, inst)]
        raise ValueError(f"{inst.opcode}: operand kind {kind} ({entry.category}) cannot be encoded")

    def switching(self, kind: str, value: Operand, pending: deque[OperandSpec], inst: Instruction) -> int:
        """An extended instruction's number or OpSpecConstantOp's opcode, with
        the operand slots that follow it."""
        pending.clear()
        if kind == "LiteralSpecConstantOpInteger":
            spec = self.opcodes.get(str(value))
            if spec is None:
                raise ValueError(f"{inst.opcode}: {value} is not an opcode")
            pending.extend(op for op in spec.operands if op.kind not in ("IdResultType", "IdResult"))
            return spec.opcode
        set_id = inst.operands[0].value if inst.operands and isinstance(inst.operands[0], Id) else 0
        grammar = ext_grammar(self.ext_sets.get(set_id, ""))
        if grammar is None or isinstance(value, int):
            pending.append(OperandSpec("IdRef", "*"))
            return _int(value, inst)
        found = next((spec for spec in grammar.instructions.values() if spec.name == value), None)
        if found is None:
            raise ValueError(f"{inst.opcode}: {value} is not an instruction of {grammar.name}")
        pending.extend(found.operands)
        return found.opcode

    def value_enum(self, kind: str, value: Operand, pending: deque[OperandSpec], inst: Instruction) -> int:
        number = self.enum_values(kind).get(str(value))
        if number is None:
            raise ValueError(f"{inst.opcode}: {value} is not a {kind} value")
        pending.extendleft(reversed(self.grammar.kinds[kind].enumerants[number].parameters))
        return number

    def bit_enum(self, kind: str, value: Operand, pending: deque[OperandSpec], inst: Instruction) -> int:
        values = self.enum_values(kind)
        word = 0
        names = str(value).split("|")
        if names != ["None"] or "None" in values:
            for name in names:
                if name not in values:
                    raise ValueError(f"{inst.opcode}: {name} is not a {kind} flag")
                word |= values[name]
        enumerants = self.grammar.kinds[kind].enumerants
        parameters = [p for bit in (1 << n for n in range(32)) if word & bit for p in enumerants[bit].parameters]
        pending.extendleft(reversed(parameters))
        return word

    def selector_type(self, inst: Instruction) -> tuple[int, bool]:
        """OpSwitch's selector type: its width, whether it is signed."""
        selector = inst.operands[0] if inst.operands else None
        type_id = (self.result_types.get(selector.value) if isinstance(selector, Id) else None) or 0
        return self.widths.get(type_id, 32), type_id in self.signed

    def record(self, inst: Instruction) -> None:
        if inst.result is None:
            return
        first = inst.operands[0] if inst.operands else None
        if inst.opcode in ("OpTypeInt", "OpTypeFloat") and isinstance(first, int):
            self.widths[inst.result] = first
            if inst.opcode == "OpTypeInt" and len(inst.operands) > 1 and inst.operands[1] == 1:
                self.signed.add(inst.result)
        elif inst.opcode == "OpExtInstImport" and isinstance(first, str):
            self.ext_sets[inst.result] = first
        if inst.result_type is not None:
            self.result_types[inst.result] = inst.result_type


def _id(value: Operand, inst: Instruction) -> int:
    if not isinstance(value, Id):
        raise ValueError(f"{inst.opcode}: {value!r} where an id belongs")
    return value.value


def _int(value: Operand, inst: Instruction) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**32:
        raise ValueError(f"{inst.opcode}: {value!r} where a 32-bit literal belongs")
    return value


def _number(value: Operand, width: int, inst: Instruction, signed: bool = False) -> list[int]:
    """A literal's words: narrower than 32 bits sign-extended when its type is
    signed (SPIR-V's rule, which the decoder's mask undoes), wider in two words."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2 ** max(width, 32):
        raise ValueError(f"{inst.opcode}: {value!r} is not a {width}-bit literal's bit pattern")
    if signed and width < 32 and value >> (width - 1) & 1:
        value |= 0xFFFFFFFF ^ ((1 << width) - 1)
    return [value & 0xFFFFFFFF, value >> 32] if width > 32 else [value]


def _string(value: Operand, inst: Instruction) -> list[int]:
    if not isinstance(value, str) or "\0" in value:
        raise ValueError(f"{inst.opcode}: {value!r} where a literal string belongs")
    raw = value.encode("utf-8") + b"\0"
    raw += b"\0" * (-len(raw) % 4)
    return [int.from_bytes(raw[i : i + 4], "little") for i in range(0, len(raw), 4)]
