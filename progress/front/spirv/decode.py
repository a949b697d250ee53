"""Decode a SPIR-V binary into a `Module`, operands typed by the grammar.

Contract: `decode(data, path)` returns a Module or raises InputError (exit 2)
naming `path`, the word offset and, inside an instruction, its name. Problems
that leave no reliable structure (the header's, a truncated binary, a bad magic
number, a word count of 0 or one running past the end) stop the pass; every
other one is collected and the pass goes on with the next instruction, so all
of them come as one `DecodeErrors`, which also holds the instructions decoded
(each refused one an OpNop at its offset, for `located` to give it the source
line in force there). A value that only fails because an earlier refused
instruction defined what it needs (the type of a constant) is not reported again.
The problems: a
truncated header or instruction, a bad magic number, a word count of 0 or
one running past the end, an unknown opcode or enumerant (but a SourceLanguage newer than the grammar,
only debug information: `DEBUG_KINDS`), operands that
overrun or leave words over, an unterminated or non-UTF-8 string (in debug
information, `DEBUG_STRINGS`, such bytes are read as U+FFFD: glslang's `-g`
cuts a non-ASCII character of a comment in two), an id of 0
or not below the bound or defined twice, a bound above `MAX_BOUND`. Either byte order is
read. The decoder makes one pass and always advances, so it ends.

Operand forms are ir.py's. Context-dependent literals take their width from
the instruction's result type (OpConstant, OpSpecConstant) or the selector's
type (OpSwitch); OpExtInst operands follow the imported set's grammar (the
instruction as its name, the rest as ids when the set has no grammar here);
OpSpecConstantOp's operation is the opcode's name ("OpIAdd") followed by
that opcode's operands.
"""

from __future__ import annotations

import sys
from array import array
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from progress.errors import InputError, InputErrors
from progress.front.spirv.grammar import Grammar, InstructionSpec, OperandSpec, core_grammar, ext_grammar
from progress.front.spirv.ir import Id, Instruction, Module, Operand

MAGIC = 0x07230203
DEBUG_STRINGS = frozenset({"OpSource", "OpSourceContinued", "OpString", "OpModuleProcessed"})
"""Instructions whose literal strings are debug information (read leniently)."""
HEADER_WORDS = 5
MAX_BOUND = 0x3FFFFF
"""The largest id bound accepted: spirv-val's default limit (4194303 ids)."""

_ID_KINDS = frozenset({"IdRef", "IdScope", "IdMemorySemantics"})
DEBUG_KINDS = frozenset({"SourceLanguage"})
"""Operand kinds only debug instructions take: a value newer than the grammar (Slang's
OpSource, 11, in Debian's spirv-headers) is kept as `Kind(N)`, not refused."""


class _Fault(Exception):
    """A problem inside one instruction; `decode` adds the file and offset."""


class _Cascade(_Fault):
    """A fault caused by an earlier refused instruction (not reported again)."""


@dataclass(frozen=True)
class Problem:
    """One refused instruction: its word offset, its name (None: unknown opcode), what is wrong."""

    offset: int
    name: str | None
    problem: str

    def where(self) -> str:
        return f"word {self.offset}" + (f" ({self.name})" if self.name else "")


class DecodeErrors(InputErrors):
    """Every problem the decoder found (see the module's contract); `partial`: the
    module as far as it was read, each refused instruction an OpNop at its offset."""

    def __init__(self, path: str, problems: list[Problem], partial: Module):
        super().__init__([InputError(f"{path}: {p.where()}: {p.problem}") for p in problems])
        self.path = path
        self.problems = tuple(problems)
        self.partial = partial

    def located(self, lined: Module) -> list[InputError]:
        """Each problem at the source line `lined` (`partial` with its lines attached)
        has for its offset, else by its word offset as before."""
        sources = {inst.word_offset: inst.source for inst in lined.instructions}
        found: list[InputError] = []
        for problem, unlocated in zip(self.problems, self.errors, strict=True):
            source = sources.get(problem.offset)
            if source is None or source.line <= 0:
                found.append(unlocated)
            else:
                found.append(InputError(f"{problem.where()}: {problem.problem}", source.position()))
        return found


