"""Every integer and boolean instruction of SPIR-V's core grammar and of GLSL.std.450,
walked from spirv-headers' machine-readable grammars: each is executed by the kernel
interpreter, checked end to end (assembled, validated, run as a one-invocation kernel
that reads its operands from a buffer and stores its result) against an evaluation
written here independently (numpy's 32-bit arithmetic or a formula on the bits as a
string), or refused before anything runs, by name."""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from kernel_helpers import system
from test_spirv_buffer_reference import EXECUTED as POINTER_EXECUTED
from test_spirv_floats import EXECUTED as FLOAT_EXECUTED

from progress.cli.kernel import terminal_memories
from progress.errors import InputError
from progress.front.spirv import floats, subset
from progress.front.spirv.grammar import EXT_FILES, GRAMMAR_DIR, core_grammar
from progress.front.spirv.ir import Id, Instruction, Module
from progress.front.spirv.load import load_kernel
from progress.front.spirv.values import GLSL_STD

MASK = 0xFFFFFFFF
CLASSES = ("Arithmetic", "Bit", "Relational_and_Logical", "Conversion", "Composite", "Reserved")
"""The grammar's instruction classes that hold integer and boolean computation (Reserved:
vendors' extensions, INTEL's integer functions among them)."""


def u32(x) -> int:
    return int(x) & MASK


def s32(x: int) -> int:
    return int(np.array(x & MASK, dtype=np.uint32).view(np.int32))


def bits(x: int) -> str:
    """x's 32 bits, bit 31 first."""
    return format(x & MASK, "032b")


def from_bits(text: str) -> int:
    return int(text, 2) if text else 0


def np_u(op, a, b) -> int:
    with np.errstate(over="ignore"):
        return u32(op(np.uint32(a), np.uint32(b)))


def np_s(op, a, b) -> int:
    with np.errstate(over="ignore"):
        return u32(op(np.int32(s32(a)), np.int32(s32(b))))


def extract(base: int, offset: int, count: int, signed: bool) -> int:
    field = bits(base)[32 - offset - count : 32 - offset] if count else ""
    if signed and field:
        field = field[0] * (32 - count) + field
    return from_bits(field)


def insert(base: int, ins: int, offset: int, count: int) -> int:
    text = bits(base)
    new = bits(ins)[32 - count :] if count else ""
    return from_bits(text[: 32 - offset - count] + new + text[32 - offset :])


def msb(x: int) -> int:
    return u32(31 - bits(x).find("1")) if "1" in bits(x) else MASK


def smsb(x: int) -> int:
    text = bits(x)
    differs = [i for i, c in enumerate(text) if c != text[0]]
    return u32(31 - differs[0]) if differs else MASK


def dot(xs, ys, sx: bool, sy: bool, acc: int | None = None) -> int:
    total = sum((s32(x) if sx else x) * (s32(y) if sy else y) for x, y in zip(xs, ys))
    if acc is not None:
        low, high = (-(2**31), 2**31 - 1) if sx or sy else (0, MASK)
        total = min(max(total + (s32(acc) if sx or sy else acc), low), high)
    return u32(total)


def packed(word: int, signed: bool) -> list[int]:
    parts = [word >> shift & 0xFF for shift in (0, 8, 16, 24)]
    return [p - 256 if signed and p >= 128 else p for p in parts]


def pdot(a: int, b: int, sa: bool, sb: bool, acc: int | None = None) -> int:
    total = sum(x * y for x, y in zip(packed(a, sa), packed(b, sb)))
    if acc is not None:
        low, high = (-(2**31), 2**31 - 1) if sa or sb else (0, MASK)
        total = min(max(total + (s32(acc) if sa or sb else acc), low), high)
    return u32(total)


@dataclass(frozen=True)
class Case:
    """An instruction with operands of `kinds` ("u" uint, "i" int, "b" bool, "v2u", "v2i", "v2b",
    "pf" the PackedVectorFormat4x8Bit literal) and a result of `result` ("u", "i", "b", "v2u",
    "s2u" a struct of two uints, "s2v2u" of two uvec2); `oracle` maps the operands (32-bit
    patterns, vectors as lists) to the stored words."""

    opcode: str
    kinds: tuple[str, ...]
    result: str
    oracle: object
    samples: tuple[tuple[int, ...], ...] | None = None
    ext: str | None = None  # a GLSL.std.450 instruction's name


