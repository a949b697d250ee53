"""Buffer references (PhysicalStorageBuffer64, GL_EXT_buffer_reference): a pointer value is
a 64-bit address, a buffer's or a raw region's (`--push NAME=@BUFFER[+BYTES]`, `--buffer
REGION=WORDS`); loads, stores and atomics through one touch the cells at that address, or
are errors of the kernel at their line (no buffer there, unaligned, past the end)."""

from __future__ import annotations

import pytest
from kernel_helpers import verdicts

from progress.cli.kernel import terminal_memories
from progress.errors import InputError
from progress.front.header import parse_push
from progress.front.spirv import addresses
from progress.front.spirv.glslang_fixes import fixed
from progress.front.spirv.kernel import KernelSystem, Launch
from progress.front.spirv.load import load_kernel
from progress.front.spirv.toolchain import validation_errors

MESSAGE = """#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Flags { uint flag; uint data[]; };
layout(push_constant) uniform Args { Flags flags; uint64_t raw; } args;
layout(std430, binding = 0) buffer B { uint mem[4]; };
void main() {
    if (gl_WorkGroupID.x == 0u) {
        args.flags.data[1] = 42u;
        atomicExchange(args.flags.flag, 1u);
    } else {
        while (atomicAdd(args.flags.flag, 0u) == 0u) {}
        Flags f2 = Flags(args.raw + 8ul);
        mem[3] = f2.flag + 1u;
    }
}
"""


EXECUTED = {"OpConvertUToPtr", "OpConvertPtrToU", "OpPtrAccessChain"}
"""The pointer conversions and arithmetic of the subset, each executed by a test here."""


def system(source: str, pushes: tuple[str, ...], buffers: dict[str, int] | None = None) -> KernelSystem:
    kernel = load_kernel(source.encode(), "ref.comp", "glsl")
    launch = Launch(2, buffers or {}, (), None, tuple(parse_push(p) for p in pushes))
    return KernelSystem(kernel.module, launch, "ref", "ref.comp", "ref")


def memories(source: str, pushes: tuple[str, ...], buffers: dict[str, int] | None = None) -> list[dict[str, int]]:
    return [dict(m) for m in terminal_memories(system(source, pushes, buffers), None, None)]


def test_a_message_passes_through_buffer_references():
    """Both references point into the bound buffer B: data[1] is mem[2], and raw + 8 reads it."""
    assert memories(MESSAGE, ("args.flags=@B", "args.raw=@B")) == [
        {"mem[0]": 1, "mem[1]": 0, "mem[2]": 42, "mem[3]": 43}
    ]
    found = verdicts(system(MESSAGE, ("args.flags=@B", "args.raw=@B")))
    assert found["unfair"] is False and found["fair/weak"] is True and found["OBE/weak"] is False
    assert found["LOBE/strong"] is True


def test_an_offset_address_and_a_raw_region():
    assert memories(MESSAGE, ("args.flags=@B", "args.raw=@B+4"))[0]["mem[3]"] == 1  # raw + 8 is the flag's cell
    region = memories(MESSAGE, ("args.flags=@mine", "args.raw=@mine"), {"mine": 3})
    assert region == [{"mem[0]": 0, "mem[1]": 0, "mem[2]": 0, "mem[3]": 43, "mine[0]": 1, "mine[1]": 0, "mine[2]": 42}]


@pytest.mark.parametrize(
    "pushes, message",
    [
        (("args.flags=@B+2", "args.raw=@B"), "ref.comp:10: OpStore: the address 0x10000000a (B + 10 bytes) is not"),
        (("args.raw=@B",), "ref.comp:10: OpStore: the address 0x8 is in no buffer (B at 0x100000000)"),
        (("args.flags=@B", "args.raw=@B+8"), "ref.comp:15: OpLoad: the address 0x100000010 (B + 16 bytes) is out of"),
    ],
)
def test_a_bad_address_is_an_error_of_the_kernel_at_its_line(pushes, message):
    with pytest.raises(InputError) as caught:
        memories(MESSAGE, pushes)
    assert caught.value.message.startswith(message)


