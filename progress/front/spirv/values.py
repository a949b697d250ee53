"""SPIR-V arithmetic on 32-bit integers, kept unsigned (0..2^32-1): wrapping
as SPIR-V's two's complement does; booleans are 0 and 1; vectors and
composites are tuples, and operations on vectors work component-wise."""

from __future__ import annotations

from collections.abc import Callable

MASK = 0xFFFFFFFF


class Fault(Exception):
    """An operation without a defined result (division by zero...); the
    interpreter adds the instruction and its source line."""


def signed(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x


def _div(a: int, b: int) -> int:
    if b == 0:
        raise Fault("division by zero")
    return a // b


def _sdiv(a: int, b: int) -> int:
    x, y = signed(a), signed(b)
    if y == 0:
        raise Fault("division by zero")
    q = abs(x) // abs(y)
    return (q if (x < 0) == (y < 0) else -q) & MASK


def _srem(a: int, b: int) -> int:
    """Remainder with the sign of the dividend (OpSRem)."""
    x, y = signed(a), signed(b)
    if y == 0:
        raise Fault("division by zero")
    r = abs(x) % abs(y)
    return (-r if x < 0 else r) & MASK


def _smod(a: int, b: int) -> int:
    """Remainder with the sign of the divisor (OpSMod)."""
    x, y = signed(a), signed(b)
    if y == 0:
        raise Fault("division by zero")
    return (x % y) & MASK


def _umod(a: int, b: int) -> int:
    if b == 0:
        raise Fault("division by zero")
    return a % b


def _shift(op: Callable[[int, int], int]) -> Callable[[int, int], int]:
    def shifted(a: int, b: int) -> int:
        if b >= 32:
            raise Fault(f"a shift by {b} bits (at least the width, 32)")
        return op(a, b) & MASK

    return shifted


def _field(offset: int, count: int) -> int:
    """The mask of bits offset..offset+count-1; a field past bit 31 is undefined in SPIR-V."""
    if offset + count > 32:
        raise Fault(f"a bit field of {count} bits at offset {offset} goes past bit 31")
    return ((1 << count) - 1) << offset


def _insert_field(base: int, insert: int, offset: int, count: int) -> int:
    mask = _field(offset, count)
    return (base & ~mask | insert << offset & mask) & MASK


def _u_extract(base: int, offset: int, count: int) -> int:
    return (base & _field(offset, count)) >> offset


def _s_extract(base: int, offset: int, count: int) -> int:
    field = _u_extract(base, offset, count)
    if count and field >> (count - 1) & 1:
        field -= 1 << count
    return field & MASK


def _reverse(a: int) -> int:
    result = 0
    for _ in range(32):
        result, a = result << 1 | a & 1, a >> 1
    return result


def _find_msb(a: int) -> int:
    return a.bit_length() - 1 & MASK


def _find_smsb(a: int) -> int:
    """The highest bit that differs from the sign bit (-1 for 0 and -1)."""
    return _find_msb(a ^ MASK if a & 0x80000000 else a)


BINARY: dict[str, Callable[[int, int], int]] = {
    "OpIAdd": lambda a, b: (a + b) & MASK,
    "OpISub": lambda a, b: (a - b) & MASK,
    "OpIMul": lambda a, b: (a * b) & MASK,
    "OpUDiv": _div,
    "OpSDiv": _sdiv,
    "OpUMod": _umod,
    "OpSRem": _srem,
    "OpSMod": _smod,
    "OpBitwiseAnd": lambda a, b: a & b,
    "OpBitwiseOr": lambda a, b: a | b,
    "OpBitwiseXor": lambda a, b: a ^ b,
    "OpShiftLeftLogical": _shift(lambda a, b: a << b),
    "OpShiftRightLogical": _shift(lambda a, b: a >> b),
    "OpShiftRightArithmetic": _shift(lambda a, b: signed(a) >> b),
    "OpIEqual": lambda a, b: int(a == b),
    "OpINotEqual": lambda a, b: int(a != b),
    "OpUGreaterThan": lambda a, b: int(a > b),
    "OpUGreaterThanEqual": lambda a, b: int(a >= b),
    "OpULessThan": lambda a, b: int(a < b),
    "OpULessThanEqual": lambda a, b: int(a <= b),
    "OpSGreaterThan": lambda a, b: int(signed(a) > signed(b)),
    "OpSGreaterThanEqual": lambda a, b: int(signed(a) >= signed(b)),
    "OpSLessThan": lambda a, b: int(signed(a) < signed(b)),
    "OpSLessThanEqual": lambda a, b: int(signed(a) <= signed(b)),
    "OpLogicalAnd": lambda a, b: int(bool(a) and bool(b)),
    "OpLogicalOr": lambda a, b: int(bool(a) or bool(b)),
    "OpLogicalEqual": lambda a, b: int(bool(a) == bool(b)),
    "OpLogicalNotEqual": lambda a, b: int(bool(a) != bool(b)),
}

UNARY: dict[str, Callable[[int], int]] = {
    "OpSNegate": lambda a: (-a) & MASK,
    "OpNot": lambda a: ~a & MASK,
    "OpLogicalNot": lambda a: int(not a),
    "OpBitcast": lambda a: a,
    "OpCopyObject": lambda a: a,
    "OpCopyLogical": lambda a: a,
    "OpUConvert": lambda a: a,
    "OpSConvert": lambda a: a,
    "OpBitCount": lambda a: a.bit_count(),
    "OpBitReverse": _reverse,
}
"""Same-width conversions only: the subset check refuses other widths. (OpCopyObject and
OpCopyLogical copy composites whole; component-wise is the same here.)"""

REDUCTIONS: dict[str, Callable[[tuple[int, ...]], int]] = {
    "OpAll": lambda v: int(all(v)),
    "OpAny": lambda v: int(any(v)),
}
"""A boolean vector to a boolean."""


BITS: dict[str, Callable[..., int]] = {
    "OpBitFieldInsert": _insert_field,
    "OpBitFieldSExtract": _s_extract,
    "OpBitFieldUExtract": _u_extract,
}
"""Bit-field instructions: a base (scalar or vector) and scalar offset and count."""

GLSL_STD: dict[str, Callable[..., int]] = {
    "UMin": lambda a, b: min(a, b),
    "UMax": lambda a, b: max(a, b),
    "SMin": lambda a, b: min(signed(a), signed(b)) & MASK,
    "SMax": lambda a, b: max(signed(a), signed(b)) & MASK,
    "SAbs": lambda a: abs(signed(a)) & MASK,
    "SSign": lambda a: (signed(a) > 0) - (signed(a) < 0) & MASK,
    "UClamp": lambda a, lo, hi: min(max(a, lo), hi),
    "SClamp": lambda a, lo, hi: min(max(signed(a), signed(lo)), signed(hi)) & MASK,
    "FindILsb": lambda a: _find_msb(a & -a),
    "FindUMsb": _find_msb,
    "FindSMsb": _find_smsb,
}
"""The integer instructions of the GLSL.std.450 set (all of them: its others take floats)."""

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


ATOMIC: dict[str, Callable[[int, int], int]] = {
    "OpAtomicExchange": lambda old, v: v,
    "OpAtomicIAdd": lambda old, v: (old + v) & MASK,
    "OpAtomicISub": lambda old, v: (old - v) & MASK,
    "OpAtomicAnd": lambda old, v: old & v,
    "OpAtomicOr": lambda old, v: old | v,
    "OpAtomicXor": lambda old, v: old ^ v,
    "OpAtomicUMin": min,
    "OpAtomicUMax": max,
    "OpAtomicSMin": lambda old, v: min(signed(old), signed(v)) & MASK,
    "OpAtomicSMax": lambda old, v: max(signed(old), signed(v)) & MASK,
}
"""Read-modify-write atomics with a value operand: the new value from the old one."""


def lift(op: Callable[..., int], *args: object) -> object:
    """`op` on scalars, or component-wise on equally long tuples (a scalar among
    them, as a bit field's offset and count, goes with every component)."""
    if any(isinstance(arg, tuple) for arg in args):
        count = max(len(arg) for arg in args if isinstance(arg, tuple))
        spread = [arg if isinstance(arg, tuple) else (arg,) * count for arg in args]
        return tuple(lift(op, *parts) for parts in zip(*spread))
    return op(*args)
