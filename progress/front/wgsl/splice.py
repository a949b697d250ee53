"""Edit a SPIR-V binary at the word level, by its decoded instructions.

`Splice(binary, module)` (module: `decode(binary)`) collects edits, each
naming an instruction of the module: drop it, replace it, or put new
instructions before it. `words(bound)` applies them all at once and returns
the new binary (in the byte order of the input) with `bound` as the id bound.
`instruction(name, *operands)` encodes one instruction (ids as `Id`, literal
integers as `int`, literal strings as `str`). Only what the WGSL reader
needs: no type checking of operands, which spirv-val does on the result.
Pure.
"""

from __future__ import annotations

import sys
from array import array
from functools import lru_cache

from progress.front.spirv.decode import HEADER_WORDS, MAGIC
from progress.front.spirv.grammar import core_grammar
from progress.front.spirv.ir import Id, Instruction, Module


class Splice:
    """The edits to one binary (see the module's contract)."""

    def __init__(self, binary: bytes, module: Module):
        self.words = array("I", binary)
        self.swapped = self.words[0] != MAGIC
        if self.swapped:
            self.words.byteswap()
        offsets = [i.word_offset for i in module.instructions] + [len(self.words)]
        self.extent = {start: end for start, end in zip(offsets, offsets[1:])}
        self.replaced: dict[int, list[int]] = {}
        self.before: dict[int, list[int]] = {}

    def drop(self, inst: Instruction) -> None:
        self.replaced[inst.word_offset] = []

    def replace(self, inst: Instruction, words: list[int]) -> None:
        self.replaced[inst.word_offset] = words

    def insert_before(self, inst: Instruction, words: list[int]) -> None:
        self.before.setdefault(inst.word_offset, []).extend(words)

    def binary(self, bound: int) -> bytes:
        """The edited module with id bound `bound`."""
        out = array("I", self.words[:HEADER_WORDS])
        out[3] = bound
        for start, end in self.extent.items():
            out.extend(self.before.get(start, ()))
            out.extend(self.replaced.get(start, self.words[start:end]))
        if self.swapped:
            out.byteswap()
        return out.tobytes()


def instruction(name: str, *operands: Id | int | str) -> list[int]:
    """The words of the instruction `name` with these operands, result type
    and result included, in the grammar's order: an `Id` is an id, an `int`
    a literal word, a `str` a literal string."""
    words: list[int] = [0]
    for operand in operands:
        if isinstance(operand, Id):
            words.append(operand.value)
        elif isinstance(operand, int):
            words.append(operand & 0xFFFFFFFF)
        else:
            words.extend(_string_words(operand))
    words[0] = (len(words) << 16) | _opcodes()[name]
    return words


def _string_words(text: str) -> list[int]:
    data = text.encode("utf-8") + b"\0"
    data += b"\0" * (-len(data) % 4)
    packed = array("I", data)
    if sys.byteorder == "big":
        packed.byteswap()
    return list(packed)


@lru_cache(maxsize=1)
def _opcodes() -> dict[str, int]:
    return {spec.name: opcode for opcode, spec in core_grammar().instructions.items()}
