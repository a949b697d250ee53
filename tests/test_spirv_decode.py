"""The SPIR-V decoder against an independent oracle (spirv-dis), and on
hostile binaries: every malformed input is an InputError naming the file and
the word offset, never a traceback or a hang."""

from __future__ import annotations

import re
import struct
import subprocess
from array import array
from pathlib import Path

import pytest
from conftest import long_twin
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from spirv_gen import module_text
from spirv_oracle import disassemble, ours, same

from progress.errors import InputError, InputErrors
from progress.front.spirv import tools
from progress.front.spirv.decode import MAX_BOUND, decode
from progress.front.spirv.ir import Id
from progress.front.spirv.load import load_kernel

KERNELS = Path(__file__).parent / "data" / "kernels"
COMPILED = ("spinlock.comp", "barrier.comp", "message.comp", "spin64.comp", "ballot.comp", "image.comp")


def glslang(source: Path, out: Path, *flags: str) -> bytes:
    subprocess.run(
        ["glslangValidator", "-V", *flags, "--target-env", "vulkan1.1", str(source), "-o", str(out)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return out.read_bytes()


@pytest.fixture(scope="module")
def binaries(tmp_path_factory) -> dict[str, bytes]:
    work = tmp_path_factory.mktemp("spv")
    found = {name: glslang(KERNELS / name, work / f"{name}.spv", "-g") for name in COMPILED}
    found["lock.hlsl"] = glslang(KERNELS / "lock.hlsl", work / "lock.hlsl.spv", "-g", "-D", "-e", "main", "-S", "comp")
    found["message.comp -gV"] = glslang(KERNELS / "message.comp", work / "message.gV.spv", "-gV")
    found["spinlock.comp -g0"] = glslang(KERNELS / "spinlock.comp", work / "spinlock.g0.spv", "-g0")
    return found


def assemble(text: str, work: Path, errors: list[str] | None = None) -> bytes | None:
    (work / "m.spvasm").write_text(text, encoding="utf-8")
    argv, env = tools.command("spirv-as")  # the SPIRV-Tools of the grammar the generator draws from
    done = subprocess.run(
        [
            *argv,
            "--preserve-numeric-ids",
            "--target-env",
            "spv1.6",
            str(work / "m.spvasm"),
            "-o",
            str(work / "m.spv"),
        ],
        capture_output=True,
        timeout=60,
        env=env,
    )
    if errors is not None:
        errors.append(done.stderr.decode("utf-8", errors="replace"))
    return (work / "m.spv").read_bytes() if done.returncode == 0 else None


def known_to_the_assembler(error: str) -> bool:
    """Whether spirv-as refused assembly for a reason other than a name of the decoder's grammar
    it does not know: SPIRV-Tools 2025.5's grammar is a little older than SPIRV-Headers 1.4.335's
    (no OpTensorReadARM; CooperativeMatrixOperands' 0 is not "None"; TensorAddressingOperands)."""
    return not re.search(r"Invalid (Opcode name|.* operand|memory access)", error)


def test_compiled_kernels_decode_as_spirv_dis_reads_them(binaries, tmp_path):
    for name, binary in binaries.items():
        expected = disassemble(binary, tmp_path)
        assert expected is not None, name
        assert same(ours(decode(binary, name)), expected), name


def test_the_comparison_sees_a_difference(binaries, tmp_path):
    binary = binaries["spinlock.comp"]
    decoded = ours(decode(binary))
    changed = decoded[:3] + [(decoded[3][0], decoded[3][1], decoded[3][2][:-1])] + decoded[4:]
    assert not same(changed, disassemble(binary, tmp_path))


def test_either_byte_order(binaries):
    binary = binaries["spinlock.comp"]
    swapped = b"".join(binary[i : i + 4][::-1] for i in range(0, len(binary), 4))
    assert decode(swapped) == decode(binary)


def test_header_and_operands(binaries):
    module = decode(binaries["spinlock.comp"], "spinlock.spv")
    assert module.version == (1, 3) and module.bound > 1
    entry = next(i for i in module.instructions if i.opcode == "OpEntryPoint")
    assert entry.operands[0] == "GLCompute" and entry.operands[2] == "main"
    assert isinstance(entry.operands[1], Id)
    source = next(i for i in module.instructions if i.opcode == "OpSource")
    assert "atomicExchange(lock, 1u)" in source.operands[-1]


def _random_modules_decode_as_spirv_dis_reads_them(text, tmp_path):
    errors: list[str] = []
    binary = assemble(text, tmp_path, errors)
    assume(binary is not None or known_to_the_assembler(errors[0]))  # skip only what the grammars disagree on
    assert binary is not None, text  # the generator writes only well-formed assembly
    expected = disassemble(binary, tmp_path)
    assume(expected is not None)  # spirv-dis 2023.1 refused ImageOperands Nontemporal that spirv-as wrote
    assert same(ours(decode(binary)), expected)


test_random_modules_decode_as_spirv_dis_reads_them, test_random_modules_decode_as_spirv_dis_reads_them_in_full = (
    long_twin(
        _random_modules_decode_as_spirv_dis_reads_them,
        {"text": module_text()},
        40,
        150,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
)


@st.composite
def mutated(draw, base: bytes) -> bytes:
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        action = draw(st.sampled_from(["set", "delete", "insert", "word"]))
        if action == "set" and data:
            data[at] = draw(st.integers(0, 255))
        elif action == "delete":
            del data[at : at + draw(st.integers(1, 8))]
        elif action == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            at -= at % 4
            data[at : at + 4] = draw(st.integers(0, 2**32 - 1)).to_bytes(4, "little")
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_binaries_decode_or_fail_cleanly(data, binaries, tmp_path):
    binary = data.draw(mutated(binaries["message.comp"]))
    try:
        module = decode(binary, "m.spv")
    except InputError as error:
        assert str(error).startswith("m.spv: ")
        return
    expected = disassemble(binary, tmp_path)
    if expected is not None:  # both read it: they must read the same
        assert same(ours(module), expected)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=256))
def test_random_bytes_never_crash(data):
    try:
        decode(data, "r.spv")
    except InputError as error:
        assert str(error).startswith("r.spv: ")


def header(bound: int = 10, version: int = 0x00010300) -> list[int]:
    return [0x07230203, version, 0, bound, 0]


def pack(words: list[int]) -> bytes:
    return struct.pack(f"<{len(words)}I", *words)


CAPABILITY_SHADER = [(2 << 16) | 17, 1]
HOSTILE = {
    "empty": (b"", "shorter than the 20-byte header"),
    "truncated header": (pack(header())[:12], "shorter than the 20-byte header"),
    "odd length": (pack(header()) + b"\x01\x02", "not a whole number of 4-byte words"),
    "bad magic": (pack([0xDEADBEEF] + header()[1:]), "magic number 0xdeadbeef"),
    "version 2.0": (pack(header(version=0x00020000)), "unsupported SPIR-V version"),
    "bound 0": (pack(header(bound=0)), "id bound 0"),
    "huge bound": (pack(header(bound=2**32 - 1)), f"outside 1..{MAX_BOUND}"),
    "word count 0": (pack(header() + [17]), "word 5 (OpCapability): word count 0"),
    "count past end": (pack(header() + [(9 << 16) | 17, 1]), "runs past the end"),
    "unknown opcode": (pack(header() + [(1 << 16) | 4000]), "word 5: unknown opcode 4000"),
    "missing operand": (pack(header() + [(1 << 16) | 17]), "(OpCapability): the operands run past"),
    "left over": (pack(header() + [(3 << 16) | 17, 1, 1]), "1 word(s) left over"),
    "bad enumerant": (pack(header() + [(2 << 16) | 17, 99999]), "99999 is not a Capability value"),
    "unterminated string": (pack(header() + [(2 << 16) | 10, 0x41414141]), "(OpExtension): the operands run past"),
    "not utf-8": (pack(header() + [(2 << 16) | 10, 0x000000FF]), "not UTF-8"),
    "id 0": (pack(header() + [(3 << 16) | 21, 0, 32]), "id %0 is not in 1..9"),
    "id past bound": (pack(header() + [(2 << 16) | 19, 10]), "id %10 is not in 1..9"),
    "defined twice": (pack(header() + [(2 << 16) | 19, 3, (2 << 16) | 19, 3]), "%3 is defined more than once"),
    "constant of no type": (pack(header() + [(4 << 16) | 43, 5, 6, 1]), "%5 is not a declared integer or float"),
    "int width 0": (pack(header() + [(4 << 16) | 21, 3, 0, 0]), "OpTypeInt width 0"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_binaries(name):
    data, message = HOSTILE[name]
    with pytest.raises(InputError) as caught:
        decode(data, "bad.spv")
    assert str(caught.value).startswith("bad.spv: ")
    assert message in str(caught.value)


def test_a_64_bit_constant_takes_two_words():
    words = header() + [(4 << 16) | 21, 2, 64, 0, (5 << 16) | 43, 2, 3, 0x89ABCDEF, 0x01234567]
    constant = decode(pack(words)).instructions[-1]
    assert constant.opcode == "OpConstant" and constant.operands == (0x0123456789ABCDEF,)


def test_every_refused_instruction_is_reported_once():
    """Issue 28: the decoder went on after its first problem; an unknown opcode, a bad
    enumerant and a constant of a refused type come together (the constant not again),
    and a framing problem ends the pass with what came before it."""
    words = header() + [(1 << 16) | 4000, (2 << 16) | 17, 99999, (4 << 16) | 21, 3, 99, 0]
    words += [(4 << 16) | 43, 3, 4, 7, (1 << 16) | 4001, (9 << 16) | 17, 1]
    with pytest.raises(InputErrors) as caught:
        decode(pack(words), "bad.spv")
    assert [e.message for e in caught.value.errors] == [
        "bad.spv: word 5: unknown opcode 4000",
        "bad.spv: word 6 (OpCapability): 99999 is not a Capability value",
        "bad.spv: word 8 (OpTypeInt): OpTypeInt width 99 is not in 1..64",
        "bad.spv: word 16: unknown opcode 4001",
        "bad.spv: word 17 (OpCapability): word count 9 runs past the end of the module (19 words)",
    ]


MANY_PROBLEMS = """#version 450
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer B { uint data[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    atomicAdd(data[1], 2u);
    data[i + 2u] = data[i] * 3u;
    float f = exp(float(i));
    data[0] = uint(exp(f));
}
"""


def test_a_binarys_refusals_come_at_their_lines_with_the_subsets(tmp_path):
    """Issue 28 ("refusals come one at a time"): two instructions the grammar lacks (opcodes
    patched to 4000) and two exponentials outside the subset, in one report at their lines; before,
    only `word 339: unknown opcode 4000`, without a line."""
    (tmp_path / "k.comp").write_text(MANY_PROBLEMS)
    binary = glslang(tmp_path / "k.comp", tmp_path / "k.spv", "-g")
    words = array("I")
    words.frombytes(binary)
    for inst in decode(binary).instructions:
        if inst.opcode in ("OpAtomicIAdd", "OpIMul"):
            words[inst.word_offset] = (words[inst.word_offset] & 0xFFFF0000) | 4000
    with pytest.raises(InputErrors) as caught:
        load_kernel(words.tobytes(), "k.spv", "spv")
    found = [(e.position.line if e.position else None, e.message) for e in caught.value.errors]
    unknown = [line for line, message in found if message.endswith(": unknown opcode 4000")]
    assert unknown == [6, 7]
    assert {line for line, message in found if "Exp of GLSL.std.450" in message} >= {8, 9}