EDGES = (0, 1, 2, 7, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 12345, 0xDEADBEEF)


def cases() -> list[Case]:
    """The instructions the interpreter executes, each with its independent evaluation."""
    v = lambda f: lambda a, b: [f(x, y) for x, y in zip(a, b)]  # noqa: E731
    field = tuple(
        (b, i, o, c)
        for b, i in ((0xDEADBEEF, 0x5A5A5A5A), (0, MASK), (0x80000001, 3))
        for o, c in ((0, 0), (0, 32), (4, 8), (31, 1), (16, 16), (1, 30), (5, 0))
    )
    return [
        Case("OpBitCount", ("u",), "u", lambda a: bits(a).count("1")),
        Case("OpBitReverse", ("u",), "u", lambda a: from_bits(bits(a)[::-1])),
        Case(
            "OpBitFieldUExtract",
            ("u", "u", "u"),
            "u",
            lambda b, o, c: extract(b, o, c, False),
            tuple(s[::2] + (s[3],) for s in field),
        ),
        Case(
            "OpBitFieldSExtract",
            ("i", "u", "u"),
            "i",
            lambda b, o, c: extract(b, o, c, True),
            tuple(s[::2] + (s[3],) for s in field),
        ),
        Case("OpBitFieldInsert", ("u", "u", "u", "u"), "u", insert, field),
        Case("OpAll", ("v2b",), "b", lambda a: int(all(a))),
        Case("OpAny", ("v2b",), "b", lambda a: int(any(a))),
        Case("OpIAddCarry", ("u", "u"), "s2u", lambda a, b: [u32(a + b), int(a + b > MASK)]),
        Case("OpISubBorrow", ("u", "u"), "s2u", lambda a, b: [u32(a - b), int(b > a)]),
        Case("OpUMulExtended", ("u", "u"), "s2u", lambda a, b: [u32(a * b), u32((a * b) >> 32)]),
        Case("OpSMulExtended", ("i", "i"), "s2i", lambda a, b: [u32(s32(a) * s32(b)), u32((s32(a) * s32(b)) >> 32)]),
        Case(
            "OpIAddCarry",
            ("v2u", "v2u"),
            "s2v2u",
            lambda a, b: [u32(a[0] + b[0]), u32(a[1] + b[1]), int(a[0] + b[0] > MASK), int(a[1] + b[1] > MASK)],
        ),
        Case(
            "OpUDot",
            ("v2u", "v2u"),
            "u",
            lambda a, b: dot(a, b, False, False),
            ((1, 2, 3, 4), (0xFFFF, 7, 0xFFFF, 9), (0, 0, 5, 5)),
        ),
        Case(
            "OpSDot",
            ("v2i", "v2i"),
            "i",
            lambda a, b: dot(a, b, True, True),
            ((1, MASK, 3, 4), (0xFFFF, 7, 0x7FFF, u32(-9)), (u32(-7), 2, 3, u32(-1))),
        ),
        Case("OpSUDot", ("v2i", "v2u"), "i", lambda a, b: dot(a, b, True, False), ((u32(-3), 2, 5, 7), (4, 4, 4, 4))),
        Case("OpSDot", ("u", "u", "pf"), "i", lambda a, b: pdot(a, b, True, True)),
        Case("OpUDot", ("u", "u", "pf"), "u", lambda a, b: pdot(a, b, False, False)),
        Case("OpSUDot", ("u", "u", "pf"), "i", lambda a, b: pdot(a, b, True, False)),
        Case("OpSDotAccSat", ("u", "u", "i", "pf"), "i", lambda a, b, c: pdot(a, b, True, True, c)),
        Case("OpUDotAccSat", ("u", "u", "u", "pf"), "u", lambda a, b, c: pdot(a, b, False, False, c)),
        Case("OpSUDotAccSat", ("u", "u", "i", "pf"), "i", lambda a, b, c: pdot(a, b, True, False, c)),
        Case(
            "OpUDotAccSat",
            ("v2u", "v2u", "u"),
            "u",
            lambda a, b, c: dot(a, b, False, False, c),
            ((1, 2, 3, 4, MASK - 5), (0, 0, 0, 0, 9), (0xFFFF, 0xFFFF, 1, 1, 0xFFFFFFF0)),
        ),
        Case("OpVectorExtractDynamic", ("v2u", "u"), "u", lambda a, i: a[i], ((5, 9, 0), (5, 9, 1))),
        Case(
            "OpVectorInsertDynamic",
            ("v2u", "u", "u"),
            "v2u",
            lambda a, x, i: [x if k == i else a[k] for k in (0, 1)],
            ((5, 9, 7, 0), (5, 9, 7, 1)),
        ),
        Case("OpCopyObject", ("v2u",), "v2u", lambda a: a),
        Case("OpSNegate", ("i",), "i", lambda a: u32(-s32(a))),
        Case("OpNot", ("u",), "u", lambda a: from_bits("".join("1" if c == "0" else "0" for c in bits(a)))),
        Case("OpIAdd", ("u", "u"), "u", lambda a, b: np_u(np.add, a, b)),
        Case("OpISub", ("u", "u"), "u", lambda a, b: np_u(np.subtract, a, b)),
        Case("OpIMul", ("u", "u"), "u", lambda a, b: np_u(np.multiply, a, b)),
        Case("OpIAdd", ("v2u", "v2u"), "v2u", v(lambda a, b: np_u(np.add, a, b))),
        Case(
            "OpUDiv",
            ("u", "u"),
            "u",
            lambda a, b: np_u(np.floor_divide, a, b),
            tuple((a, b) for a in EDGES for b in EDGES if b),
        ),
        Case(
            "OpUMod", ("u", "u"), "u", lambda a, b: np_u(np.mod, a, b), tuple((a, b) for a in EDGES for b in EDGES if b)
        ),
        Case(
            "OpSDiv",
            ("i", "i"),
            "i",
            lambda a, b: u32(int(s32(a) / s32(b))),
            tuple((a, b) for a in EDGES for b in EDGES if b and not (a == 0x80000000 and b == MASK)),
        ),
        Case(
            "OpSRem",
            ("i", "i"),
            "i",
            lambda a, b: np_s(np.fmod, a, b),
            tuple((a, b) for a in EDGES for b in EDGES if b and not (a == 0x80000000 and b == MASK)),
        ),
        Case(
            "OpSMod",
            ("i", "i"),
            "i",
            lambda a, b: np_s(np.mod, a, b),
            tuple((a, b) for a in EDGES for b in EDGES if b and not (a == 0x80000000 and b == MASK)),
        ),
        Case(
            "OpShiftLeftLogical",
            ("u", "u"),
            "u",
            lambda a, b: from_bits((bits(a) + "0" * b)[b:]),
            tuple((a, b) for a in EDGES for b in (0, 1, 5, 31)),
        ),
        Case(
            "OpShiftRightLogical",
            ("u", "u"),
            "u",
            lambda a, b: from_bits(("0" * b + bits(a))[:32]),
            tuple((a, b) for a in EDGES for b in (0, 1, 5, 31)),
        ),
        Case(
            "OpShiftRightArithmetic",
            ("i", "u"),
            "i",
            lambda a, b: from_bits((bits(a)[0] * b + bits(a))[:32]),
            tuple((a, b) for a in EDGES for b in (0, 1, 5, 31)),
        ),
        Case("OpBitwiseAnd", ("u", "u"), "u", lambda a, b: np_u(np.bitwise_and, a, b)),
        Case("OpBitwiseOr", ("u", "u"), "u", lambda a, b: np_u(np.bitwise_or, a, b)),
        Case("OpBitwiseXor", ("u", "u"), "u", lambda a, b: np_u(np.bitwise_xor, a, b)),
        Case("OpIEqual", ("u", "u"), "b", lambda a, b: int(a == b)),
        Case("OpINotEqual", ("u", "u"), "b", lambda a, b: int(a != b)),
        Case("OpULessThan", ("u", "u"), "b", lambda a, b: int(np.uint32(a) < np.uint32(b))),
        Case("OpULessThanEqual", ("u", "u"), "b", lambda a, b: int(np.uint32(a) <= np.uint32(b))),
        Case("OpUGreaterThan", ("u", "u"), "b", lambda a, b: int(np.uint32(a) > np.uint32(b))),
        Case("OpUGreaterThanEqual", ("u", "u"), "b", lambda a, b: int(np.uint32(a) >= np.uint32(b))),
        Case("OpSLessThan", ("i", "i"), "b", lambda a, b: int(np.int32(s32(a)) < np.int32(s32(b)))),
        Case("OpSLessThanEqual", ("i", "i"), "b", lambda a, b: int(np.int32(s32(a)) <= np.int32(s32(b)))),
        Case("OpSGreaterThan", ("i", "i"), "b", lambda a, b: int(np.int32(s32(a)) > np.int32(s32(b)))),
        Case("OpSGreaterThanEqual", ("i", "i"), "b", lambda a, b: int(np.int32(s32(a)) >= np.int32(s32(b)))),
        Case("OpLogicalAnd", ("b", "b"), "b", lambda a, b: int(bool(a) and bool(b))),
        Case("OpLogicalOr", ("b", "b"), "b", lambda a, b: int(bool(a) or bool(b))),
        Case("OpLogicalEqual", ("b", "b"), "b", lambda a, b: int(bool(a) == bool(b))),
        Case("OpLogicalNotEqual", ("b", "b"), "b", lambda a, b: int(bool(a) != bool(b))),
        Case("OpLogicalNot", ("b",), "b", lambda a: int(not a)),
        Case("OpSelect", ("b", "u", "u"), "u", lambda c, a, b: a if c else b),
        Case("OpSelect", ("v2b", "v2u", "v2u"), "v2u", lambda c, a, b: [x if k else y for k, x, y in zip(c, a, b)]),
        Case("OpBitcast", ("i",), "u", lambda a: a),
        Case("OpCompositeConstruct", ("u", "u"), "v2u", lambda a, b: [a, b]),
        Case("OpExtInst", ("i",), "i", lambda a: u32(abs(s32(a))), ext="SAbs"),
        Case("OpExtInst", ("i",), "i", lambda a: u32(np.sign(s32(a))), ext="SSign"),
        Case("OpExtInst", ("u", "u"), "u", lambda a, b: min(a, b), ext="UMin"),
        Case("OpExtInst", ("u", "u"), "u", lambda a, b: max(a, b), ext="UMax"),
        Case("OpExtInst", ("i", "i"), "i", lambda a, b: u32(min(s32(a), s32(b))), ext="SMin"),
        Case("OpExtInst", ("i", "i"), "i", lambda a, b: u32(max(s32(a), s32(b))), ext="SMax"),
        Case(
            "OpExtInst",
            ("u", "u", "u"),
            "u",
            lambda x, lo, hi: min(max(x, lo), hi),
            ext="UClamp",
            samples=tuple((x, lo, hi) for x in EDGES for lo, hi in ((0, 5), (7, 0x80000000), (2, 2))),
        ),
        Case(
            "OpExtInst",
            ("i", "i", "i"),
            "i",
            lambda x, lo, hi: u32(min(max(s32(x), s32(lo)), s32(hi))),
            ext="SClamp",
            samples=tuple((x, u32(lo), u32(hi)) for x in EDGES for lo, hi in ((0, 5), (-7, 7), (-1, -1))),
        ),
        Case("OpExtInst", ("u",), "u", lambda a: u32(bits(a)[::-1].find("1")) if a else MASK, ext="FindILsb"),
        Case("OpExtInst", ("u",), "u", msb, ext="FindUMsb"),
        Case("OpExtInst", ("i",), "i", smsb, ext="FindSMsb"),
        Case("OpCompositeExtract", ("v2u", "=1"), "u", lambda a: a[1]),
        Case("OpCompositeInsert", ("u", "v2u", "=0"), "v2u", lambda x, a: [x, a[1]]),
        Case("OpVectorShuffle", ("v2u", "v2u", "=3", "=0"), "v2u", lambda a, b: [b[1], a[0]]),
        Case("OpCopyLogical", ("s2u",), "s2ub", lambda a: a),
    ]


