"""The supported-subset check on small assembled modules: each refusal
names the instruction, its source line (the assembly's) and the reason."""

from __future__ import annotations

import pytest

from progress.errors import InputError
from progress.front.header import LaunchSettings
from progress.front.spirv import subset
from progress.front.spirv.load import load_kernel

HEAD = """OpCapability Shader
{capabilities}OpMemoryModel {addressing} GLSL450
OpEntryPoint GLCompute %main "main" {interface}
OpExecutionMode %main LocalSize 1 1 1
{decorations}%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%device = OpConstant %uint 1
%workgroup = OpConstant %uint 2
%subgroup = OpConstant %uint 3
%sem = OpConstant %uint 264
%buf = OpTypeStruct %uint
%pbuf = OpTypePointer StorageBuffer %buf
%puint = OpTypePointer StorageBuffer %uint
%data = OpVariable %pbuf StorageBuffer
{globals}%main = OpFunction %void None %fn
%entry = OpLabel
%cell = OpAccessChain %puint %data %u0
{body}OpReturn
OpFunctionEnd
"""
DECORATE = (
    "OpDecorate %buf Block\nOpMemberDecorate %buf 0 Offset 0\n"
    "OpDecorate %data DescriptorSet 0\nOpDecorate %data Binding 0\n"
)


def kernel(body: str = "", globals_: str = "", capabilities: str = "", addressing: str = "Logical", **more) -> bytes:
    fields = {"interface": "", "decorations": DECORATE} | more
    text = HEAD.format(body=body, globals=globals_, capabilities=capabilities, addressing=addressing, **fields)
    return text.encode()


def refused(data: bytes) -> InputError:
    with pytest.raises(InputError) as caught:
        load_kernel(data, "k.spvasm", "spvasm")
    return caught.value


def line_of(data: bytes, fragment: str) -> int:
    return next(n for n, line in enumerate(data.decode().split("\n"), 1) if fragment in line)


def test_subgroup_operations_barriers_and_built_ins_are_inside():
    data = kernel(
        "%s = OpLoad %uint %lane\n%v = OpGroupNonUniformElect %bool %subgroup\n"
        "OpControlBarrier %subgroup %subgroup %sem\n",
        globals_="%pin = OpTypePointer Input %uint\n%lane = OpVariable %pin Input\n",
        capabilities="OpCapability GroupNonUniform\n",
        interface="%lane",
        decorations=DECORATE + "OpDecorate %lane BuiltIn SubgroupLocalInvocationId\n",
    )
    assert load_kernel(data, "k.spvasm", "spvasm").entry.name == "main"


def test_a_plain_kernel_is_inside():
    data = kernel("%old = OpAtomicExchange %uint %cell %device %u0 %u1\nOpControlBarrier %workgroup %workgroup %sem\n")
    loaded = load_kernel(data, "k.spvasm", "spvasm")
    assert loaded.entry.name == "main"


