"""32-bit floats in kernels: every float instruction the subset supports, run end to end
as a one-invocation kernel (operands' bit patterns read from a buffer, the result's bit
pattern stored), against numpy's float32 arithmetic or an exact rational evaluation written
here; NaNs compare as NaNs (the payload arithmetic gives is the one quiet NaN, documented)."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from kernel_helpers import system

from progress.cli.kernel import terminal_memories
from progress.errors import InputError
from progress.front.spirv import floats
from progress.front.spirv.load import load_kernel

HEAD = """OpCapability Shader
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %B "B"
OpMemberName %B 0 "inp"
OpMemberName %B 1 "out"
OpDecorate %arr ArrayStride 4
OpMemberDecorate %B 0 Offset 0
OpMemberDecorate %B 1 Offset 32
OpDecorate %B Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%bool = OpTypeBool
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%u3 = OpConstant %uint 3
%u8 = OpConstant %uint 8
%arr = OpTypeArray %uint %u8
%B = OpTypeStruct %arr %arr
%pB = OpTypePointer StorageBuffer %B
%pu = OpTypePointer StorageBuffer %uint
%buf = OpVariable %pB StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%p0 = OpAccessChain %pu %buf %u0 %u0
%p1 = OpAccessChain %pu %buf %u0 %u1
%p2 = OpAccessChain %pu %buf %u0 %u2
%w0 = OpLoad %uint %p0
%w1 = OpLoad %uint %p1
%w2 = OpLoad %uint %p2
%a = OpBitcast %float %w0
%b = OpBitcast %float %w1
%c = OpBitcast %float %w2
%ia = OpBitcast %int %w0
{body}
%o = OpAccessChain %pu %buf %u1 %u0
OpStore %o %out
OpReturn
OpFunctionEnd
"""

F = np.float32


def f(bits: int) -> np.float32:
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


def b(x) -> int:
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def nearest(q: Fraction) -> int:
    """The binary32 nearest to q, ties to even: found among numpy's neighbours of a first guess."""
    guess = np.float32(float(q))
    candidates = [np.nextafter(guess, F(-np.inf)), guess, np.nextafter(guess, F(np.inf))]
    finite = [c for c in candidates if np.isfinite(c)]
    best = min(finite, key=lambda c: (abs(Fraction(float(c)) - q), b(c) & 1))
    return b(best)


def fma(x, y, z) -> int:
    if not all(np.isfinite([x, y, z])):
        return b(F(x) * F(y) + F(z))
    q = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    if q == 0:
        return b(F(x) * F(y) + F(z))  # the sign of an exact zero: IEEE's rule, as numpy computes it
    return nearest(q)


def fmod(x, y):
    r = np.fmod(x, y)
    if r != 0 and not np.isnan(r) and (r < 0) != (y < 0):
        r = r + y  # in the operands' own precision
    return r


