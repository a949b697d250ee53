"""SPIR-V arithmetic on 32- and 64-bit integers, kept unsigned (0..2^width-1):
wrapping as SPIR-V's two's complement does; booleans are 0 and 1; vectors and
composites are tuples, and operations on vectors work component-wise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MASK = 0xFFFFFFFF


class Fault(Exception):
    """An operation without a defined result (division by zero...); the
    interpreter adds the instruction and its source line."""


def signed(x: int, width: int = 32) -> int:
    return x - (1 << width) if x >> (width - 1) & 1 else x


@dataclass(frozen=True)
class Tables:
    """The integer instructions at one width (32 or 64 bits: values in 0..2^width-1)."""

    binary: dict[str, Callable[[int, int], int]]
    unary: dict[str, Callable[[int], int]]
    bits: dict[str, Callable[..., int]]
    glsl_std: dict[str, Callable[..., int]]
    atomic: dict[str, Callable[[int, int], int]]


def _tables(width: int) -> Tables:
    mask = (1 << width) - 1

    def s(x: int) -> int:
        return signed(x, width)

    def div(a: int, b: int) -> int:
        if b == 0:
            raise Fault("division by zero")
        return a // b

    def sdiv(a: int, b: int) -> int:
        x, y = s(a), s(b)
        if y == 0:
            raise Fault("division by zero")
        q = abs(x) // abs(y)
        return (q if (x < 0) == (y < 0) else -q) & mask

    def srem(a: int, b: int) -> int:
        """Remainder with the sign of the dividend (OpSRem)."""
        x, y = s(a), s(b)
        if y == 0:
            raise Fault("division by zero")
        r = abs(x) % abs(y)
        return (-r if x < 0 else r) & mask

    def smod(a: int, b: int) -> int:
        """Remainder with the sign of the divisor (OpSMod)."""
        x, y = s(a), s(b)
        if y == 0:
            raise Fault("division by zero")
        return (x % y) & mask

    def umod(a: int, b: int) -> int:
        if b == 0:
            raise Fault("division by zero")
        return a % b

    def shift(op: Callable[[int, int], int]) -> Callable[[int, int], int]:
        def shifted(a: int, b: int) -> int:
            if b >= width:
                raise Fault(f"a shift by {b} bits (at least the width, {width})")
            return op(a, b) & mask

        return shifted

    def field(offset: int, count: int) -> int:
        """The mask of bits offset..offset+count-1; a field past the top bit is undefined in SPIR-V."""
        if offset + count > width:
            raise Fault(f"a bit field of {count} bits at offset {offset} goes past bit {width - 1}")
        return ((1 << count) - 1) << offset

    def insert_field(base: int, insert: int, offset: int, count: int) -> int:
        bits = field(offset, count)
        return (base & ~bits | insert << offset & bits) & mask

    def u_extract(base: int, offset: int, count: int) -> int:
        return (base & field(offset, count)) >> offset

    def s_extract(base: int, offset: int, count: int) -> int:
        found = u_extract(base, offset, count)
        if count and found >> (count - 1) & 1:
            found -= 1 << count
        return found & mask

    def reverse(a: int) -> int:
        result = 0
        for _ in range(width):
            result, a = result << 1 | a & 1, a >> 1
        return result

    def find_msb(a: int) -> int:
        return a.bit_length() - 1 & MASK  # GLSL.std.450's Find* results are 32-bit

    def find_smsb(a: int) -> int:
        """The highest bit that differs from the sign bit (-1 for 0 and -1)."""
        return find_msb(a ^ mask if a >> (width - 1) & 1 else a)

    binary: dict[str, Callable[[int, int], int]] = {
        "OpIAdd": lambda a, b: (a + b) & mask,
        "OpISub": lambda a, b: (a - b) & mask,
        "OpIMul": lambda a, b: (a * b) & mask,
        "OpUDiv": div,
        "OpSDiv": sdiv,
        "OpUMod": umod,
        "OpSRem": srem,
        "OpSMod": smod,
        "OpBitwiseAnd": lambda a, b: a & b,
        "OpBitwiseOr": lambda a, b: a | b,
        "OpBitwiseXor": lambda a, b: a ^ b,
        "OpShiftLeftLogical": shift(lambda a, b: a << b),
        "OpShiftRightLogical": shift(lambda a, b: a >> b),
        "OpShiftRightArithmetic": shift(lambda a, b: s(a) >> b),
        "OpIEqual": lambda a, b: int(a == b),
        "OpINotEqual": lambda a, b: int(a != b),
        "OpUGreaterThan": lambda a, b: int(a > b),
        "OpUGreaterThanEqual": lambda a, b: int(a >= b),
        "OpULessThan": lambda a, b: int(a < b),
        "OpULessThanEqual": lambda a, b: int(a <= b),
        "OpSGreaterThan": lambda a, b: int(s(a) > s(b)),
        "OpSGreaterThanEqual": lambda a, b: int(s(a) >= s(b)),
        "OpSLessThan": lambda a, b: int(s(a) < s(b)),
        "OpSLessThanEqual": lambda a, b: int(s(a) <= s(b)),
        "OpLogicalAnd": lambda a, b: int(bool(a) and bool(b)),
        "OpLogicalOr": lambda a, b: int(bool(a) or bool(b)),
        "OpLogicalEqual": lambda a, b: int(bool(a) == bool(b)),
        "OpLogicalNotEqual": lambda a, b: int(bool(a) != bool(b)),
    }
    unary: dict[str, Callable[[int], int]] = {
        "OpSNegate": lambda a: (-a) & mask,
        "OpNot": lambda a: ~a & mask,
        "OpLogicalNot": lambda a: int(not a),
        "OpBitcast": lambda a: a,
        "OpCopyObject": lambda a: a,
        "OpCopyLogical": lambda a: a,
        "OpUConvert": lambda a: a & mask,
        "OpSConvert": lambda a: a & mask,
        "OpBitCount": lambda a: a.bit_count(),
        "OpBitReverse": reverse,
    }
    bits: dict[str, Callable[..., int]] = {
        "OpBitFieldInsert": insert_field,
        "OpBitFieldSExtract": s_extract,
        "OpBitFieldUExtract": u_extract,
    }
    glsl_std: dict[str, Callable[..., int]] = {
        "UMin": lambda a, b: min(a, b),
        "UMax": lambda a, b: max(a, b),
        "SMin": lambda a, b: min(s(a), s(b)) & mask,
        "SMax": lambda a, b: max(s(a), s(b)) & mask,
        "SAbs": lambda a: abs(s(a)) & mask,
        "SSign": lambda a: (s(a) > 0) - (s(a) < 0) & mask,
        "UClamp": lambda a, lo, hi: min(max(a, lo), hi),
        "SClamp": lambda a, lo, hi: min(max(s(a), s(lo)), s(hi)) & mask,
        "FindILsb": lambda a: find_msb(a & -a),
        "FindUMsb": find_msb,
        "FindSMsb": find_smsb,
    }
    atomic: dict[str, Callable[[int, int], int]] = {
        "OpAtomicExchange": lambda old, v: v,
        "OpAtomicIAdd": lambda old, v: (old + v) & mask,
        "OpAtomicISub": lambda old, v: (old - v) & mask,
        "OpAtomicAnd": lambda old, v: old & v,
        "OpAtomicOr": lambda old, v: old | v,
        "OpAtomicXor": lambda old, v: old ^ v,
        "OpAtomicUMin": min,
        "OpAtomicUMax": max,
        "OpAtomicSMin": lambda old, v: min(s(old), s(v)) & mask,
        "OpAtomicSMax": lambda old, v: max(s(old), s(v)) & mask,
    }
    return Tables(binary, unary, bits, glsl_std, atomic)


WIDTHS = {32: _tables(32), 64: _tables(64)}
"""The integer widths a kernel's values may have (a width's value, a 64-bit one too, is
one register value; in memory a 64-bit value is two 32-bit cells, low word first)."""

BINARY = WIDTHS[32].binary
UNARY = WIDTHS[32].unary
"""Same-width conversions only at a width (OpUConvert/OpSConvert between widths: `resize`).
(OpCopyObject and OpCopyLogical copy composites whole; component-wise is the same here.)"""
BITS = WIDTHS[32].bits
"""Bit-field instructions: a base (scalar or vector) and scalar offset and count."""
GLSL_STD = WIDTHS[32].glsl_std
"""The integer instructions of the GLSL.std.450 set (all of them: its others take floats)."""
ATOMIC = WIDTHS[32].atomic
"""Read-modify-write atomics with a value operand: the new value from the old one."""

REDUCTIONS: dict[str, Callable[[tuple[int, ...]], int]] = {
    "OpAll": lambda v: int(all(v)),
    "OpAny": lambda v: int(any(v)),
}
"""A boolean vector to a boolean."""


def resize(a: int, source: int, width: int, is_signed: bool) -> int:
    """OpUConvert (zero-extends) / OpSConvert (sign-extends) from `source` to `width` bits;
    narrowing keeps the low bits."""
    if is_signed:
        a = signed(a, source)
    return a & ((1 << width) - 1)


def join(words: tuple[int, ...] | list[int]) -> int:
    """Two 32-bit words (low first) as one 64-bit value."""
    return words[0] | words[1] << 32


def split(value: int) -> tuple[int, int]:
    """A 64-bit value as its two 32-bit words, low first."""
    return value & MASK, value >> 32 & MASK


PAIRS: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "OpIAddCarry": lambda a, b: ((a + b) & MASK, (a + b) >> 32),
    "OpISubBorrow": lambda a, b: ((a - b) & MASK, int(a < b)),
    "OpUMulExtended": lambda a, b: ((a * b) & MASK, (a * b) >> 32 & MASK),
    "OpSMulExtended": lambda a, b: ((signed(a) * signed(b)) & MASK, (signed(a) * signed(b)) >> 32 & MASK),
}
"""Instructions whose result is a struct of two values: (low, high) or (result, carry)."""


def pair(op: str, a: object, b: object) -> tuple[object, object]:
    """A PAIRS instruction on scalars, or on vectors component-wise: a struct of two vectors."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        parts = [PAIRS[op](x, y) for x, y in zip(a, b)]
        return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
    assert isinstance(a, int) and isinstance(b, int)
    return PAIRS[op](a, b)


