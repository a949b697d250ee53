"""SPIR-V 1.0 to 1.6, each at the version the module states: assembly is
assembled at its `; Version: 1.N` comment (spirv-dis's header), so a 1.4+
module lists its buffers in the entry point's interface as 1.4 requires, and
a binary keeps its header's version; the verdicts are the same at every
version. The oracle is the spin lock of litmus/kernels/spvasm_spinlock.spvasm
(reasoned there), written here once per version."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from conftest import REPO
from in_process import progress
from kernel_helpers import parse_expect, system, verdicts

from progress.errors import InputError
from progress.front.spirv.load import load_kernel
from progress.front.spirv.toolchain import AS_FLAGS, assemble, assembly_flags

SPINLOCK = REPO / "litmus" / "kernels" / "spvasm_spinlock.spvasm"


def body(interface: str, extension: bool) -> str:
    """The spin lock's instructions, `interface` listed on its entry point; before
    1.3 the StorageBuffer storage class is an extension's."""
    lines = [line for line in SPINLOCK.read_text().splitlines() if not line.startswith(";")]
    text = "\n".join(lines) + "\n"
    text = text.replace('OpEntryPoint GLCompute %main "main"', f'OpEntryPoint GLCompute %main "main"{interface}')
    if extension:
        text = text.replace(
            "OpCapability Shader\n", 'OpCapability Shader\nOpExtension "SPV_KHR_storage_buffer_storage_class"\n'
        )
    return text


def module(minor: int, stated: str | None = None) -> str:
    header = f"; SPIR-V\n; Version: {stated or f'1.{minor}'}\n; Generator: hand; 0\n; Bound: 30\n; Schema: 0\n"
    return header + body(" %mem" if minor >= 4 else "", minor < 3)


def version_word(binary: bytes) -> tuple[int, int]:
    word = struct.unpack("<I", binary[4:8])[0]
    return word >> 16 & 0xFF, word >> 8 & 0xFF


def expected() -> dict[str, bool]:
    line = next(x for x in SPINLOCK.read_text().splitlines() if x.startswith("; expect:"))
    return parse_expect(line.removeprefix("; expect:"))


@pytest.mark.parametrize("minor", range(7))
def test_each_version_is_assembled_at_its_own_and_checks_the_same(minor: int):
    text = module(minor).encode()
    assert version_word(assemble(text, "k.spvasm")) == (1, minor)
    loaded = load_kernel(text, f"spinlock_1_{minor}.spvasm", "spvasm")
    assert loaded.module.version == (1, minor)
    assert verdicts(system(loaded.module, 2)) == expected()


def test_the_command_line_checks_a_16_module(tmp_path: Path):
    path = tmp_path / "spinlock.spvasm"
    path.write_text(module(6))
    done = progress("check", path, "--workgroups", "2")  # in this process (tests/in_process.py)
    assert done.returncode == 1, done.stdout + done.stderr  # unfair and HSA: may not terminate
    assert "8 verdict(s) guaranteed to terminate, 3 may not terminate" in done.stdout


def test_a_14_module_listing_its_buffer_was_refused_at_13_and_is_not_now():
    """The bug: assembly was forced to vulkan1.1 (SPIR-V 1.3), where a StorageBuffer
    variable in the interface breaks the entry-point rule."""
    text = module(5).encode()
    assert assembly_flags(text, "k.spvasm") == ("--target-env", "spv1.5")
    unstated = text.replace(b"; Version: 1.5\n", b"")
    assert assembly_flags(unstated, "k.spvasm") == AS_FLAGS
    with pytest.raises(InputError, match="OpEntryPoint interfaces must be OpVariables with Storage Class of Input"):
        load_kernel(unstated, "k.spvasm", "spvasm")
    load_kernel(text, "k.spvasm", "spvasm")


def test_a_15_module_is_validated_by_15s_rules():
    """At 1.4+ every global variable an entry point uses is in its interface."""
    text = module(5).replace('OpEntryPoint GLCompute %main "main" %mem', 'OpEntryPoint GLCompute %main "main"')
    with pytest.raises(InputError, match="is used by entry point .main. id <1>, but is not listed as an interface"):
        load_kernel(text.encode(), "k.spvasm", "spvasm")


@pytest.mark.parametrize("stated", ["2.0", "1.7", "one", "1"])
def test_a_version_the_assembler_does_not_take_is_refused_at_its_line(stated: str):
    with pytest.raises(InputError) as caught:
        load_kernel(module(3, stated).encode(), "k.spvasm", "spvasm")
    rendered = caught.value.render()
    assert rendered.startswith("k.spvasm:2:")
    assert "the assembler takes 1.0 to 1.6" in rendered


def test_only_the_header_comments_state_the_version():
    text = module(3).replace("; Version: 1.3\n", "") + "; Version: 1.6\n"
    assert assembly_flags(text.encode(), "k.spvasm") == AS_FLAGS


def test_a_binary_keeps_its_header_version(tmp_path: Path):
    binary = assemble(module(6).encode(), "k.spvasm")
    loaded = load_kernel(binary, "k.spv", "spv")
    assert loaded.module.version == (1, 6)
