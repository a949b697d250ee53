"""The SPIR-V encoder as the decoder's inverse, against binaries other tools
wrote: glslang's (every kernel of litmus/kernels/ and tests/data/kernels/,
plain, `spirv-opt -O`, `-gV` debug info, HLSL), spirv-as's random modules
(every operand form the grammar has), and spirv-as's assembly of a module
built by hand (an oracle that shares no code with the encoder)."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import long_twin
from hypothesis import HealthCheck, assume
from spirv_gen import module_text
from test_spirv_decode import COMPILED, KERNELS, assemble, glslang, known_to_the_assembler

from progress.back.spirv_encode import encode
from progress.front.spirv.decode import decode
from progress.front.spirv.ir import Id, Instruction, Module
from progress.front.spirv.load import kind_of, load_kernel

LITMUS = Path(__file__).parent.parent / "litmus" / "kernels"


def litmus_binaries() -> dict[str, bytes]:
    found = {}
    for path in sorted(LITMUS.iterdir()):
        for optimized in (False, True):
            loaded = load_kernel(
                path.read_bytes(), path.name, kind_of(path) or "", optimized=optimized, origin=path.parent
            )
            found[f"{path.name}{' -O' if optimized else ''}"] = loaded.binary
    return found


@pytest.fixture(scope="module")
def binaries(tmp_path_factory) -> dict[str, bytes]:
    work = tmp_path_factory.mktemp("spv")
    found = {name: glslang(KERNELS / name, work / f"{name}.spv", "-g") for name in COMPILED}
    found["lock.hlsl"] = glslang(KERNELS / "lock.hlsl", work / "lock.spv", "-g", "-D", "-e", "main", "-S", "comp")
    found["message.comp -gV"] = glslang(KERNELS / "message.comp", work / "message.gV.spv", "-gV")
    return found | litmus_binaries()


def test_every_compiled_kernel_round_trips(binaries):
    assert len(binaries) >= 40
    for name, binary in binaries.items():
        module = decode(binary, name)
        assert encode(module) == binary, name
        assert decode(encode(module), name) == module, name


def _random_modules_round_trip(text, tmp_path):
    errors: list[str] = []
    binary = assemble(text, tmp_path, errors)
    assume(binary is not None or known_to_the_assembler(errors[0]))  # skip only what the grammars disagree on
    assert binary is not None, text
    module = decode(binary)
    assert encode(module) == binary
    assert decode(encode(module)) == module


test_random_modules_round_trip, test_random_modules_round_trip_in_full = long_twin(
    _random_modules_round_trip,
    {"text": module_text()},
    30,
    120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def test_a_big_endian_binary_comes_back_little_endian(binaries):
    binary = binaries["spinlock.comp"]
    swapped = b"".join(binary[i : i + 4][::-1] for i in range(0, len(binary), 4))
    assert encode(decode(swapped)) == binary


HAND_BUILT = """OpCapability Shader
%1 = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %2 "main"
OpExecutionMode %2 LocalSize 2 1 1
OpName %2 "m\u00e4in"
%3 = OpTypeVoid
%4 = OpTypeFunction %3
%5 = OpTypeInt 32 0
%6 = OpTypeInt 64 1
%7 = OpConstant %5 4294967295
%8 = OpConstant %6 -2
%9 = OpSpecConstantOp %5 IAdd %7 %7
%2 = OpFunction %3 None %4
%10 = OpLabel
%11 = OpExtInst %5 %1 UMin %7 %7
OpSelectionMerge %12 None
OpSwitch %11 %12 7 %12 4294967294 %12
%12 = OpLabel
OpLoopMerge %13 %12 Unroll|PartialCount 4
OpBranch %12
%13 = OpLabel
OpReturn
OpFunctionEnd
"""


def _hand_built() -> Module:
    def op(opcode: str, *operands, result=None, type_=None) -> Instruction:
        return Instruction(opcode, type_, result, tuple(operands), 0)

    body = [
        op("OpCapability", "Shader"),
        op("OpExtInstImport", "GLSL.std.450", result=1),
        op("OpMemoryModel", "Logical", "GLSL450"),
        op("OpEntryPoint", "GLCompute", Id(2), "main"),
        op("OpExecutionMode", Id(2), "LocalSize", 2, 1, 1),
        op("OpName", Id(2), "m\u00e4in"),
        op("OpTypeVoid", result=3),
        op("OpTypeFunction", Id(3), result=4),
        op("OpTypeInt", 32, 0, result=5),
        op("OpTypeInt", 64, 1, result=6),
        op("OpConstant", 0xFFFFFFFF, result=7, type_=5),
        op("OpConstant", 2**64 - 2, result=8, type_=6),
        op("OpSpecConstantOp", "OpIAdd", Id(7), Id(7), result=9, type_=5),
        op("OpFunction", "None", Id(4), result=2, type_=3),
        op("OpLabel", result=10),
        op("OpExtInst", Id(1), "UMin", Id(7), Id(7), result=11, type_=5),
        op("OpSelectionMerge", Id(12), "None"),
        op("OpSwitch", Id(11), Id(12), 7, Id(12), 0xFFFFFFFE, Id(12)),
        op("OpLabel", result=12),
        op("OpLoopMerge", Id(13), Id(12), "Unroll|PartialCount", 4),
        op("OpBranch", Id(12)),
        op("OpLabel", result=13),
        op("OpReturn"),
        op("OpFunctionEnd"),
    ]
    return Module((1, 6), 0, 14, tuple(body))


def test_a_hand_built_module_encodes_as_spirv_as_assembles_it(tmp_path):
    expected = assemble(HAND_BUILT, tmp_path)
    assert expected is not None
    ours = encode(_hand_built())
    assert ours[20:] == expected[20:]  # the header's generator word is spirv-as's own
    assert ours[:8] == expected[:8] and ours[12:20] == expected[12:20]


def test_the_encoded_module_is_valid(tmp_path):
    binary = encode(_hand_built())
    (tmp_path / "m.spv").write_bytes(binary)
    done = subprocess.run(["spirv-dis", str(tmp_path / "m.spv")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "PartialCount 4" in done.stdout and "UMin" in done.stdout


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda i: replace(i, opcode="OpNoSuchThing"), "not an opcode"),
        (lambda i: replace(i, operands=("Logical",)), "too few operands"),
        (lambda i: replace(i, operands=("Logical", "GLSL450", 3)), "left over"),
        (lambda i: replace(i, operands=("Logical", "Quantum")), "not a MemoryModel value"),
        (lambda i: replace(i, operands=(Id(1), "GLSL450")), "not a AddressingModel value"),
    ],
)
def test_an_operand_that_does_not_fit_is_named(change, message):
    module = _hand_built()
    broken = list(module.instructions)
    broken[2] = change(broken[2])
    with pytest.raises(ValueError, match=message):
        encode(replace(module, instructions=tuple(broken)))


def test_literals_out_of_range_are_refused():
    module = _hand_built()
    for index, operands in ((10, (2**32,)), (11, (-1,)), (5, (Id(2), 7))):
        broken = list(module.instructions)
        broken[index] = replace(broken[index], operands=operands)
        with pytest.raises(ValueError):
            encode(replace(module, instructions=tuple(broken)))


def test_the_header_constants_are_the_decoders():
    from progress.back import spirv_encode
    from progress.front.spirv import decode as decoder

    assert (spirv_encode.MAGIC, spirv_encode.HEADER_WORDS) == (decoder.MAGIC, decoder.HEADER_WORDS)