def decode(data: bytes, path: str = "<spirv>", grammar: Grammar | None = None) -> Module:
    """The module in `data` (see the module's contract)."""
    words = _words(data, path)
    version, generator, bound = _header(words, path)
    decoder = _Decoder(grammar or core_grammar(), bound)
    instructions: list[Instruction] = []
    problems: list[Problem] = []
    offset = HEADER_WORDS
    while offset < len(words):
        head = words[offset]
        count, opcode = head >> 16, head & 0xFFFF
        spec = decoder.grammar.instructions.get(opcode)
        name = spec.name if spec else f"opcode {opcode}"
        if count == 0 or offset + count > len(words):  # no instruction boundary can be trusted after this
            past = f"word count {count} runs past the end of the module ({len(words)} words)"
            problems.append(Problem(offset, name, "word count 0" if count == 0 else past))
            break
        try:
            if spec is None:
                raise _Fault(f"unknown opcode {opcode}")
            instructions.append(decoder.instruction(spec, words[offset + 1 : offset + count], offset))
        except _Fault as fault:
            if spec is not None:
                decoder.refused(spec, words[offset + 1 : offset + count])
            if not isinstance(fault, _Cascade):
                problems.append(Problem(offset, spec.name if spec else None, str(fault)))
            instructions.append(Instruction("OpNop", None, None, (), offset))
        offset += count
    module = Module(version, generator, bound, tuple(instructions))
    if problems:
        raise DecodeErrors(path, problems, module)
    return module


def _words(data: bytes, path: str) -> array[int]:
    if len(data) < 4 * HEADER_WORDS:
        raise InputError(f"{path}: not a SPIR-V module: {len(data)} bytes, shorter than the 20-byte header")
    if len(data) % 4:
        raise InputError(f"{path}: not a SPIR-V module: {len(data)} bytes is not a whole number of 4-byte words")
    words = array("I")  # host byte order: swapped below when the magic says so
    words.frombytes(data)
    if words[0] != MAGIC:
        words.byteswap()
        if words[0] != MAGIC:
            raise InputError(
                f"{path}: word 0: not a SPIR-V module: magic number 0x{int.from_bytes(data[:4], 'little'):08x}, "
                f"expected 0x{MAGIC:08x} (in either byte order)"
            )
    return words


def _header(words: array[int], path: str) -> tuple[tuple[int, int], int, int]:
    version, generator, bound = words[1], words[2], words[3]
    major, minor = (version >> 16) & 0xFF, (version >> 8) & 0xFF
    if major != 1 or version & 0xFF0000FF:
        raise InputError(f"{path}: word 1: unsupported SPIR-V version word 0x{version:08x} (expected 1.x)")
    if bound == 0 or bound > MAX_BOUND:
        raise InputError(f"{path}: word 3: id bound {bound} is outside 1..{MAX_BOUND} (spirv-val's limit)")
    return (major, minor), generator, bound