TYPES = {
    "u": "%uint",
    "i": "%int",
    "b": "%bool",
    "v2u": "%v2uint",
    "v2i": "%v2int",
    "v2b": "%v2bool",
    "s2u": "%s2u",
    "s2ub": "%s2ub",
    "s2i": "%s2i",
    "s2v2u": "%s2v2u",
}
WIDTH = {"u": 1, "i": 1, "b": 1, "v2u": 2, "v2i": 2, "v2b": 2, "s2u": 2, "pf": 0}


def width(kind: str) -> int:
    return 0 if kind.startswith("=") else WIDTH[kind]


HEAD = """OpCapability Shader
OpCapability DotProduct
OpCapability DotProductInputAll
OpCapability DotProductInput4x8BitPacked
OpExtension "SPV_KHR_integer_dot_product"
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
%bool = OpTypeBool
%v2uint = OpTypeVector %uint 2
%v2int = OpTypeVector %int 2
%v2bool = OpTypeVector %bool 2
%s2u = OpTypeStruct %uint %uint
%s2ub = OpTypeStruct %uint %uint
%s2i = OpTypeStruct %int %int
%s2v2u = OpTypeStruct %v2uint %v2uint
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u8 = OpConstant %uint 8
%arr = OpTypeArray %uint %u8
%B = OpTypeStruct %arr %arr
%pB = OpTypePointer StorageBuffer %B
%pu = OpTypePointer StorageBuffer %uint
%buf = OpVariable %pB StorageBuffer
{constants}%main = OpFunction %void None %fn
%entry = OpLabel
{body}OpReturn
OpFunctionEnd
"""


