"""IEEE-754 floating point on bit patterns (docs/semantics.md section 8, "Floats").

A float value is its bit pattern, an unsigned int (32 bits for binary32, 64 for
binary64), kept in cells as an integer is. Every operation is IEEE-754
round-to-nearest-even on the exact operands, as one operation: no denormal
flush, no contraction (a GPU may flush denormals and fuse a*b+c; docs/kernels.md
says so). A NaN that arithmetic makes is the quiet NaN 0x7FC00000 (0x7FF8...
for binary64); negation, absolute value and copies change the sign bit only.
Where SPIR-V leaves a result undefined (a conversion out of range) the
operation raises `values.Fault`; the transcendental functions are not here
(GPUs approximate them: no single right result). Pure.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from fractions import Fraction

from progress.front.spirv.values import Fault, signed

QUIET_NAN = {32: 0x7FC00000, 64: 0x7FF8000000000000}
SIGN = {32: 1 << 31, 64: 1 << 63}
_FORMAT = {32: ("<f", "<I"), 64: ("<d", "<Q")}
_PRECISION = {32: (24, -126, 127), 64: (53, -1022, 1023)}  # significand bits, emin, emax


def value(bits: int, width: int = 32) -> float:
    """The number a bit pattern stands for (a binary32 one exactly, as a Python float)."""
    fmt, word = _FORMAT[width]
    result: float = struct.unpack(fmt, struct.pack(word, bits))[0]
    return result


def pattern(x: float, width: int = 32) -> int:
    """The bit pattern of `x` rounded to nearest-even at `width` (overflow to infinity)."""
    if math.isnan(x):
        return QUIET_NAN[width]
    fmt, word = _FORMAT[width]
    try:
        packed = struct.pack(fmt, x)
    except OverflowError:
        return pattern(math.copysign(math.inf, x), width)
    result: int = struct.unpack(word, packed)[0]
    return result


def exact(q: Fraction, width: int = 32, negative_zero: bool = False) -> int:
    """The bit pattern of the rational `q` rounded once to nearest-even (Fma's and a
    64-bit integer's conversion need this: rounding through a double first could err)."""
    if q == 0:
        return SIGN[width] if negative_zero else 0
    digits, emin, emax = _PRECISION[width]
    sign = q < 0
    q = abs(q)
    exponent = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** exponent > q:
        exponent -= 1
    exponent = max(exponent, emin)  # below emin: a denormal, fixed quantum 2^(emin-digits+1)
    quantum = Fraction(2) ** (exponent - digits + 1)
    scaled = q / quantum
    whole = scaled.numerator // scaled.denominator
    rest = scaled - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2):
        whole += 1
    rounded = whole * quantum
    if rounded >= Fraction(2) ** (emax + 1):
        return pattern(-math.inf if sign else math.inf, width)
    return pattern(-float(rounded) if sign else float(rounded), width)  # representable: float() is exact


def _binary(op: Callable[[float, float], float]) -> Callable[[int, int], int]:
    """A binary32 operation computed in binary64 and rounded once: exact for + - * / and
    sqrt, since 53 >= 2 * 24 + 2 (double rounding is innocuous; Figueroa 1995)."""

    def computed(a: int, b: int) -> int:
        return pattern(op(value(a), value(b)))

    return computed


def _divide(x: float, y: float) -> float:
    if y == 0:
        if x == 0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y


def _rem(x: float, y: float) -> float:
    """OpFRem: the remainder with the sign of x (C fmod, exact)."""
    if y == 0 or math.isinf(x) or math.isnan(x) or math.isnan(y):
        return math.nan
    return math.fmod(x, y)


def _mod(x: float, y: float) -> float:
    """OpFMod: the remainder with the sign of y (exact: fmod, then y added when the signs differ)."""
    r = _rem(x, y)
    if r != 0 and not math.isnan(r) and (r < 0) != (y < 0):
        r = value(exact(Fraction(r) + Fraction(y)))
    return r


def _ordered(test: Callable[[float, float], bool]) -> Callable[[int, int], int]:
    return lambda a, b: int(test(value(a), value(b)))