class _Decoder:
    """Operand decoding, with what earlier instructions declared: numeric
    type widths, each result's type, the extended sets imported."""

    def __init__(self, grammar: Grammar, bound: int):
        self.grammar = grammar
        self.bound = bound
        self.widths: dict[int, int] = {}
        self.result_types: dict[int, int] = {}
        self.ext_sets: dict[int, str] = {}
        self.defined: set[int] = set()
        self.poisoned: set[int] = set()
        """Results of refused instructions: what needs them fails as a `_Cascade`."""

    def refused(self, spec: InstructionSpec, words: array[int]) -> None:
        """Note the result id of a refused instruction (when its words hold one)."""
        at = next((n for n, slot in enumerate(spec.operands) if slot.kind == "IdResult"), None)
        if at is not None and at < len(words):
            self.poisoned.add(words[at])

    def instruction(self, spec: InstructionSpec, words: array[int], offset: int) -> Instruction:
        reader = _Reader(words)
        result_type: int | None = None
        result: int | None = None
        operands: list[Operand] = []
        pending = deque(spec.operands)
        while pending:
            slot = pending.popleft()
            if slot.quantifier and reader.done:
                continue
            if slot.quantifier == "*":
                pending.appendleft(slot)
            if slot.kind == "IdResultType":
                result_type = self.id(reader.take())
            elif slot.kind == "IdResult":
                result = self.id(reader.take())
            else:
                operands += self.operand(slot.kind, reader, pending, spec.name, result_type, operands)
        if not reader.done:
            raise _Fault(f"{reader.left} word(s) left over after the operands")
        self.record(spec.name, result_type, result, operands)
        return Instruction(spec.name, result_type, result, tuple(operands), offset)

    def operand(
        self,
        kind: str,
        reader: _Reader,
        pending: deque[OperandSpec],
        opname: str,
        result_type: int | None,
        before: list[Operand],
    ) -> list[Operand]:
        """The operand(s) one slot of kind `kind` decodes to; enumerant
        parameters and ext-inst operands are pushed onto `pending`."""
        if kind in _ID_KINDS:
            return [Id(self.id(reader.take()))]
        if kind == "LiteralInteger" and opname == "OpSwitch":
            return [reader.number(self.selector_width(before))]
        if kind == "LiteralInteger":
            return [reader.take()]
        if kind == "LiteralString":
            return [reader.string(lenient=opname in DEBUG_STRINGS)]
        if kind == "LiteralContextDependentNumber":
            return [reader.number(self.width_of(result_type))]
        if kind == "LiteralExtInstInteger":
            return [self.ext_instruction(reader.take(), before, pending)]
        if kind == "LiteralSpecConstantOpInteger":
            return [self.spec_constant_op(reader.take(), pending)]
        entry = self.grammar.kinds.get(kind)
        if entry is None:
            raise _Fault(f"the grammar has no operand kind {kind}")
        if entry.category == "Composite":
            return [x for base in entry.bases for x in self.operand(base, reader, pending, opname, None, before)]
        if entry.category == "ValueEnum":
            return [self.value_enum(kind, reader.take(), pending)]
        if entry.category == "BitEnum":
            return [self.bit_enum(kind, reader.take(), pending)]
        raise _Fault(f"operand kind {kind} ({entry.category}) cannot be decoded")

    def id(self, word: int) -> int:
        if word == 0 or word >= self.bound:
            raise _Fault(f"id %{word} is not in 1..{self.bound - 1} (the module's bound is {self.bound})")
        return word

    def width_of(self, type_id: int | None) -> int:
        width = self.widths.get(type_id or 0)
        if width is None and type_id in self.poisoned:
            raise _Cascade(f"the literal's type %{type_id} was refused")
        if width is None:
            raise _Fault(f"the literal's type %{type_id} is not a declared integer or float type")
        return width

    def selector_width(self, before: list[Operand]) -> int:
        selector = before[0] if before else None
        type_id = self.result_types.get(selector.value) if isinstance(selector, Id) else None
        return self.width_of(type_id)

    def value_enum(self, kind: str, word: int, pending: deque[OperandSpec]) -> str:
        enumerant = self.grammar.kinds[kind].enumerants.get(word)
        if enumerant is None and kind in DEBUG_KINDS:
            return f"{kind}({word})"
        if enumerant is None:
            raise _Fault(f"{word} is not a {kind} value")
        pending.extendleft(reversed(enumerant.parameters))
        return enumerant.name

    def bit_enum(self, kind: str, word: int, pending: deque[OperandSpec]) -> str:
        enumerants = self.grammar.kinds[kind].enumerants
        if word == 0:
            return enumerants[0].name if 0 in enumerants else "None"
        names: list[str] = []
        parameters: list[OperandSpec] = []
        for bit in (1 << n for n in range(32)):
            if word & bit:
                enumerant = enumerants.get(bit)
                if enumerant is None:
                    raise _Fault(f"bit 0x{bit:x} is not a {kind} flag")
                names.append(enumerant.name)
                parameters += enumerant.parameters
        pending.extendleft(reversed(parameters))
        return "|".join(names)

    def ext_instruction(self, number: int, before: list[Operand], pending: deque[OperandSpec]) -> Operand:
        set_id = before[0].value if before and isinstance(before[0], Id) else 0
        set_name = self.ext_sets.get(set_id)
        if set_name is None and set_id in self.poisoned:
            raise _Cascade(f"%{set_id}'s import was refused")
        if set_name is None:
            raise _Fault(f"%{set_id} is not an imported extended instruction set")
        grammar = ext_grammar(set_name)
        pending.clear()
        if grammar is None:
            pending.append(OperandSpec("IdRef", "*"))
            return number
        spec = grammar.instructions.get(number)
        if spec is None:
            raise _Fault(f"{number} is not an instruction of the extended set {set_name}")
        pending.extend(spec.operands)
        return spec.name

    def spec_constant_op(self, number: int, pending: deque[OperandSpec]) -> str:
        spec = self.grammar.instructions.get(number)
        if spec is None:
            raise _Fault(f"{number} is not an opcode (OpSpecConstantOp's operation)")
        pending.clear()
        pending.extend(op for op in spec.operands if op.kind not in ("IdResultType", "IdResult"))
        return spec.name

    def record(self, opname: str, result_type: int | None, result: int | None, operands: Iterable[Operand]) -> None:
        """Remember what later instructions' operands depend on."""
        if result is None:
            return
        if result in self.defined:
            raise _Fault(f"id %{result} is defined more than once")
        self.defined.add(result)
        first = next(iter(operands), None)
        if opname in ("OpTypeInt", "OpTypeFloat") and isinstance(first, int):
            if not 1 <= first <= 64:
                raise _Fault(f"{opname} width {first} is not in 1..64")
            self.widths[result] = first
        elif opname == "OpExtInstImport" and isinstance(first, str):
            self.ext_sets[result] = first
        if result_type is not None:
            self.result_types[result] = result_type