BINARY = {
    "OpFAdd": lambda x, y: x + y,
    "OpFSub": lambda x, y: x - y,
    "OpFMul": lambda x, y: x * y,
    "OpFDiv": lambda x, y: x / y,
    "OpFRem": np.fmod,
    "OpFMod": fmod,
}
COMPARE = {
    "OpFOrdEqual": lambda x, y: x == y,
    "OpFOrdNotEqual": lambda x, y: x != y and not (np.isnan(x) or np.isnan(y)),
    "OpFOrdLessThan": lambda x, y: x < y,
    "OpFOrdGreaterThan": lambda x, y: x > y,
    "OpFOrdLessThanEqual": lambda x, y: x <= y,
    "OpFOrdGreaterThanEqual": lambda x, y: x >= y,
    "OpFUnordEqual": lambda x, y: np.isnan(x) or np.isnan(y) or x == y,
    "OpFUnordNotEqual": lambda x, y: np.isnan(x) or np.isnan(y) or x != y,
    "OpFUnordLessThan": lambda x, y: not (x >= y),
    "OpFUnordGreaterThan": lambda x, y: not (x <= y),
    "OpFUnordLessThanEqual": lambda x, y: not (x > y),
    "OpFUnordGreaterThanEqual": lambda x, y: not (x < y),
}
PREDICATES = {"OpIsNan": np.isnan, "OpIsInf": np.isinf}
GLSL = {
    "FAbs": (1, np.abs),
    "Floor": (1, np.floor),
    "Ceil": (1, np.ceil),
    "Trunc": (1, np.trunc),
    "RoundEven": (1, np.rint),
    "Round": (1, lambda x: F(np.copysign(np.floor(np.abs(np.float64(x)) + 0.5), x))),
    "Fract": (1, lambda x: x - np.floor(x)),
    "Sqrt": (1, np.sqrt),
    "FSign": (1, lambda x: x if x == 0 else np.sign(x)),
    "FMin": (2, lambda x, y: y if y < x else x),
    "FMax": (2, lambda x, y: y if x < y else x),
    "NMin": (2, np.fmin),
    "NMax": (2, np.fmax),
    "FClamp": (3, lambda x, lo, hi: min(max(x, lo), hi)),
    "FMix": (3, lambda x, y, a: x * (F(1) - a) + y * a),
    "Step": (2, lambda edge, x: F(0) if x < edge else F(1)),
    "Fma": (3, None),
}
EXECUTED = set(BINARY) | set(COMPARE) | set(PREDICATES) | {"OpFNegate", "OpDot", "OpVectorTimesScalar"}
EXECUTED |= {"OpConvertSToF", "OpConvertUToF", "OpConvertFToS", "OpConvertFToU", "OpFConvert"}
EXECUTED |= {"OpAtomicFAddEXT", "OpAtomicFMinEXT", "OpAtomicFMaxEXT"}
"""The float instructions of the subset, each executed by a test here."""
NAN_UNDEFINED = {"FMin", "FMax", "FClamp"}
"""SPIR-V leaves which operand these give when one is a NaN."""

EDGES = [
    0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001,
    0x807FFFFF, 0x7F7FFFFF, 0x3EFFFFFF, 0x3F000000, 0x3FC00000, 0x40200000, 0xC0200000, 0x4B800001,
    0x33800000, 0x4F000000, 0xCF000000, 0x3DCCCCCD,
]  # fmt: skip


@cache
def module(body: str):
    return load_kernel(HEAD.format(body=body).encode(), "f.spvasm", "spvasm").module


def run(body: str, words: tuple[int, ...]) -> int:
    init = [("inp", i, w) for i, w in enumerate(words)]
    (memory,) = terminal_memories(system(module(body), 1, {}, init), None, None)
    return dict(memory)["out[0]"]


def samples(name: str, count: int) -> list[tuple[int, ...]]:
    rng = random.Random(name)
    pool = EDGES + [rng.getrandbits(32) for _ in range(6)]
    return [tuple(rng.choice(pool) for _ in range(count)) for _ in range(24)]


def same(got: int, want: int) -> bool:
    """Equal bit patterns, or both NaNs."""
    return got == want or (math.isnan(floats.value(got)) and math.isnan(floats.value(want)))


@pytest.mark.parametrize("op", sorted(BINARY))
def test_float_arithmetic_is_ieee_binary32(op):
    body = f"%r = {op} %float %a %b\n%out = OpBitcast %uint %r"
    for x, y in samples(op, 2) + [(0xBF800000, 0x7F800000), (0x3F800000, 0xFF800000)]:  # -1 and inf, 1 and -inf
        with np.errstate(all="ignore"):
            want = b(BINARY[op](f(x), f(y)))
        assert same(run(body, (x, y)), want), (op, hex(x), hex(y))


@pytest.mark.parametrize("op", sorted(COMPARE))
def test_float_comparisons_treat_nan_as_ordered_or_unordered(op):
    body = f"%r = {op} %bool %a %b\n%out = OpSelect %uint %r %u1 %u0"
    for x, y in samples(op, 2) + [(0x7FC00000, 0x3F800000), (0x80000000, 0)]:
        assert run(body, (x, y)) == int(bool(COMPARE[op](f(x), f(y)))), (op, hex(x), hex(y))


