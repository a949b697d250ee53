"""The interpreter's test encoding, as numbers and as kernel text (CUDA C and WGSL).

An instruction is one unsigned 32-bit word; `FIELDS` lists (name, shift,
bits). `progress.gpu.encode` writes words, the kernels read them with the
expressions of `decode`, so the three agree by
construction (tests/test_gpu_interp.py checks the round trip).

    bits  0..6   loc     the location's cell in its instance (0..127)
    bits  7..14  target  0..255 (the thread's length means `end`)
    bit   15     xchg    1: exchange `val` in
    bits 16..23  cmp     0..255
    bits 24..31  val     0..255
"""

from __future__ import annotations

FIELDS = (("loc", 0, 7), ("target", 7, 8), ("xchg", 15, 1), ("cmp", 16, 8), ("val", 24, 8))
MAX_LOCATIONS = 1 << 7
MAX_LENGTH = (1 << 8) - 1
"""Instructions per thread: a target (0..length) must fit 8 bits."""
MAX_VALUE = (1 << 8) - 1
MAX_THREADS = 65532
"""Threads per test: the paper's workgroup budget holds one instance of it."""


def decode(word: str) -> dict[str, str]:
    """An expression per field of the unsigned word named `word`, in the
    syntax CUDA C and WGSL share (`(w >> 7u) & 255u`)."""
    return {name: f"(({word} >> {shift}u) & {(1 << bits) - 1}u)" for name, shift, bits in FIELDS}