def kernel_text(case: Case) -> str:
    """A kernel reading the operands from inp[], storing the result's words to out[]."""
    constants = "".join(f"%k{i} = OpConstant %uint {i}\n" for i in range(8))
    body: list[str] = []
    word = 0
    operands = []
    for n, kind in enumerate(case.kinds):
        if kind == "pf" or kind.startswith("="):
            operands.append("PackedVectorFormat4x8Bit" if kind == "pf" else kind[1:])
            continue
        parts = []
        for _ in range(WIDTH[kind]):
            body += [f"%p{word} = OpAccessChain %pu %buf %u0 %k{word}", f"%w{word} = OpLoad %uint %p{word}"]
            scalar = {"u": "%uint", "i": "%int", "b": "%bool"}[kind[-1] if kind != "s2u" else "u"]
            if scalar == "%int":
                body.append(f"%c{word} = OpBitcast %int %w{word}")
            elif scalar == "%bool":
                body.append(f"%c{word} = OpINotEqual %bool %w{word} %u0")
            else:
                body.append(f"%c{word} = OpCopyObject %uint %w{word}")
            parts.append(f"%c{word}")
            word += 1
        if width(kind) == 2:
            body.append(f"%a{n} = OpCompositeConstruct {TYPES[kind]} {' '.join(parts)}")
            operands.append(f"%a{n}")
        else:
            operands.append(parts[0])
    result_type = TYPES[case.result]
    if case.ext:
        body.append(f"%r = OpExtInst {result_type} %glsl {case.ext} {' '.join(operands)}")
    else:
        body.append(f"%r = {case.opcode} {result_type} {' '.join(operands)}")
    body += _stores(case.result)
    return HEAD.format(constants=constants, body="\n".join(body) + "\n")