@pytest.mark.parametrize("op", sorted(PREDICATES) + ["OpFNegate"])
def test_float_predicates_and_negation(op):
    if op == "OpFNegate":
        body = "%r = OpFNegate %float %a\n%out = OpBitcast %uint %r"
        for (x,) in samples(op, 1):
            assert run(body, (x,)) == x ^ 0x80000000  # the sign bit alone, a NaN's too
        return
    body = f"%r = {op} %bool %a\n%out = OpSelect %uint %r %u1 %u0"
    for (x,) in samples(op, 1):
        assert run(body, (x,)) == int(bool(PREDICATES[op](f(x)))), (op, hex(x))


@pytest.mark.parametrize("name", sorted(GLSL))
def test_glsl_std_450_float_instructions(name):
    count, oracle = GLSL[name]
    operands = " ".join("%a %b %c".split()[:count])
    body = f"%r = OpExtInst %float %glsl {name} {operands}\n%out = OpBitcast %uint %r"
    for words in samples(name, count):
        values = [f(w) for w in words]
        if name in NAN_UNDEFINED and any(np.isnan(values)):
            continue
        with np.errstate(all="ignore"):
            want = fma(*values) if oracle is None else b(oracle(*values))
        got = run(body, words)
        if name in ("NMin", "NMax") and f(got) == 0 and f(want) == 0:
            continue  # minNum of -0 and +0 may be either
        assert same(got, want), (name, [hex(w) for w in words], hex(got), hex(want))


def test_fma_rounds_once():
    """(1 + 2^-23)(1 - 2^-23) - 1 is -2^-46 exactly: rounded after the product it is 0."""
    x, y, z = b(F(1 + 2**-23)), b(F(1 - 2**-23)), b(F(-1))
    body = "%r = OpExtInst %float %glsl Fma %a %b %c\n%out = OpBitcast %uint %r"
    assert f(run(body, (x, y, z))) == F(-(2**-46))
    assert b(F(1 + 2**-23) * F(1 - 2**-23) + F(-1)) == 0  # what two roundings give


CONVERSIONS = [
    ("%r = OpConvertSToF %float %ia\n%out = OpBitcast %uint %r", lambda w: b(F(np.int32(np.uint32(w).view(np.int32))))),
    ("%r = OpConvertUToF %float %w0\n%out = OpBitcast %uint %r", lambda w: b(F(np.uint32(w)))),
]


@pytest.mark.parametrize("index", range(len(CONVERSIONS)))
def test_integer_to_float_rounds_to_nearest_even(index):
    body, oracle = CONVERSIONS[index]
    rng = random.Random(index)
    for w in [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x01000001, 0x01000003] + [
        rng.getrandbits(32) for _ in range(8)
    ]:
        assert run(body, (w,)) == oracle(w), hex(w)


def test_float_to_integer_truncates_and_refuses_out_of_range():
    to_s = "%r = OpConvertFToS %int %a\n%out = OpBitcast %uint %r"
    to_u = "%out = OpConvertFToU %uint %a"
    for x in (2.75, -2.75, 0.0, -0.5, 2147483520.0, -2147483648.0):
        assert run(to_s, (b(F(x)),)) == int(np.trunc(x)) & 0xFFFFFFFF, x
    assert run(to_u, (b(F(4294967040.0)),)) == 4294967040
    for x, body in ((np.nan, to_s), (2147483648.0, to_s), (-1.0, to_u), (np.inf, to_u)):
        with pytest.raises(InputError, match="undefined"):
            run(body, (b(F(x)),))


def test_float_constants_and_vectors_from_glsl():
    """glslang's float constants, a vec2 dot product and min/max, through the GLSL path."""
    source = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { float f[4]; uint out_bits; };
void main() {
    vec2 v = vec2(f[0], f[1]) * 0.5;
    f[2] = dot(v, vec2(3.0, -1.0));
    f[3] = max(min(f[2], 10.0), f[1]);
    out_bits = floatBitsToUint(f[2]) ^ 1u;
}
"""
    kernel = load_kernel(source.encode(), "f.comp", "glsl")
    init = [("f", 0, b(F(5.0))), ("f", 1, b(F(2.25)))]
    (memory,) = terminal_memories(system(kernel.module, 1, {}, init), None, None)
    cells = dict(memory)
    v = (F(5.0) * F(0.5), F(2.25) * F(0.5))
    d = F(v[0] * F(3.0)) + F(v[1] * F(-1.0))
    assert cells["f[2]"] == b(d) and cells["f[3]"] == b(max(min(d, F(10)), F(2.25)))
    assert cells["out_bits"] == b(d) ^ 1


def test_16_bit_floats_and_transcendentals_are_refused_by_name():
    source = """#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { float f[2]; };
