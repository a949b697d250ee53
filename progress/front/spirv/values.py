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
    "OpUConvert": lambda a: a,
    "OpSConvert": lambda a: a,
}
"""Same-width conversions only: the subset check refuses other widths."""

GLSL_STD: dict[str, Callable[..., int]] = {
    "UMin": lambda a, b: min(a, b),
    "UMax": lambda a, b: max(a, b),
    "SMin": lambda a, b: min(signed(a), signed(b)) & MASK,
    "SMax": lambda a, b: max(signed(a), signed(b)) & MASK,
    "SAbs": lambda a: abs(signed(a)) & MASK,
    "UClamp": lambda a, lo, hi: min(max(a, lo), hi),
    "SClamp": lambda a, lo, hi: min(max(signed(a), signed(lo)), signed(hi)) & MASK,
}
"""The integer instructions of the GLSL.std.450 set that the interpreter knows."""

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
    """`op` on scalars, or component-wise on equally long tuples."""
    if args and isinstance(args[0], tuple):
        return tuple(lift(op, *parts) for parts in zip(*args))
    return op(*args)
