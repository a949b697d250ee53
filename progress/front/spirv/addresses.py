"""Buffer references: 64-bit addresses of buffer memory (PhysicalStorageBuffer64,
GL_EXT_buffer_reference; docs/kernels.md, "Buffer references").

Every StorageBuffer/Uniform variable, and every raw region a `--push NAME=@REGION`
names that no variable is called (its size in 32-bit words from `--buffer
REGION=WORDS`), is a *range* of shared cells. Range k (in layout order, from 0)
lives at the address (k + 1) << 32: byte b of it is ((k + 1) << 32) + b, so
addresses of different ranges never meet and a range may hold up to 4 GiB. A
pointer value is its address, a 64-bit integer; `resolve` turns one into the
cells an access of `words` 32-bit words touches, or says why it cannot (no range
holds it, unaligned, past the range's end). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from progress.errors import InputError, InputErrors

PUSH_ADDRESS = re.compile(r"@([A-Za-z_%@][A-Za-z0-9_.]*)(?:([+-])(\d+))?")
"""`--push NAME=@BUFFER[+BYTES]`: the address of a buffer, or a byte offset into it."""


@dataclass(frozen=True)
class Range:
    """A buffer or region: `name`, its first cell and its length in cells."""

    name: str
    start: int
    cells: int


def address_of(index: int, offset: int = 0) -> int:
    """The address of byte `offset` of range `index`."""
    return ((index + 1) << 32) + offset


def parse(text: str) -> tuple[str, int] | None:
    """(buffer name, byte offset) of an `@NAME[+BYTES]` value; None for any other text."""
    match = PUSH_ADDRESS.fullmatch(text)
    if match is None:
        return None
    name, sign, digits = match.groups()
    return name, (-1 if sign == "-" else 1) * int(digits or 0)


def regions(
    push: tuple[tuple[str, int | None, int | str], ...], buffer_names: set[str], buffers: Mapping[str, int], path: str
) -> dict[str, int]:
    """The raw regions the `--push` addresses name: each name no buffer variable has ->
    its `--buffer NAME=WORDS` size (an InputError for one without)."""
    found: dict[str, int] = {}
    problems: list[InputError] = []
    for name, _, value in push:
        target = parse(value) if isinstance(value, str) else None
        if target is None or target[0] in buffer_names or target[0] in found:
            continue
        if target[0] in buffers:
            found[target[0]] = buffers[target[0]]
        else:
            known = ", ".join(sorted(buffer_names)) or "none"
            problems.append(
                InputError(
                    f"{path}: --push {name}={value}: no buffer is called {target[0]!r} (buffers: {known}); "
                    f"for memory of its own give its size: --buffer {target[0]}=WORDS"
                )
            )
    if problems:
        raise InputErrors.joined(problems)
    return found


def resolve(ranges: tuple[Range, ...], address: int, words: int) -> int:
    """The first cell of an access of `words` words at `address`; an InputError saying why
    there is none (the caller adds the instruction and line)."""
    index = (address >> 32) - 1
    offset = address & 0xFFFFFFFF
    if not 0 <= index < len(ranges):
        raise InputError(f"the address {address:#x} is in no buffer ({_shown(ranges)})")
    found = ranges[index]
    if offset % 4:
        raise InputError(f"the address {address:#x} ({found.name} + {offset} bytes) is not 4-byte aligned")
    if offset // 4 + words > found.cells:
        raise InputError(
            f"the address {address:#x} ({found.name} + {offset} bytes) is out of bounds: "
            f"an access of {4 * words} bytes there ends past {found.name}'s {4 * found.cells} bytes"
        )
    return found.start + offset // 4


def _shown(ranges: tuple[Range, ...]) -> str:
    if not ranges:
        return "the kernel has no buffers"
    return ", ".join(f"{r.name} at {address_of(i):#x}" for i, r in enumerate(ranges))