void main() { f[1] = exp(f[0]) + float(float16_t(f[0])); }
"""
    with pytest.raises(InputError) as refused:
        load_kernel(source.encode(), "f.comp", "glsl")
    text = str(refused.value)
    assert "Exp of GLSL.std.450 is not supported" in text and "16-bit floats" in text


DOUBLES = """#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { double d[4]; float f; uint bits[2]; };
void main() {
    double x = d[0] * d[1] + d[2];
    d[3] = fma(d[0], d[1], d[2]) - x;
    f = float(d[0] / 3.0lf);
    uint64_t root = doubleBitsToUint64(sqrt(d[1]));
    bits[0] = uint(root);
    bits[1] = uint(root >> 32);
}
"""


def test_64_bit_floats_are_ieee_binary64():
    """Python's float is binary64: the oracle. `fma` rounds once, so d[3] is the product's
    rounding error; `float()` of a double rounds once to binary32 (numpy's cast)."""
    a, b2, c = 1 + 2**-30, 1 - 2**-30, -1.0
    init = [("d", i, floats.pattern(v, 64)) for i, v in enumerate((a, b2, c))]  # a 64-bit cell's --init
    kernel = load_kernel(DOUBLES.encode(), "d.comp", "glsl")
    (memory,) = terminal_memories(system(kernel.module, 1, {}, init), None, None)
    cells = dict(memory)
    x = a * b2 + c
    got = floats.value(cells["d[3]"] | cells["d[3]:hi"] << 32, 64)
    assert got == float(Fraction(a) * Fraction(b2) + Fraction(c)) - x == -(2**-60)
    assert cells["f"] == b(F(a / 3.0))
    assert cells["bits[0]"] | cells["bits[1]"] << 32 == floats.pattern(math.sqrt(b2), 64)


DOUBLE_EDGES = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 5e-324, 1.7976931348623157e308, 0.1, 3.0, -2.5]


@pytest.mark.parametrize("op", sorted(BINARY) + sorted(COMPARE))
def test_binary64_tables_against_numpy_float64(op):
    """The binary64 tables the interpreter picks for doubles (end to end: the kernel above)."""
    table = floats.WIDTHS[64].binary
    for x in DOUBLE_EDGES:
        for y in DOUBLE_EDGES:
            got = table[op](floats.pattern(x, 64), floats.pattern(y, 64))
            with np.errstate(all="ignore"):
                if op in COMPARE:
                    assert got == int(bool(COMPARE[op](np.float64(x), np.float64(y)))), (op, x, y)
                    continue
                want = floats.pattern(float(BINARY[op](np.float64(x), np.float64(y))), 64)
            assert got == want or (math.isnan(floats.value(got, 64)) and math.isnan(floats.value(want, 64))), (op, x, y)


FLOAT_ATOMICS = """#version 450
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_float2 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { float sum; float lo; float hi; };
void main() {
    float mine = gl_WorkGroupID.x == 0u ? 1.5 : -2.25;
    atomicAdd(sum, mine);
    atomicMin(lo, mine);
    atomicMax(hi, mine);
}
"""


def test_float_atomics_add_min_and_max():
    """OpAtomicFAddEXT/FMinEXT/FMaxEXT (GL_EXT_shader_atomic_float, float2): one step each, the
    add rounded once, min and max as IEEE minNum/maxNum (lo starts as a NaN, which loses)."""
    kernel = load_kernel(FLOAT_ATOMICS.encode(), "fa.comp", "glsl")
    init = [("sum", None, b(F(0.25))), ("lo", None, 0x7FC00000), ("hi", None, b(F(-8.0)))]
    finals = {tuple(sorted(dict(m).items())) for m in terminal_memories(system(kernel.module, 2, {}, init), None, None)}
    assert finals == {(("hi", b(F(1.5))), ("lo", b(F(-2.25))), ("sum", b(F(0.25) + F(1.5) + F(-2.25))))}