def _stores(result: str) -> list[str]:
    words = {"u": ["%r"], "i": ["%r"], "b": ["%r"]}.get(result)
    lines: list[str] = []
    if words is None:
        paths = {"s2v2u": ["0 0", "0 1", "1 0", "1 1"]}.get(result, ["0", "1"])
        scalar = "%int" if result == "s2i" else "%uint"
        words = []
        for k, path in enumerate(paths):
            lines.append(f"%e{k} = OpCompositeExtract {scalar} %r {path}")
            words.append(f"%e{k}")
    for k, word in enumerate(words):
        lines.append(f"%o{k} = OpAccessChain %pu %buf %u1 %k{k}")
        if result == "b":
            lines += [f"%sel{k} = OpSelect %uint {word} %u1 %u0", f"OpStore %o{k} %sel{k}"]
        elif result in ("i", "s2i"):
            lines += [f"%cast{k} = OpBitcast %uint {word}", f"OpStore %o{k} %cast{k}"]
        else:
            lines.append(f"OpStore %o{k} {word}")
    return lines


@cache
def module_of(text: str) -> Module:
    """The kernel through the front end; OpCopyLogical (SPIR-V 1.4) assembled here at 1.4
    and read as a binary (the toolchain assembles SPIR-V 1.3), its buffer in the interface."""
    if "OpCopyLogical" not in text:
        return load_kernel(text.encode(), "op.spvasm", "spvasm").module
    with tempfile.TemporaryDirectory() as work:
        source, binary = Path(work) / "op.spvasm", Path(work) / "op.spv"
        source.write_text(text.replace('"main"\n', '"main" %buf\n', 1))
        subprocess.run(["spirv-as", "--target-env", "spv1.4", str(source), "-o", str(binary)], check=True)
        return load_kernel(binary.read_bytes(), "op.spv", "spv").module