class _Reader:
    """The operand words of one instruction, consumed left to right."""

    def __init__(self, words: array[int]):
        self.words = words
        self.at = 0

    @property
    def done(self) -> bool:
        return self.at >= len(self.words)

    @property
    def left(self) -> int:
        return len(self.words) - self.at

    def take(self) -> int:
        if self.done:
            raise _Fault("the operands run past the instruction's word count")
        self.at += 1
        return self.words[self.at - 1]

    def number(self, width: int) -> int:
        """A literal of `width` bits: one word up to 32, two (low first) up to 64."""
        value = self.take()
        if width > 32:
            value |= self.take() << 32
        return value & ((1 << width) - 1)

    def string(self, lenient: bool = False) -> str:
        """A nul-terminated UTF-8 literal, its octets packed four a word, low octet first;
        `lenient`: bytes that are not UTF-8 become U+FFFD (debug info, not semantics)."""
        rest = self.words[self.at :]
        if sys.byteorder != "little":
            rest.byteswap()
        raw = rest.tobytes()
        end = raw.find(0)
        if end < 0:
            self.at = len(self.words)
            raise _Fault("the operands run past the instruction's word count")
        self.at += end // 4 + 1
        return raw[:end].decode("utf-8", errors="replace") if lenient else self.text(raw[:end])

    @staticmethod
    def text(raw: bytes) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _Fault(f"a literal string is not UTF-8 (byte {error.start})") from None