def test_bad_pushes_are_refused_before_anything_runs():
    with pytest.raises(
        InputError, match=r"--push args.flags=@nothing: no buffer is called 'nothing'.*--buffer nothing"
    ):
        system(MESSAGE, ("args.flags=@nothing",))
    source = MESSAGE.replace("Flags flags; uint64_t raw;", "Flags flags; uint raw;").replace("args.raw + 8ul", "8ul")
    with pytest.raises(InputError, match="does not fit in 32 bits"):  # an address is 64 bits
        system(source, ("args.raw=@B",))


POINTER_ARITHMETIC = """#version 450
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;
struct Pair { uint a; uint b; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Pairs { Pair p; };
layout(push_constant) uniform Args { Pairs pairs; } args;
layout(std430, binding = 0) buffer B { uint mem[8]; };
void main() {
    if (gl_WorkGroupID.x == 1u) {
        Pairs third = args.pairs + 2;
        Pairs second = third - 1;
        second.p.b = 7u;
        third.p = Pair(uint(uint64_t(third) - uint64_t(args.pairs)), uint(uint64_t(second) - uint64_t(args.pairs)));
    }
}
"""


def test_pointer_arithmetic_steps_over_whole_elements():
    """`ref + 2` is OpPtrAccessChain by the reference's stride (8 bytes); `third.p = Pair(...)` stores
    a whole struct (glslang 13 writes `Aligned 0` there, fixed up), `uint64_t(ref)` is OpConvertPtrToU."""
    (memory,) = memories(POINTER_ARITHMETIC, ("args.pairs=@B",))
    assert [memory[f"mem[{i}]"] for i in range(6)] == [0, 0, 0, 7, 16, 8]


DEVICE_SCOPE = """#version 450
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { uint flag; };
void main() {
    atomicAdd(flag, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
}
"""


def test_glslangs_missing_device_scope_capability_is_added():
    """glslang 13.1.1 leaves out VulkanMemoryModelDeviceScope (its issue 3441): spirv-val refused
    the compiled kernel; now the capability is added and the kernel is checked."""
    kernel = load_kernel(DEVICE_SCOPE.encode(), "scope.comp", "glsl")
    assert "VulkanMemoryModelDeviceScope" in kernel.module.view.capabilities
    assert verdicts(KernelSystem(kernel.module, Launch(2, {}), "s", "scope.comp", "s"))["unfair"] is True


def test_the_fix_ups_touch_nothing_else():
    ordinary = load_kernel(MESSAGE.replace("Flags(args.raw + 8ul)", "args.flags").encode(), "m.comp", "glsl")
    assert "VulkanMemoryModelDeviceScope" not in ordinary.module.view.capabilities
    assert fixed(b"not a module") == b"not a module"


def test_address_resolution():
    ranges = (addresses.Range("a", 0, 4), addresses.Range("b", 4, 2))
    assert addresses.resolve(ranges, addresses.address_of(1, 4), 1) == 5
    assert addresses.parse("@b+12") == ("b", 12) and addresses.parse("12") is None
    with pytest.raises(InputError, match="out of bounds"):
        addresses.resolve(ranges, addresses.address_of(1, 4), 2)
    assert validation_errors  # the validator the fixed modules pass (imported: the path under test)


def test_a_device_run_is_not_given_an_address():
    """`progress run` binds buffers itself; a device's addresses are its own, so a launch with one
    is refused for the device run (the check still runs)."""
    from progress.front.header import LaunchSettings
    from progress.front.spirv.buffers import NotRunnable, buffer_plans

    given = LaunchSettings(workgroups=2, push=(parse_push("args.flags=@B"),))
    loaded = load_kernel(MESSAGE.encode(), "ref.comp", "glsl", given)
    with pytest.raises(NotRunnable, match="a device run cannot be given a buffer's address"):
        buffer_plans(loaded, "ref.comp")
