"""Issue 28's repro kernels (tests/data/repro/, copied from the issue): each ran into a
bug of the SPIR-V front end's interpreter or layout; here each gets its verdicts, or
its positioned refusal, and the memory it ends in, checked by hand."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from progress.cli import main
from progress.cli.kernel import check_kernel, given_settings, kernel_system, terminal_memories
from progress.core.analyze import queries_for
from progress.core.registry import all_models
from progress.errors import InputError
from progress.front.header import LaunchSettings
from progress.front.spirv import layout, load

REPRO = Path(__file__).parent / "data" / "repro"
ALL_P = {True}


def run(args: list[str], monkeypatch, capsys, cwd: Path = REPRO) -> tuple[int, str, str]:
    """`progress ARGS` in this process: (exit status, stdout, stderr)."""
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "stdout", sys.stdout)
    with pytest.raises(SystemExit) as exit_info:
        main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


def finished(path: Path | str, *buffers: str, inits: tuple[str, ...] = ()) -> set[tuple[tuple[str, int], ...]]:
    """The shared memory of every reachable state in which every invocation has returned."""
    system = kernel_system(path, given_settings(None, list(buffers), list(inits), None, None))
    return set(terminal_memories(system, None, None))


def verdicts(path: Path | str, given: LaunchSettings | None = None) -> list[set[bool | None]]:
    result = check_kernel(
        path, given or LaunchSettings(), queries_for(all_models()), max_states=None, time_limit=None, witnesses=False
    )
    return [{v.terminates for v in checked.report.verdicts} for checked in result.checked]


@pytest.mark.parametrize(
    "name, memory",
    [("atomic_store.comp", (("flag", 1),)), ("atomic_store_shared.comp", (("out_", 1), ("wg0:s", 1)))],
)
def test_atomic_store_stores(name, memory):
    """OpAtomicStore has no result type: its cells come from the pointer's type
    (it was refused as 'a value of type %-1', without a file or line)."""
    assert verdicts(REPRO / name) == [ALL_P]
    assert finished(REPRO / name) == {memory}


def test_undef_at_module_scope_after_spirv_opt(monkeypatch, capsys):
    """spirv-opt -O leaves a module-scope OpUndef for `x` on the path that does not
    assign it; the interpreter reads it as 0, as it reads an unassigned variable."""
    status, out, err = run(["check", "--optimize", "undef_opt.comp"], monkeypatch, capsys)
    assert status == 0, err
    assert "undef_opt: --optimize: the same verdicts and the same terminal memory states" in out


def test_a_failing_optimized_module_keeps_the_source_verdicts(monkeypatch, capsys):
    """When the spirv-opt -O module cannot be checked, the module as compiled still is:
    its verdicts are shown, then why the optimized one was not (exit 2)."""
    real = load.optimize
    monkeypatch.setattr(load, "optimize", lambda binary, name, limits: real(binary, name, limits)[:-4])
    status, out, err = run(["check", "--optimize", "atomic_store.comp"], monkeypatch, capsys)
    assert status == 2
    assert "atomic_store  atomic_store.comp" in out and "guaranteed to terminate" in out
    assert "the spirv-opt -O module could not be checked (below)" in out
    assert "atomic_store.comp" in err and "error:" in err
    assert "1 file(s) with bad input" in out


def test_an_unused_runtime_array_needs_no_length_and_its_length_survives_spirv_opt(monkeypatch, capsys):
    """`unused[]` is never touched: no --buffer is needed; given one, the spirv-opt -O
    module (which removed the buffer) accepts it, and the removed cells are named."""
    assert verdicts(REPRO / "unused_buffer_opt.comp") == [ALL_P]
    assert finished(REPRO / "unused_buffer_opt.comp") == {(("flag", 1),)}
    status, out, err = run(
        ["check", "--optimize", "--buffer", "unused=2", "unused_buffer_opt.comp"], monkeypatch, capsys
    )
    assert status == 0, err
    assert "removed the cells unused[0], unused[1] (the kernel does not use them)" in out
    assert "the same verdicts and the same terminal memory states after spirv-opt -O" in out


def test_cells_spirv_opt_removed_are_no_difference(monkeypatch, capsys):
    status, out, err = run(["check", "--optimize", "dead_cells_opt.comp"], monkeypatch, capsys)
    assert status == 0, err
    assert "differ" not in out
    assert "spirv-opt -O removed the cells unused" in out
    assert "the same verdicts and the same terminal memory states after spirv-opt -O" in out


UNNAMED = """; A runtime-sized array without any name, as clspv (OpenCL C's compiler) writes
; its arguments: no OpName, no OpMemberName. The kernel stores 1 into element 1.
               OpCapability Shader
               OpExtension "SPV_KHR_non_semantic_info"
         %20 = OpExtInstImport "NonSemantic.ClspvReflection.5"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpSource OpenCL_C 200
               OpDecorate %_runtimearr_uint ArrayStride 4
               OpMemberDecorate %_struct_3 0 Offset 0
               OpDecorate %_struct_3 Block
               OpDecorate %5 DescriptorSet 0
               OpDecorate %5 Binding 0
       %uint = OpTypeInt 32 0
%_runtimearr_uint = OpTypeRuntimeArray %uint
  %_struct_3 = OpTypeStruct %_runtimearr_uint
%_ptr_StorageBuffer__struct_3 = OpTypePointer StorageBuffer %_struct_3
%_ptr_StorageBuffer_uint = OpTypePointer StorageBuffer %uint
       %void = OpTypeVoid
          %8 = OpTypeFunction %void
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
          %5 = OpVariable %_ptr_StorageBuffer__struct_3 StorageBuffer
       %main = OpFunction %void None %8
         %10 = OpLabel
         %11 = OpAccessChain %_ptr_StorageBuffer_uint %5 %uint_0 %uint_1
               OpStore %11 %uint_1
               OpReturn
               OpFunctionEnd
"""


def test_a_runtime_array_without_a_name_is_called_by_its_assembly_id(tmp_path, monkeypatch, capsys):
    """It was an IndexError (exit 70) in layout.runtime_lengths; now the variable is
    `%5`, as the assembly calls it (spirv-as renumbers ids: the text's name is kept)."""
    (tmp_path / "unnamed.spvasm").write_text(UNNAMED)
    status, _, err = run(["check", "unnamed.spvasm"], monkeypatch, capsys, tmp_path)
    assert status == 2 and "the runtime-sized array '%5' needs a length: --buffer %5=LEN" in err
    assert finished(tmp_path / "unnamed.spvasm", "%5=2") == {(("%5.m0[0]", 0), ("%5.m0[1]", 1))}
    status, _, err = run(["check", "--buffer", "%5=1", "unnamed.spvasm"], monkeypatch, capsys, tmp_path)
    assert status == 2 and "unnamed.spvasm:27:" in err and "index 1 is out of bounds" in err


TWO_BUFFERS = """// Two structured buffers of one element type (glslang gave both the block type
// `data`, named after one of them, and the member `@data`; Slang, the HLSL compiler now,
// wraps each in a block whose one member is `__member0`).
RWStructuredBuffer<uint> flags;
RWStructuredBuffer<uint> data;
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint n, stride;
    data.GetDimensions(n, stride);
    flags[0] = n;
}
"""


def test_hlsl_structured_buffers_are_sized_one_by_one(tmp_path, monkeypatch, capsys):
    """`--buffer @data=N` sized every structured buffer at once, and the hint named
    `@data`: now each buffer has its own length, the hint names the buffers, and a
    buffer's cells are named after it alone (`data[0]`)."""
    path = tmp_path / "two.hlsl"
    path.write_text(TWO_BUFFERS)
    status, _, err = run(["check", "two.hlsl"], monkeypatch, capsys, tmp_path)
    assert status == 2
    assert "the runtime-sized arrays 'data', 'flags' need lengths: --buffer data=LEN --buffer flags=LEN" in err
    assert finished(path, "flags=1", "data=3") == {(("data[0]", 0), ("data[1]", 0), ("data[2]", 0), ("flags[0]", 3))}
    # Slang's shared member name sizes nothing (glslang's `@data` sized every buffer at once)
    status, _, err = run(["check", "--buffer", "__member0=1", "two.hlsl"], monkeypatch, capsys, tmp_path)
    assert status == 2 and "--buffer __member0=1: no runtime-sized array is called '__member0'" in err


def test_a_layout_error_inside_a_step_has_the_instruction_line(tmp_path, monkeypatch):
    """An InputError raised below the interpreter without a position (a layout's)
    is given the line of the instruction that ran into it."""
    path = tmp_path / "two.hlsl"
    path.write_text(TWO_BUFFERS)
    real = layout.Types.leaves

    def leaves(self, tid, name, offset=0):
        if name == "":  # an access's cells, not the layout's names
            raise InputError(f"a value of type %{tid} cannot be kept in 32-bit cells")
        return real(self, tid, name, offset)

    monkeypatch.setattr(layout.Types, "leaves", leaves)
    # line 7: Slang's -g2 stores the parameter `id` into a debug variable first
    with pytest.raises(InputError, match=r"two.hlsl:7: OpStore: a value of type %\d+ cannot be kept"):
        terminal_memories(kernel_system(path, given_settings(None, ["flags=1", "data=3"], [], None, None)), None, None)


def test_every_launch_problem_at_once(tmp_path, monkeypatch, capsys):
    """A --buffer that names nothing and a missing length; two --init items that name
    nothing: the first alone was reported, one run per problem."""
    path = tmp_path / "two.hlsl"
    path.write_text(TWO_BUFFERS)
    args = ["check", "--buffer", "ghost=2", "--buffer", "flags=1", "two.hlsl"]
    status, _, err = run(args, monkeypatch, capsys, tmp_path)
    assert status == 2
    assert "--buffer ghost=2: no runtime-sized array is called 'ghost'" in err
    assert "the runtime-sized array 'data' needs a length: --buffer data=LEN" in err
    args = ["check", "--buffer", "data=1", "--buffer", "flags=1", "--init", "nope=1", "--init", "nada=2", "two.hlsl"]
    status, _, err = run(args, monkeypatch, capsys, tmp_path)
    assert status == 2 and "--init nope=1: no shared memory cell" in err and "--init nada=2: no shared memory" in err


def test_hlsl_as_dxc_reads_it():
    """OneSweep's two DXC idioms that Slang's HLSL mode refused (9 errors): a vector cast
    to its scalar type is its first component, a `for` variable is its loop's. Sums by hand:
    lane 0: 1+2 + 2+1 = 6, lane 1: 2 + 2 = 4, lanes 2, 3: 0; ballot(lane < 2).x = 3."""
    (final,) = finished(REPRO / "hlsl_dxc_idioms.hlsl", "results=4")
    assert dict(final) == {"results[0]": 63, "results[1]": 43, "results[2]": 3, "results[3]": 3}


BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark: Windows editors (Visual Studio) write it first


@pytest.mark.parametrize(
    "name, source, options",
    [
        ("lock.comp.glsl", REPRO / "tas_spinlock.glsl", ["--expect-header"]),
        ("spin.hlsl", REPRO / "hlsl_spin_legalized.hlsl", ["--workgroups", "2", "--buffer", "b=2"]),
        ("lock.spvasm", Path(__file__).parents[1] / "litmus" / "kernels" / "spvasm_spinlock.spvasm", []),
    ],
)
def test_a_byte_order_mark_is_not_part_of_the_kernel(name, source, options, tmp_path, monkeypatch, capsys):
    """A kernel file saved with a UTF-8 byte order mark was refused at 1:1 (glslang's
    "unexpected token", Slang's and spirv-as's too) and its header went unread."""
    (tmp_path / name).write_bytes(BOM + source.read_bytes())
    status, out, err = run(["check", *options, name], monkeypatch, capsys, tmp_path)
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / name).write_bytes(source.read_bytes())
    assert (status, out) == run(["check", *options, name], monkeypatch, capsys, tmp_path / "plain")[:2], err


def test_an_included_file_may_start_with_a_byte_order_mark(tmp_path, monkeypatch, capsys):
    text = (REPRO / "tas_spinlock.glsl").read_text()
    header, body = text.split("#version 450\n")
    (tmp_path / "body.h").write_bytes(BOM + body.encode())
    (tmp_path / "k.comp").write_text(header + '#version 450\n#include "body.h"\n')
    status, out, err = run(["check", "--expect-header", "k.comp"], monkeypatch, capsys, tmp_path)
    assert status == 0, err
    assert "k: all 11 expected verdicts hold" in out


SPIRV_BRANCH = """RWStructuredBuffer<uint> b : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 gid : SV_GroupID)
{
#if defined(__spirv__) && __HLSL_VERSION >= 2021
    b[0] = 1;
#else
    uint old;
    InterlockedAdd(b[0], 2, old);
#endif
}
"""


def test_hlsl_takes_its_spirv_branch_as_under_dxc(tmp_path):
    """DXC defines `__spirv__` when it writes SPIR-V (its test CodeGenSPIRV/ifdef.spirv.hlsl),
    and `__HLSL_VERSION` 2021 by default; Slang defines no `__spirv__` and says 2018, so a
    kernel took its D3D or pre-2021 branch (b[0] = 2 here); and the guard, which
    preprocesses apart, must take the same branch (else it asks for the D3D branch's atomic)."""
    path = tmp_path / "branch.hlsl"
    path.write_text(SPIRV_BRANCH)
    assert finished(path, "b=1") == {(("b[0]", 1),)}
    path.write_text("#define __spirv__ 1\n" + SPIRV_BRANCH)  # a kernel may define it itself
    assert finished(path, "b=1") == {(("b[0]", 1),)}