def samples(case: Case) -> list[tuple[int, ...]]:
    """The case's own, else 12 of EDGES (booleans: zero or not) and 4 random words, seeded by the case."""
    if case.samples is not None:
        return list(case.samples)
    rng = random.Random(case.opcode + (case.ext or "") + "".join(case.kinds))
    choices = [(0, 1, 0, 5) if kind.endswith("b") else EDGES for kind in case.kinds for _ in range(width(kind))]
    edge = [tuple(rng.choice(options) for options in choices) for _ in range(12)]
    return edge + [tuple(rng.getrandbits(32) for _ in choices) for _ in range(4)]


def expected(case: Case, words: tuple[int, ...]) -> list[int]:
    args, at = [], 0
    for kind in case.kinds:
        if not width(kind):
            continue
        part = list(words[at : at + width(kind)])
        if kind[-1] == "b":
            part = [int(w != 0) for w in part]
        args.append(part if width(kind) == 2 else part[0])
        at += width(kind)
    value = case.oracle(*args)  # type: ignore[operator]
    return [u32(w) for w in (value if isinstance(value, list) else [value])]


def run(case: Case, words: tuple[int, ...]) -> list[int]:
    init = [("inp", i, w) for i, w in enumerate(words)]
    (memory,) = terminal_memories(system(module_of(kernel_text(case)), 1, {}, init), None, None)
    stored = dict(memory)
    return [stored[f"out[{k}]"] for k in range(len(expected(case, words)))]


CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.ext or c.opcode}({','.join(c.kinds)})")
def test_executed_as_the_independent_evaluation_says(case):
    for words in samples(case):
        assert run(case, words) == expected(case, words), (case.opcode, case.ext, [hex(w) for w in words])


@cache
def grammar_classes() -> dict[str, str]:
    """Instruction name -> its class, from spirv-headers' core grammar (aliases by their opcode's name)."""
    data = json.loads((GRAMMAR_DIR / "spirv.core.grammar.json").read_text())
    names = {spec.opcode: spec.name for spec in core_grammar().instructions.values()}
    return {names[entry["opcode"]]: entry["class"] for entry in data["instructions"]}


def test_every_integer_and_boolean_instruction_is_executed_or_refused_by_name():
    """The walk: an instruction of these classes is in the supported subset only with an
    end-to-end case above; every other one is refused before running, its name first."""
    walked = sorted(name for name, kind in grammar_classes().items() if kind in CLASSES)
    executed = {c.opcode for c in CASES if not c.ext} | WIDTH_CHANGING | FLOAT_EXECUTED | POINTER_EXECUTED
    view = module_of(kernel_text(CASES[0])).view
    refused = []
    for name in walked:
        if name in subset.SUPPORTED:
            assert name in executed, f"{name} is in the subset but no case executes it"
            continue
        reason = subset._instruction_problem(Instruction(name, None, None, (), 0), view)
        assert reason, f"{name} is neither executed nor refused"
        refused.append(name)
    assert len(walked) > 100 and len(executed) >= 60
    assert {"OpIsNormal", "OpQuantizeToF16", "OpTranspose"} <= set(refused)