def _unordered(test: Callable[[float, float], bool]) -> Callable[[int, int], int]:
    def compared(a: int, b: int) -> int:
        x, y = value(a), value(b)
        return int(math.isnan(x) or math.isnan(y) or test(x, y))

    return compared


def _min(a: int, b: int) -> int:
    """GLSL.std.450 FMin: y if y < x, else x (which one a NaN gives is undefined in SPIR-V)."""
    return b if value(b) < value(a) else a


def _max(a: int, b: int) -> int:
    return b if value(a) < value(b) else a


def _nmin(a: int, b: int) -> int:
    """NMin: the other operand where one is a NaN (IEEE minNum); -0 below +0."""
    x, y = value(a), value(b)
    if math.isnan(x) or math.isnan(y):
        return b if math.isnan(x) and not math.isnan(y) else a if not math.isnan(x) else QUIET_NAN[32]
    if x == y:
        return a | b if x == 0 else a  # -0 for min of -0 and +0
    return a if x < y else b


def _nmax(a: int, b: int) -> int:
    x, y = value(a), value(b)
    if math.isnan(x) or math.isnan(y):
        return b if math.isnan(x) and not math.isnan(y) else a if not math.isnan(x) else QUIET_NAN[32]
    if x == y:
        return a & b if x == 0 else a  # +0 for max of -0 and +0
    return a if x > y else b


def _unary(op: Callable[[float], float]) -> Callable[[int], int]:
    def computed(a: int) -> int:
        x = value(a)
        if math.isnan(x):
            return QUIET_NAN[32]
        return pattern(op(x))

    return computed


def _integral(op: Callable[[float], int]) -> Callable[[float], float]:
    """Floor, Ceil, Trunc...: integral, so exactly representable; the sign of a zero kept."""

    def rounded(x: float) -> float:
        if math.isinf(x):
            return x
        return math.copysign(float(op(x)), x)

    return rounded


def _round_half_away(x: float) -> int:
    """GLSL.std.450 Round: 0.5 away from zero (SPIR-V lets an implementation choose; this one is fixed)."""
    whole = math.floor(abs(x) + 0.5) if abs(x) < 2**52 else abs(x)  # abs(x) + 0.5 is exact here
    return int(math.copysign(whole, x))


def _sqrt(x: float) -> float:
    return math.nan if x < 0 else math.sqrt(x)


def _fract(a: int) -> int:
    x = value(a)
    if math.isnan(x) or math.isinf(x):
        return QUIET_NAN[32]
    return exact(Fraction(x) - math.floor(x))


def fma(a: int, b: int, c: int) -> int:
    """a * b + c rounded once (GLSL.std.450 Fma: a GPU may instead round twice)."""
    x, y, z = value(a), value(b), value(c)
    if any(math.isnan(v) or math.isinf(v) for v in (x, y, z)):
        return pattern(x * y + z)  # exact in binary64 but for the infinities and NaNs decided here
    total = Fraction(x) * Fraction(y) + Fraction(z)
    negative_zero = total == 0 and math.copysign(1.0, x * y) < 0 and math.copysign(1.0, z) < 0
    return exact(total, 32, negative_zero)


def _clamp(a: int, lo: int, hi: int) -> int:
    return _min(_max(a, lo), hi)


def _mix(a: int, b: int, t: int) -> int:
    """FMix: x * (1 - a) + y * a, each operation rounded."""
    one_minus = _binary(lambda p, q: p - q)(pattern(1.0), t)
    return _binary(lambda p, q: p + q)(_binary(lambda p, q: p * q)(a, one_minus), _binary(lambda p, q: p * q)(b, t))


def _step(edge: int, a: int) -> int:
    return pattern(0.0 if value(a) < value(edge) else 1.0)


def _sign(a: int) -> int:
    x = value(a)
    if math.isnan(x):
        return QUIET_NAN[32]
    return pattern(float((x > 0) - (x < 0))) if x != 0 else a