CASES = {
    "a subgroup operation of SPV_KHR_shader_ballot": (
        kernel(
            "%q = OpSubgroupFirstInvocationKHR %uint %u1\n",
            capabilities='OpCapability SubgroupBallotKHR\nOpExtension "SPV_KHR_shader_ballot"\n',
        ),
        "OpSubgroupFirstInvocationKHR",
        "OpSubgroupFirstInvocationKHR: this subgroup operation is not supported",
    ),
    "device barrier": (
        kernel("OpControlBarrier %device %device %sem\n"),
        "OpControlBarrier %device",
        "OpControlBarrier: spirv-val: ",  # Vulkan's rule, before the subset's: Workgroup or Subgroup
    ),
    "a read of another invocation (SPV_KHR_shader_ballot)": (
        kernel(
            "%q = OpSubgroupReadInvocationKHR %uint %u1 %u0\n",
            capabilities='OpCapability SubgroupBallotKHR\nOpExtension "SPV_KHR_shader_ballot"\n',
        ),
        "OpSubgroupReadInvocationKHR",
        "OpSubgroupReadInvocationKHR: this subgroup operation is not supported",
    ),
    "float": (
        kernel(
            "%f = OpConvertUToF %half %u1\n",
            globals_="%half = OpTypeFloat 16\n",
            capabilities="OpCapability Float16\n",
        ),
        "%half = OpTypeFloat",  # assembly gives types a line: the declaration is shown
        "OpTypeFloat: 16-bit floats: only 32- and 64-bit floats are supported",
    ),
    "a 16-bit constant": (
        kernel(
            "%x = OpIAdd %ushort %big %big\n",
            globals_="%ushort = OpTypeInt 16 0\n%big = OpConstant %ushort 4096\n",
            capabilities="OpCapability Int16\n",
        ),
        "%ushort = OpTypeInt",
        "OpTypeInt: 16-bit integers: only 32- and 64-bit integers are supported",
    ),
    "an unsupported instruction": (
        kernel("OpCopyMemory %cell %cell\n"),
        "OpCopyMemory",
        "OpCopyMemory: is not in the supported subset",
    ),
    "a group operation of workgroup scope": (
        kernel(
            "%first = OpGroupNonUniformBroadcastFirst %uint %workgroup %u1\n",
            capabilities="OpCapability GroupNonUniform\nOpCapability GroupNonUniformBallot\n",
        ),
        "OpGroupNonUniformBroadcastFirst",
        "a group operation of Workgroup execution scope: only subgroup operations",
    ),
    "an Output variable": (
        kernel(globals_="%pout = OpTypePointer Output %uint\n%out = OpVariable %pout Output\n", interface="%out"),
        "%pout = OpTypePointer",
        "variables of storage class Output are not supported",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refusals_name_the_instruction_and_its_line(name):
    data, fragment, message = CASES[name]
    error = refused(data)
    assert message in error.message
    assert error.position is not None and error.position.path == "k.spvasm"
    assert error.position.line == line_of(data, fragment)


def test_physical_addressing_other_than_buffer_references_is_refused():
    data = kernel(capabilities="OpCapability Addresses\n", addressing="Physical64")
    error = refused(data)  # spirv-val's complaint (Addresses is no Vulkan capability) comes with it
    assert "addressing model Physical64: only logical pointers and buffer references" in error.message
    assert "OpMemoryModel: addressing model Physical64" in error.render()


def test_the_supported_instructions_exist_in_the_grammar():
    from progress.front.spirv.grammar import core_grammar

    names = {spec.name for spec in core_grammar().instructions.values()}
    assert subset.SUPPORTED <= names


SEVERAL = """#version 450
#extension GL_ARB_shader_ballot : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { uint lock; uint seen; };
void main() {
    uint votes = readFirstInvocationARB(lock);
    seen = readInvocationARB(votes, 0u);
    float half_ = exp(float(lock));
    if (votes == 0u) {
        atomicExchange(lock, uint(half_) + uint(exp(float(votes))));
    }
}
"""


def test_every_problem_is_reported_each_at_its_line():
    """A kernel full of ballots was refused for its first located problem only (one
    that happened to be a bit-field extract): now every problem, in line order."""
    with pytest.raises(InputError) as caught:
        load_kernel(SEVERAL.encode(), "several.comp", "glsl")
    error = caught.value
    rendered = error.render()
    lines = [int(line.split(":")[1]) for line in rendered.splitlines() if line.startswith("several.comp:")]
    assert lines == sorted(lines) and {6, 7, 8, 10} <= set(lines)
    assert "OpSubgroupFirstInvocationKHR: this subgroup operation is not supported" in rendered
    assert "OpSubgroupReadInvocationKHR: this subgroup operation is not supported" in rendered
    assert "Exp of GLSL.std.450 is not supported" in rendered
    assert rendered.endswith(f"{len(lines)} problems")
    assert error.position is not None and error.position.line == lines[0] == 6
    assert "; also several.comp:7:" in error.message  # one message for readers that show one


STAGES = """#version 450
// a half, a subgroup operation outside the subset and an array --spec makes empty
#extension GL_ARB_shader_ballot : require
layout(local_size_x = 2) in;
layout(constant_id = 0) const uint N = 4;
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(std430, binding = 0) buffer B { uint flag; uint next; };
shared uint slots[N];
void main() {
    slots[gl_LocalInvocationID.x] = flag;
    uint q = readFirstInvocationARB(flag);
    next = uint(float16_t(q));
    while (atomicAdd(flag, 0u) == 0u) {}
}
"""


def test_problems_found_by_every_stage_come_together():
    """A 16-bit float (a buffer reference before they were supported), a subgroup operation outside the
    subset and an array the launch's --spec makes empty: each stage's refusal was raised alone (the
    addressing model, without a line, or the array length), hiding the others."""
    with pytest.raises(InputError) as caught:
        load_kernel(STAGES.encode(), "stages.comp", "glsl", LaunchSettings(spec=(("0", 0),)))
    rendered = caught.value.render()
    assert rendered.splitlines()[0].startswith("stages.comp:11:")  # in source order, the located ones first
    assert "stages.comp:11:1: error: OpSubgroupFirstInvocationKHR: this subgroup operation" in rendered
    assert "stages.comp:12:1: error: OpConvertUToF: 16-bit floats: only 32- and 64-bit floats are supported" in rendered
    assert "OpTypeArray: specialized to the length 0, not in 1..65536" in rendered
    assert rendered.endswith("3 problems")


TWO_ERRORS = "[numthreads(1, 1, 1)]\nvoid main()\n{\n    uint a = q;\n    uint b = a;\n    uint c = r;\n}\n"


def test_every_compiler_error_is_reported_at_its_line():
    """Slang's first error only was shown, '(and 1 more error)': now each, at its line (as
    GPUSorting's SortCommon.hlsl, 9 errors on 6 lines, needs). glslang stops at the first
    statement in error ('compilation terminated'), so it has no second line to show."""
    with pytest.raises(InputError) as caught:
        load_kernel(TWO_ERRORS.encode(), "two.hlsl", "hlsl")
    rendered = caught.value.render()
    assert [line.split(":")[1] for line in rendered.splitlines() if line.startswith("two.hlsl:")] == ["4", "6"]
    assert "'q'" in rendered and "'r'" in rendered and "more error" not in rendered
