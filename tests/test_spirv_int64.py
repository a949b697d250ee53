"""64-bit integers in kernels: values of 64 bits in registers, two 32-bit cells (low word
first) in memory, every operation wrapping at 64 bits; checked against Python's integers
masked to 64 bits, an evaluation written here."""

from __future__ import annotations

import random

import pytest
from kernel_helpers import system, verdicts

from progress.cli.kernel import terminal_memories
from progress.errors import InputError
from progress.front.spirv.load import load_kernel

M64 = (1 << 64) - 1

SOURCE = """#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B {
    uint64_t a; uint64_t b; int64_t s; uint small; uint64_t out64[16]; uint out32[4];
};
void main() {
    out64[0] = a + b;
    out64[1] = a - b;
    out64[2] = a * b;
    out64[3] = b == 0ul ? 7ul : a / b;
    out64[4] = b == 0ul ? 7ul : a % b;
    out64[5] = a << (small & 63u);
    out64[6] = a >> (small & 63u);
    out64[7] = uint64_t(s >> (small & 63u));
    out64[8] = uint64_t(s / int64_t(b | 1ul));
    out64[9] = (a < b ? 1ul : 0ul) | (s < int64_t(-5) ? 2ul : 0ul) | (a >= b ? 4ul : 0ul);
    out64[10] = uint64_t(small);
    out64[11] = uint64_t(int64_t(int(small)));
    out64[12] = ~a ^ b;
    out64[13] = min(a, b) + uint64_t(max(s, int64_t(b)));
    uvec2 halves = unpackUint2x32(a);
    out32[0] = halves.x;
    out32[1] = halves.y;
    out32[2] = uint(b);
    out64[14] = packUint2x32(uvec2(small, halves.x));
    out64[15] = uint64_t(int(b));
}
"""


def signed64(x: int) -> int:
    return x - (1 << 64) if x >> 63 else x


def trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def expected(a: int, b: int, s: int, small: int) -> list[int]:
    k = small & 63
    ss = signed64(s)
    low32 = b & 0xFFFFFFFF
    return [
        (a + b) & M64,
        (a - b) & M64,
        (a * b) & M64,
        7 if b == 0 else a // b,
        7 if b == 0 else a % b,
        (a << k) & M64,
        a >> k,
        (ss >> k) & M64,
        trunc_div(ss, signed64(b | 1)) & M64,
        (1 if a < b else 0) | (2 if ss < -5 else 0) | (4 if a >= b else 0),
        small,
        (small - (1 << 32) if small >> 31 else small) & M64,
        (~a ^ b) & M64,
        (min(a, b) + max(ss, signed64(b))) & M64,
        small | (a & 0xFFFFFFFF) << 32,
        (low32 - (1 << 32) if low32 >> 31 else low32) & M64,
    ]


def run(a: int, b: int, s: int, small: int) -> tuple[list[int], list[int]]:
    kernel = load_kernel(SOURCE.encode(), "w.comp", "glsl")
    init = [("a", None, a), ("b", None, b), ("s", None, s), ("small", None, small)]
    (memory,) = terminal_memories(system(kernel.module, 1, {}, init), None, None)
    cells = dict(memory)
    wide = [cells[f"out64[{i}]"] | cells[f"out64[{i}]:hi"] << 32 for i in range(16)]
    return wide, [cells[f"out32[{i}]"] for i in range(3)]


EDGES = [0, 1, 2, 3, 0xFFFFFFFF, 1 << 32, (1 << 63) - 1, 1 << 63, M64, 0x123456789ABCDEF0]


def test_64_bit_arithmetic_wraps_at_64_bits():
    rng = random.Random(64)
    for _ in range(10):
        a, b, s = (rng.choice(EDGES + [rng.getrandbits(64)]) for _ in range(3))
        small = rng.choice([0, 1, 31, 32, 33, 63, 0x80000000, rng.getrandbits(32)])
        wide, narrow = run(a, b, s, small)
        assert wide == expected(a, b, s, small), (hex(a), hex(b), hex(s), small)
        assert narrow == [a & 0xFFFFFFFF, a >> 32, b & 0xFFFFFFFF]


def test_a_64_bit_cell_takes_a_64_bit_init_and_refuses_more():
    wide, narrow = run(-1, 0, 0, 0)  # -1 wraps to 2^64-1, as a 32-bit cell's -1 wraps to 2^32-1
    assert narrow[:2] == [0xFFFFFFFF, 0xFFFFFFFF]
    with pytest.raises(InputError, match="does not fit in 64 bits"):
        run(1 << 64, 0, 0, 0)


ATOMIC = """#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { uint64_t counter; uint64_t flag; };
void main() {
    if (gl_WorkGroupID.x == 0u) {
        atomicAdd(counter, 0xFFFFFFFFul);
        atomicExchange(flag, 1ul << 32);
    } else {
        while (atomicAdd(flag, 0ul) != (1ul << 32)) { }
        atomicAdd(counter, 1ul);
    }
}
"""


def test_a_64_bit_atomic_is_one_step_on_both_words():
    """Workgroup 1 waits for flag's high word (a 32-bit view would never see it move); the
    counter's two adds carry into the high word whatever their order."""
    kernel = load_kernel(ATOMIC.encode(), "a.comp", "glsl")
    found = verdicts(system(kernel.module, 2))
    assert found["unfair"] is False and found["fair/weak"] is True and found["HSA/weak"] is True
    memories = terminal_memories(system(kernel.module, 2), None, None)
    assert {(m["counter"], m["counter:hi"], m["flag:hi"]) for m in map(dict, memories)} == {(0, 1, 1)}


def test_what_64_bit_values_cannot_do_is_refused_by_name():
    source = """#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { uint64_t a; };
void main() { a = subgroupAdd(a); }
"""
    with pytest.raises(InputError, match="is not supported on 64-bit values"):
        load_kernel(source.encode(), "r.comp", "glsl")


SPEC = """#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;
layout(constant_id = 0) const uint64_t BIG = 0x100000005ul;
layout(constant_id = 1) const int SMALL = -2;
const uint64_t TWICE = BIG * 2ul;
const int64_t WIDE = int64_t(SMALL);
layout(std430, binding = 0) buffer B { uint64_t big; uint64_t twice; int64_t wide; };
void main() { big = BIG; twice = TWICE; wide = WIDE; }
"""


def test_64_bit_specialization_constants_keep_their_high_word():
    """A 64-bit spec constant was cut to 32 bits when frozen, and its operations evaluated at 32."""
    kernel = load_kernel(SPEC.encode(), "s.comp", "glsl")
    (memory,) = terminal_memories(system(kernel.module, 1), None, None)
    cells = dict(memory)
    assert (cells["big"], cells["big:hi"]) == (5, 1)
    assert (cells["twice"], cells["twice:hi"]) == (10, 2)
    assert (cells["wide"], cells["wide:hi"]) == (0xFFFFFFFE, 0xFFFFFFFF)