WIDTH_CHANGING = {"OpUConvert", "OpSConvert"}
"""In the subset, but every valid use changes the width: 32 to 64 bits and back are executed
(tests/test_spirv_int64.py), 8 and 16 refused (below)."""


@pytest.mark.parametrize("opcode", sorted(WIDTH_CHANGING))
def test_a_conversion_to_another_width_is_refused_by_name(opcode):
    text = kernel_text(Case("OpIAdd", ("u", "u"), "u", None)).replace(
        "%r = OpIAdd %uint %c0 %c1", "%r = OpIAdd %uint %c0 %c1\n%short = " + opcode + " %ushort %r"
    )
    text = text.replace("%bool = OpTypeBool", "%bool = OpTypeBool\n%ushort = OpTypeInt 16 0").replace(
        "OpCapability Shader\n", "OpCapability Shader\nOpCapability Int16\n"
    )
    with pytest.raises(InputError) as caught:
        load_kernel(text.encode(), "op.spvasm", "spvasm")
    assert f"{opcode}: 16-bit integers: only 32- and 64-bit integers are supported" in caught.value.render()


def test_every_glsl_std_450_instruction_is_executed_or_refused_by_name():
    data = json.loads((GRAMMAR_DIR / EXT_FILES["GLSL.std.450"]).read_text())
    names = [entry["opname"] for entry in data["instructions"]]
    executed = {c.ext for c in CASES if c.ext}
    view = module_of(kernel_text(CASES[0])).view
    glsl = next(ident for ident, name in view.ext_imports.items() if name == "GLSL.std.450")
    for name in names:
        if name in GLSL_STD:
            assert name in executed, f"{name} is executed but no case checks it"
            continue
        if name in floats.GLSL_STD:  # on 32-bit floats: tests/test_spirv_floats.py checks each
            continue
        inst = Instruction("OpExtInst", 1, 2, (Id(glsl), name), 0)
        reason = subset._instruction_problem(inst, view)
        assert reason is not None and reason.startswith(f"{name} of GLSL.std.450 is not supported"), name
    assert executed == set(GLSL_STD) and len(names) > 70


@pytest.mark.parametrize(
    "case, words, message",
    [
        (Case("OpBitFieldUExtract", ("u", "u", "u"), "u", None), (1, 30, 3), "a bit field of 3 bits at offset 30"),
        (Case("OpBitFieldInsert", ("u", "u", "u", "u"), "u", None), (1, 2, 33, 0), "at offset 33 goes past bit 31"),
        (Case("OpSDot", ("v2i", "v2i"), "i", None), (MASK >> 1, MASK >> 1, 2, 2), "does not fit the 32-bit result"),
        (Case("OpVectorExtractDynamic", ("v2u", "u"), "u", None), (1, 2, 2), "index 2 is out of bounds of a vector"),
    ],
)
def test_undefined_results_are_errors_of_the_kernel_at_their_line(case, words, message):
    with pytest.raises(InputError, match=message) as caught:
        run(case, words)
    assert "op.spvasm:" in str(caught.value)


def test_a_refused_instruction_is_named_at_its_line_end_to_end():
    text = kernel_text(Case("OpIAdd", ("u", "u"), "u", None)).replace("%r = OpIAdd", "%r = OpIAverageINTEL")
    text = text.replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability IntegerFunctions2INTEL\n")
    text = text.replace("OpExtension", 'OpExtension "SPV_INTEL_shader_integer_functions2"\nOpExtension')
    with pytest.raises(InputError) as caught:
        load_kernel(text.encode(), "op.spvasm", "spvasm")
    assert "OpIAverageINTEL" in caught.value.render()
