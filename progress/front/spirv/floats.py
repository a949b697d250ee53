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
from dataclasses import dataclass
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


def _integral(op: Callable[[float], int]) -> Callable[[float], float]:
    """Floor, Ceil, Trunc...: integral, so exactly representable; the sign of a zero kept."""

    def rounded(x: float) -> float:
        if math.isinf(x):
            return x
        return math.copysign(float(op(x)), x)

    return rounded


def _round_half_away(x: float) -> int:
    """GLSL.std.450 Round: 0.5 away from zero (SPIR-V lets an implementation choose; this one is fixed)."""
    if abs(x) >= 2**52:  # integral already
        return int(x)
    return int(math.copysign(math.floor(abs(x) + 0.5), x))  # abs(x) + 0.5 is exact below 2^52


def _sqrt(x: float) -> float:
    return math.nan if x < 0 else math.sqrt(x)


@dataclass(frozen=True)
class Tables:
    """The float instructions at one width (32: binary32, 64: binary64), on bit patterns."""

    binary: dict[str, Callable[[int, int], int]]
    unary: dict[str, Callable[[int], int]]
    glsl_std: dict[str, Callable[..., int]]


def _tables(width: int) -> Tables:
    nan, sign = QUIET_NAN[width], SIGN[width]

    def v(bits: int) -> float:
        return value(bits, width)

    def p(x: float) -> int:
        return pattern(x, width)

    def binary(op: Callable[[float, float], float]) -> Callable[[int, int], int]:
        """Computed in binary64 and rounded once: for binary32 exact for + - * / and sqrt,
        since 53 >= 2 * 24 + 2 (double rounding is innocuous; Figueroa 1995)."""
        return lambda a, b: p(op(v(a), v(b)))

    def unary(op: Callable[[float], float]) -> Callable[[int], int]:
        return lambda a: nan if math.isnan(v(a)) else p(op(v(a)))

    def mod(x: float, y: float) -> float:
        """OpFMod: the remainder with the sign of y (exact: fmod, then y added once when the signs differ)."""
        r = _rem(x, y)
        if r != 0 and not math.isnan(r) and (r < 0) != (y < 0):
            r = v(p(r + y))  # one rounded addition (innocuous through binary64 for binary32)
        return r

    def ordered(test: Callable[[float, float], bool]) -> Callable[[int, int], int]:
        return lambda a, b: int(test(v(a), v(b)))

    def unordered(test: Callable[[float, float], bool]) -> Callable[[int, int], int]:
        def compared(a: int, b: int) -> int:
            x, y = v(a), v(b)
            return int(math.isnan(x) or math.isnan(y) or test(x, y))

        return compared

    def fmin(a: int, b: int) -> int:
        """GLSL.std.450 FMin: y if y < x, else x (which one a NaN gives is undefined in SPIR-V)."""
        return b if v(b) < v(a) else a

    def fmax(a: int, b: int) -> int:
        return b if v(a) < v(b) else a

    def nmin(a: int, b: int) -> int:
        """NMin: the other operand where one is a NaN (IEEE minNum); -0 below +0."""
        x, y = v(a), v(b)
        if math.isnan(x) or math.isnan(y):
            return nan if math.isnan(x) and math.isnan(y) else (b if math.isnan(x) else a)
        if x == y:
            return a | b if x == 0 else a  # -0 for min of -0 and +0
        return a if x < y else b

    def nmax(a: int, b: int) -> int:
        x, y = v(a), v(b)
        if math.isnan(x) or math.isnan(y):
            return nan if math.isnan(x) and math.isnan(y) else (b if math.isnan(x) else a)
        if x == y:
            return a & b if x == 0 else a  # +0 for max of -0 and +0
        return a if x > y else b

    def fract(a: int) -> int:
        x = v(a)
        if math.isnan(x) or math.isinf(x):
            return nan
        return exact(Fraction(x) - math.floor(x), width)

    def fma(a: int, b: int, c: int) -> int:
        """a * b + c rounded once (GLSL.std.450 Fma: a GPU may instead round twice)."""
        x, y, z = v(a), v(b), v(c)
        if any(math.isnan(t) or math.isinf(t) for t in (x, y, z)):
            return p(x * y + z)  # the infinities and NaNs are decided the same in binary64
        total = Fraction(x) * Fraction(y) + Fraction(z)
        negative_zero = total == 0 and math.copysign(1.0, x) * math.copysign(1.0, y) < 0 and math.copysign(1.0, z) < 0
        return exact(total, width, negative_zero)

    add, sub, mul = binary(lambda x, y: x + y), binary(lambda x, y: x - y), binary(lambda x, y: x * y)

    def mix(a: int, b: int, t: int) -> int:
        """FMix: x * (1 - a) + y * a, each operation rounded."""
        return add(mul(a, sub(p(1.0), t)), mul(b, t))

    def fsign(a: int) -> int:
        x = v(a)
        if math.isnan(x):
            return nan
        return p(float((x > 0) - (x < 0))) if x != 0 else a

    return Tables(
        {
            "OpFAdd": add,
            "OpFSub": sub,
            "OpFMul": mul,
            "OpFDiv": binary(_divide),
            "OpFRem": binary(_rem),
            "OpFMod": binary(mod),
            "OpFOrdEqual": ordered(lambda x, y: x == y),
            "OpFOrdNotEqual": ordered(lambda x, y: x != y and not (math.isnan(x) or math.isnan(y))),
            "OpFOrdLessThan": ordered(lambda x, y: x < y),
            "OpFOrdGreaterThan": ordered(lambda x, y: x > y),
            "OpFOrdLessThanEqual": ordered(lambda x, y: x <= y),
            "OpFOrdGreaterThanEqual": ordered(lambda x, y: x >= y),
            "OpFUnordEqual": unordered(lambda x, y: x == y),
            "OpFUnordNotEqual": unordered(lambda x, y: x != y),
            "OpFUnordLessThan": unordered(lambda x, y: x < y),
            "OpFUnordGreaterThan": unordered(lambda x, y: x > y),
            "OpFUnordLessThanEqual": unordered(lambda x, y: x <= y),
            "OpFUnordGreaterThanEqual": unordered(lambda x, y: x >= y),
        },
        {
            "OpFNegate": lambda a: a ^ sign,
            "OpIsNan": lambda a: int(math.isnan(v(a))),
            "OpIsInf": lambda a: int(math.isinf(v(a))),
        },
        {
            "FAbs": lambda a: a & ~sign,
            "FSign": fsign,
            "Floor": unary(_integral(math.floor)),
            "Ceil": unary(_integral(math.ceil)),
            "Trunc": unary(_integral(math.trunc)),
            "Round": unary(_integral(_round_half_away)),
            "RoundEven": unary(_integral(round)),
            "Fract": fract,
            "Sqrt": unary(_sqrt),
            "FMin": fmin,
            "FMax": fmax,
            "NMin": nmin,
            "NMax": nmax,
            "FClamp": lambda a, lo, hi: fmin(fmax(a, lo), hi),
            "NClamp": lambda a, lo, hi: nmin(nmax(a, lo), hi),
            "FMix": mix,
            "Step": lambda edge, a: p(0.0 if v(a) < v(edge) else 1.0),
            "Fma": fma,
        },
    )


WIDTHS = {32: _tables(32), 64: _tables(64)}
"""binary32 and binary64 (a comparison gives a boolean, 0 or 1)."""
BINARY = WIDTHS[32].binary
UNARY = WIDTHS[32].unary
GLSL_STD = WIDTHS[32].glsl_std
"""The GLSL.std.450 instructions on floats that have one exact result."""


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


def dot(a: tuple[int, ...], b: tuple[int, ...], width: int = 32) -> int:
    """OpDot: products and sums in order, each rounded (a GPU may fuse or reorder them)."""
    table = WIDTHS[width].binary
    products = [table["OpFMul"](x, y) for x, y in zip(a, b)]
    total = products[0]
    for product in products[1:]:
        total = table["OpFAdd"](total, product)
    return total


def times_scalar(vector: tuple[int, ...], scalar: int, width: int = 32) -> tuple[int, ...]:
    return tuple(WIDTHS[width].binary["OpFMul"](x, scalar) for x in vector)


__all__ = [
    "BINARY",
    "GLSL_STD",
    "UNARY",
    "WIDTHS",
    "convert",
    "dot",
    "pattern",
    "signed",
    "to_float",
    "to_int",
    "value",
]