BINARY: dict[str, Callable[[int, int], int]] = {
    "OpFAdd": _binary(lambda x, y: x + y),
    "OpFSub": _binary(lambda x, y: x - y),
    "OpFMul": _binary(lambda x, y: x * y),
    "OpFDiv": _binary(_divide),
    "OpFRem": _binary(_rem),
    "OpFMod": _binary(_mod),
    "OpFOrdEqual": _ordered(lambda x, y: x == y),
    "OpFOrdNotEqual": _ordered(lambda x, y: x != y and not (math.isnan(x) or math.isnan(y))),
    "OpFOrdLessThan": _ordered(lambda x, y: x < y),
    "OpFOrdGreaterThan": _ordered(lambda x, y: x > y),
    "OpFOrdLessThanEqual": _ordered(lambda x, y: x <= y),
    "OpFOrdGreaterThanEqual": _ordered(lambda x, y: x >= y),
    "OpFUnordEqual": _unordered(lambda x, y: x == y),
    "OpFUnordNotEqual": _unordered(lambda x, y: x != y),
    "OpFUnordLessThan": _unordered(lambda x, y: x < y),
    "OpFUnordGreaterThan": _unordered(lambda x, y: x > y),
    "OpFUnordLessThanEqual": _unordered(lambda x, y: x <= y),
    "OpFUnordGreaterThanEqual": _unordered(lambda x, y: x >= y),
}
"""binary32 arithmetic and comparisons (a comparison gives a boolean, 0 or 1)."""

UNARY: dict[str, Callable[[int], int]] = {
    "OpFNegate": lambda a: a ^ SIGN[32],
    "OpIsNan": lambda a: int(math.isnan(value(a))),
    "OpIsInf": lambda a: int(math.isinf(value(a))),
}

GLSL_STD: dict[str, Callable[..., int]] = {
    "FAbs": lambda a: a & ~SIGN[32],
    "FSign": _sign,
    "Floor": _unary(_integral(math.floor)),
    "Ceil": _unary(_integral(math.ceil)),
    "Trunc": _unary(_integral(math.trunc)),
    "Round": _unary(_integral(_round_half_away)),
    "RoundEven": _unary(_integral(round)),
    "Fract": _fract,
    "Sqrt": _unary(_sqrt),
    "FMin": _min,
    "FMax": _max,
    "NMin": _nmin,
    "NMax": _nmax,
    "FClamp": _clamp,
    "NClamp": lambda a, lo, hi: _nmin(_nmax(a, lo), hi),
    "FMix": _mix,
    "Step": _step,
    "Fma": fma,
}
"""The GLSL.std.450 instructions on binary32 that have one exact result."""


def to_float(n: int, source_width: int, is_signed: bool, width: int = 32) -> int:
    """OpConvertSToF / OpConvertUToF: an integer of `source_width` bits to a float, rounded once."""
    number = n - (1 << source_width) if is_signed and n >> (source_width - 1) & 1 else n
    return exact(Fraction(number), width)


def to_int(a: int, width: int, is_signed: bool, float_width: int = 32) -> int:
    """OpConvertFToS / OpConvertFToU: toward zero; a NaN, infinity or a value out of the
    result's range is undefined in SPIR-V and a Fault here."""
    x = value(a, float_width)
    if math.isnan(x) or math.isinf(x):
        raise Fault(f"converting {x} to an integer (undefined)")
    whole = math.trunc(x)
    low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if is_signed else (0, (1 << width) - 1)
    if not low <= whole <= high:
        kind = "signed" if is_signed else "unsigned"
        raise Fault(f"converting {x} to a {width}-bit {kind} integer: out of range (undefined)")
    return whole & ((1 << width) - 1)


def convert(a: int, source_width: int, width: int) -> int:
    """OpFConvert between binary32 and binary64 (narrowing rounds to nearest-even)."""
    if source_width == width:
        return a
    x = value(a, source_width)
    if math.isnan(x):
        return QUIET_NAN[width]
    return pattern(x, width)


def dot(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """OpDot: products and sums in order, each rounded (a GPU may fuse or reorder them)."""
    products = [BINARY["OpFMul"](x, y) for x, y in zip(a, b)]
    total = products[0]
    for product in products[1:]:
        total = BINARY["OpFAdd"](total, product)
    return total


def times_scalar(vector: tuple[int, ...], scalar: int) -> tuple[int, ...]:
    return tuple(BINARY["OpFMul"](x, scalar) for x in vector)


__all__ = ["BINARY", "GLSL_STD", "UNARY", "convert", "dot", "fma", "pattern", "signed", "to_float", "to_int", "value"]
