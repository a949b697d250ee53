"""Modules as compilers other than glslang write them: clspv's (SPIR-V 1.6,
`NonSemantic.ClspvReflection` extended instructions, unnamed runtime arrays,
a WorkgroupSize made of specialization constants), DXC's (SPIR-V 1.0,
`Uniform` + `BufferBlock` structured buffers, a wrapper entry point) and
Slang's (`OpSource Slang`, a SourceLanguage newer than Debian's grammar,
NonSemantic.Shader.DebugInfo.100). The kernels are litmus/kernels/
clspv_message_passing.spvasm and dxc_ticket_lock.spvasm (written by hand in
those compilers' styles) and slang_cas_lock.spvasm (Slang's own output),
verdicts reasoned there; the oracles are their glslang twins, checked the
same way."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
from conftest import REPO

from progress.cli.kernel import check_kernel
from progress.core.analyze import queries_for
from progress.core.registry import all_models
from progress.errors import InputError
from progress.front.header import LaunchSettings
from progress.front.spirv.decode import decode
from progress.front.spirv.load import load_kernel
from progress.front.spirv.toolchain import assemble, tool_version

KERNELS = REPO / "litmus" / "kernels"


def verdicts(path: Path, given: LaunchSettings | None = None) -> dict[tuple[str, str], bool | None]:
    result = check_kernel(
        path, given or LaunchSettings(), queries_for(all_models()), max_states=None, time_limit=None, witnesses=False
    )
    return {(v.model, v.fairness): v.terminates for v in result.checked[0].report.verdicts}


@pytest.mark.parametrize(
    "other, glslang",
    [
        ("clspv_message_passing.spvasm", "message_passing.comp"),
        ("dxc_ticket_lock.spvasm", "hlsl_ticket_lock.hlsl"),
        ("slang_cas_lock.spvasm", "tas_spinlock.comp"),  # a compare-and-swap lock is a test-and-set lock here
    ],
)
def test_another_compilers_module_has_its_glslang_twins_verdicts(other: str, glslang: str):
    assert verdicts(KERNELS / other) == verdicts(KERNELS / glslang)


def test_clspv_reflection_is_read_and_ignored():
    loaded = load_kernel((KERNELS / "clspv_message_passing.spvasm").read_bytes(), "mp.spvasm", "spvasm")
    assert loaded.module.version == (1, 6)
    reflection = [i for i in loaded.module.instructions if i.opcode == "OpExtInst"]
    assert [str(i.operands[1]) for i in reflection] == [
        "Kernel",
        "ArgumentInfo",
        "ArgumentStorageBuffer",
        "ArgumentInfo",
        "ArgumentStorageBuffer",
        "SpecConstantWorkgroupSize",
    ]


def test_clspv_binary_names_its_unnamed_runtime_arrays_by_id(tmp_path: Path):
    """A binary carries neither OpNames for clspv's buffers nor the assembly's %names:
    the refusal names each array by its id, and `--buffer %ID=N` sizes it."""
    binary = assemble((KERNELS / "clspv_message_passing.spvasm").read_bytes(), "mp.spvasm")
    path = tmp_path / "mp.spv"
    path.write_bytes(binary)
    with pytest.raises(InputError, match=r"the runtime-sized arrays '%\d+', '%\d+' need lengths: --buffer %\d+=LEN"):
        verdicts(path, LaunchSettings(workgroups=2))
    module = decode(binary, "mp.spv")
    buffers = [i.result for i in module.instructions if i.opcode == "OpVariable" and i.operands[0] == "StorageBuffer"]
    data, flag = buffers
    given = LaunchSettings(workgroups=2, buffers={f"%{data}": 2, f"%{flag}": 1})
    assert verdicts(path, given) == verdicts(KERNELS / "message_passing.comp")


def slang_binary() -> bytes:
    """The spin lock of spvasm_spinlock.spvasm with `OpSource Slang 1` (SourceLanguage 11):
    assembled with an older language, the word set to 11 (Debian's spirv-as and grammar
    do not know Slang)."""
    text = (KERNELS / "spvasm_spinlock.spvasm").read_text()
    mode = re.search(r"^.*OpExecutionMode .*\n", text, re.MULTILINE)
    assert mode is not None
    text = text[: mode.end()] + "OpSource Unknown 1\n" + text[mode.end() :]  # where the layout puts it
    binary = bytearray(assemble(text.encode(), "slang.spvasm"))
    words = struct.unpack(f"<{len(binary) // 4}I", binary)
    at = 5
    while words[at] & 0xFFFF != 3:  # OpSource
        at += words[at] >> 16
    struct.pack_into("<I", binary, (at + 1) * 4, 11)
    return bytes(binary)


def test_slangs_source_language_decodes_as_debug_information(tmp_path: Path):
    """Before: `11 is not a SourceLanguage value`, exit 2, for any module Slang wrote."""
    module = decode(slang_binary(), "slang.spv")
    source = next(i for i in module.instructions if i.opcode == "OpSource")
    assert source.operands[0] in ("Slang", "SourceLanguage(11)")
    path = tmp_path / "slang.spv"
    path.write_bytes(slang_binary())
    try:
        checked = verdicts(path, LaunchSettings(workgroups=2))
    except InputError as error:  # Debian's spirv-val (SPIRV-Tools 2023.1) predates Slang's SourceLanguage
        assert "spirv-val: line 3: Invalid source language operand: 11" in error.render()
        assert "2023.1" in tool_version("spirv-val")
    else:
        assert checked == verdicts(KERNELS / "spvasm_spinlock.spvasm")


def test_an_unknown_enumerant_elsewhere_is_still_refused():
    binary = bytearray(slang_binary())
    words = struct.unpack(f"<{len(binary) // 4}I", binary)
    at = 5
    while words[at] & 0xFFFF != 14:  # OpMemoryModel
        at += words[at] >> 16
    struct.pack_into("<I", binary, (at + 2) * 4, 77)
    with pytest.raises(InputError, match="77 is not a MemoryModel value"):
        decode(bytes(binary), "bad.spv")