DOTS = {
    "OpSDot": (True, True, False),
    "OpUDot": (False, False, False),
    "OpSUDot": (True, False, False),
    "OpSDotAccSat": (True, True, True),
    "OpUDotAccSat": (False, False, True),
    "OpSUDotAccSat": (True, False, True),
}
"""Integer dot products: (first vector signed, second signed, accumulates with saturation)."""


def dot(op: str, a: object, b: object, accumulator: int | None, packed: bool) -> int:
    """An integer dot product of two vectors, or of two 32-bit words of 4 packed bytes;
    the AccSat forms add the accumulator, saturating as the result's signedness says
    (signed unless both vectors are unsigned). A product that does not fit 32 bits is
    undefined in SPIR-V."""
    first_signed, second_signed, _ = DOTS[op]
    xs, ys = (_bytes(a), _bytes(b)) if packed else (a, b)
    assert isinstance(xs, tuple) and isinstance(ys, tuple)
    width = 8 if packed else 32
    total = sum(_as(x, first_signed, width) * _as(y, second_signed, width) for x, y in zip(xs, ys))
    result_signed = first_signed or second_signed
    low, high = (-(2**31), 2**31 - 1) if result_signed else (0, MASK)
    if not low <= total <= high:
        raise Fault(f"the dot product {total} does not fit the 32-bit result")
    if accumulator is not None:
        total = min(max(total + (signed(accumulator) if result_signed else accumulator), low), high)
    return total & MASK


def _bytes(word: object) -> tuple[int, ...]:
    assert isinstance(word, int)
    return tuple(word >> shift & 0xFF for shift in (0, 8, 16, 24))


def _as(value: int, is_signed: bool, width: int) -> int:
    return value - (1 << width) if is_signed and value >> (width - 1) & 1 else value


def lift(op: Callable[..., int], *args: object) -> object:
    """`op` on scalars, or component-wise on equally long tuples (a scalar among
    them, as a bit field's offset and count, goes with every component)."""
    if any(isinstance(arg, tuple) for arg in args):
        count = max(len(arg) for arg in args if isinstance(arg, tuple))
        spread = [arg if isinstance(arg, tuple) else (arg,) * count for arg in args]
        return tuple(lift(op, *parts) for parts in zip(*spread))
    return op(*args)
