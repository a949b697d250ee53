"""Issue 28, part 3: `#include` (quoted and angled, GL_GOOGLE_include_directive, as shaderc
reads it) from the file's folder and `-I DIR`, and `-D NAME[=VALUE]`, for GLSL and HLSL; the
playground keeps refusing includes. Every tree is written here, in tmp_path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from progress.cli import main
from progress.errors import InputError
from progress.front.header import LaunchSettings
from progress.front.spirv import load, toolchain
from progress.front.spirv.include import MAX_DEPTH, expand, split_by_file

EXPECT = (
    "// expect: unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F"
    " | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P"
)
KERNEL = (
    """// progress: --workgroups 2
"""
    + EXPECT
    + """
#version 450
#include "mp/buffers.h"
#include <waits.h>
layout(local_size_x = 1) in;
void main() {
    if (gl_WorkGroupID.x == 0u) {
        data = VALUE;
        atomicExchange(flag, 1u);
    } else {
        wait_for_flag();
        got = data;
    }
}
"""
)
BUFFERS = """#pragma once
layout(set = 0, binding = 0) buffer B { uint flag; uint data; uint got; };
#include "values.h"
"""
VALUES = """#ifndef VALUE
#define VALUE 7u
#endif
"""
WAITS = """#ifndef WAITS_H
#define WAITS_H
void wait_for_flag() {
    while (atomicAdd(flag, 0u) == 0u) {
    }
}
#endif
"""


def tree(root: Path) -> Path:
    """kernels/mp.comp including kernels/mp/buffers.h (which includes values.h beside it,
    quoted) and <waits.h> from lib/ (an -I folder)."""
    (root / "kernels" / "mp").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "kernels" / "mp.comp").write_text(KERNEL)
    (root / "kernels" / "mp" / "buffers.h").write_text(BUFFERS)
    (root / "kernels" / "mp" / "values.h").write_text(VALUES)
    (root / "lib" / "waits.h").write_text(WAITS)
    return root / "kernels" / "mp.comp"


def run(args: list[str], monkeypatch, capsys, cwd: Path) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "stdout", sys.stdout)
    with pytest.raises(SystemExit) as exit_info:
        main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


def test_quoted_and_angled_includes_give_the_message_passing_verdicts(tmp_path, monkeypatch, capsys):
    tree(tmp_path)
    status, out, err = run(["check", "--expect-header", "-I", "lib", "kernels/mp.comp"], monkeypatch, capsys, tmp_path)
    assert status == 0, err
    assert "all 11 expected verdicts hold" in out


def test_lines_in_an_included_file_are_its_own(tmp_path, monkeypatch, capsys):
    """The wait is in lib/waits.h, line 4: the lasso says so, with that line's text."""
    tree(tmp_path)
    status, out, _ = run(
        ["check", "-I", "lib", "-m", "OBE", "--witness", "kernels/mp.comp"], monkeypatch, capsys, tmp_path
    )
    assert status == 1
    assert "lib/waits.h:4  while (atomicAdd(flag, 0u) == 0u) {" in out


def test_angled_includes_look_only_in_the_include_folders(tmp_path, monkeypatch, capsys):
    tree(tmp_path)
    (tmp_path / "kernels" / "waits.h").write_text(WAITS)  # beside the kernel: not where <> looks
    status, _, err = run(["check", "kernels/mp.comp"], monkeypatch, capsys, tmp_path)
    assert status == 2
    assert "kernels/mp.comp:5:1: error: #include <waits.h>: no such file in the -I folders (no -I folder given)" in err


def test_defines_reach_the_preprocessor_and_the_command_line_wins(tmp_path, monkeypatch, capsys):
    """VALUE is what workgroup 1 reads: 7 by default, 9 by the header's -D, 5 by the command line's."""
    path = tree(tmp_path)

    def got(*args: str) -> int:
        from progress.cli.kernel import given_settings, kernel_system, terminal_memories

        given = given_settings(None, [], [], None, None, include_dirs=["lib"], defines=list(args))
        memories = set(terminal_memories(kernel_system(path, given), None, None))
        return {dict(m)["got"] for m in memories}.pop()

    monkeypatch.chdir(tmp_path)
    assert got() == 7
    path.write_text(KERNEL.replace("// progress: --workgroups 2", "// progress: --workgroups 2 -D VALUE=9u"))
    assert got() == 9
    assert got("VALUE=5u") == 5


def test_a_header_include_folder_is_relative_to_the_kernel(tmp_path, monkeypatch, capsys):
    path = tree(tmp_path)
    path.write_text(KERNEL.replace("// progress: --workgroups 2", "// progress: --workgroups 2 -I ../lib"))
    (tmp_path / "elsewhere").mkdir()
    status, out, err = run(
        ["check", "--expect-header", "../kernels/mp.comp"], monkeypatch, capsys, tmp_path / "elsewhere"
    )
    assert status == 0, err


def test_a_missing_include_in_an_inactive_branch_is_no_error_and_lines_stay(tmp_path, monkeypatch, capsys):
    """`#ifdef` around an include that is not there: skipped, as a preprocessor does; the
    #line after the branch puts the later lines back (the error names line 8)."""
    source = '#version 450\n#include "there.h"\n#ifdef NEVER\n#include "absent.h"\n#endif\n'
    source += "layout(local_size_x = 1) in;\nvoid main() {\n    undeclared = 1u;\n}\n"
    (tmp_path / "k.comp").write_text(source)
    (tmp_path / "there.h").write_text("// one\n// two\n// three\n")
    status, _, err = run(["check", "k.comp"], monkeypatch, capsys, tmp_path)
    assert status == 2
    assert "k.comp:8:5: error: 'undeclared' : undeclared identifier" in err
    assert "    undeclared = 1u;" in err


def test_an_include_cycle_without_a_guard_is_refused(tmp_path):
    (tmp_path / "a.h").write_text('#include "b.h"\n')
    (tmp_path / "b.h").write_text('#include "a.h"\n')
    with pytest.raises(InputError, match=f"includes nest deeper than {MAX_DEPTH}"):
        expand('#include "a.h"\n', "k.comp", "kernel.comp", "glsl", tmp_path)


def test_pragma_once_reads_a_file_once(tmp_path):
    (tmp_path / "once.h").write_text("#pragma once\nint x;\n")
    expanded = expand('#version 450\n#include "once.h"\n#include "once.h"\n', "k.comp", "kernel.comp", "glsl", tmp_path)
    assert expanded.text.count("int x;") == 1


def test_split_by_file_keeps_each_files_lines():
    text = '#version 450\n#line 2 "kernel.comp"\nint a;\n#line 1 "x.h"\nint b;\n\nint c;\n#line 4 "kernel.comp"\nint d;'
    assert split_by_file(text, "kernel.comp") == {
        "kernel.comp": "#version 450\nint a;\n\nint d;",
        "x.h": "int b;\n\nint c;",
    }


HLSL = """// progress: --workgroups 2 --buffer b=2
#include "buf.hlsli"
[numthreads(1, 1, 1)]
void main(uint3 gid : SV_GroupID)
{
    if (gid.x == 0) {
        while (b[1] == 0) {}
    } else {
        publish();
    }
}
"""
HLSLI = """globallycoherent RWStructuredBuffer<uint> b : register(u0);
void publish() {
#if 0
    InterlockedAdd(b[0], 1);
#endif
    InterlockedCompareStore(b[1], 0, ONE);
}
"""


def hlsl_tree(root: Path) -> Path:
    (root / "inc").mkdir()
    (root / "k.hlsl").write_text(HLSL)
    (root / "inc" / "buf.hlsli").write_text(HLSLI)
    return root / "k.hlsl"


def test_hlsl_includes_and_defines_through_slang(tmp_path, monkeypatch, capsys):
    """The comparestore repro with the store in an included file: only fair terminates;
    with ONE=0 the store writes 0 and nobody terminates."""
    hlsl_tree(tmp_path)
    status, out, err = run(["check", "-I", "inc", "-D", "ONE=1", "k.hlsl"], monkeypatch, capsys, tmp_path)
    assert status == 1, err
    assert "2 verdict(s) guaranteed to terminate, 9 may not terminate" in out
    status, out, err = run(["check", "-I", "inc", "-DONE=0", "k.hlsl"], monkeypatch, capsys, tmp_path)
    assert "0 verdict(s) guaranteed to terminate, 11 may not terminate" in out


def test_the_guard_reads_included_files(tmp_path, monkeypatch):
    """Forced through glslang's HLSL front end: the dropped atomic is in the included file,
    at its line there (the one in `#if 0` is not asked for), and the wait in the kernel."""
    path = hlsl_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(
        load,
        "compile_shader",
        lambda data, kind, name, entry, limits, defines=(): toolchain.glslang_hlsl(data, name, defines=defines),
    )
    monkeypatch.setitem(load.COMPILER, "hlsl", "glslang (HLSL)")
    given = LaunchSettings(include_dirs=("inc",), defines=(("ONE", "1"),), buffers={"@data": 2})
    with pytest.raises(InputError) as caught:
        load.load_kernel(path.read_bytes(), "k.hlsl", "hlsl", given, origin=Path("."))
    rendered = caught.value.render()
    assert "inc/buf.hlsli:6:5: error: glslang (HLSL) compiled InterlockedCompareStore without an atomic" in rendered
    assert "k.hlsl:7:9: error: glslang (HLSL) left no read of 'b'" in rendered
    assert "InterlockedAdd" not in rendered


def test_the_playground_refuses_includes():
    with pytest.raises(InputError, match="#include is not read here") as caught:
        load.load_kernel(b'#version 450\n#include "x.h"\nvoid main() {}\n', "kernel.comp", "glsl", origin=None)
    assert str(caught.value.position) == "kernel.comp:2:1"


def test_the_corpus_engine_lock_takes_a_define(monkeypatch):
    """litmus/kernels/engine_ticket_lock.comp.glsl: its lock in litmus/include/; `counter`
    ends at 3 workgroups x INCREMENT (1 by default)."""
    from progress.cli.kernel import given_settings, kernel_system, terminal_memories

    path = Path(__file__).parent.parent / "litmus" / "kernels" / "engine_ticket_lock.comp.glsl"

    def counter(*defines: str) -> set[int]:
        system = kernel_system(path, given_settings(None, [], [], None, None, defines=list(defines)))
        return {dict(m)["counter"] for m in terminal_memories(system, None, None)}

    assert counter() == {3}
    assert counter("INCREMENT=4u") == {12}


WGSL = "// progress: --workgroups 1 -D N=2\n@compute @workgroup_size(1) fn main() {}\n"
SPVASM = Path(__file__).parent.parent / "litmus" / "kernels" / "spvasm_spinlock.spvasm"


@pytest.mark.parametrize(
    "args",
    [["-D", "N=2", str(SPVASM)], ["-I", ".", str(SPVASM)], ["-D", "N", "k.wgsl"], ["-I", "lib", "k.wgsl"]],
)
def test_defines_and_include_folders_are_refused_where_nothing_preprocesses(args, tmp_path, monkeypatch, capsys):
    """-D and -I were ignored, without a word, for WGSL and SPIR-V kernels (no preprocessor reads them)."""
    (tmp_path / "k.wgsl").write_text(WGSL.replace(" -D N=2", ""))
    status, out, err = run(["check", *args], monkeypatch, capsys, tmp_path)
    assert status == 2 and "checked 0 test(s)" in out
    kind = "WGSL" if args[-1].endswith(".wgsl") else "SPIR-V assembly"
    assert f"{args[0]} is for GLSL and HLSL kernels: a {kind} kernel has no preprocessor" in err


def test_a_define_in_a_wgsl_header_is_refused_at_its_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "k.wgsl").write_text(WGSL)
    status, _, err = run(["check", "k.wgsl"], monkeypatch, capsys, tmp_path)
    assert status == 2
    assert "k.wgsl:1:29: error: -D is for GLSL and HLSL kernels: a WGSL kernel has no preprocessor" in err


VULKAN_ONLY = """#version 450
#extension GL_GOOGLE_include_directive : require
#ifdef VULKAN
#define INCREMENT 1u
#else
#include <stdint.h>
#endif
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint counter; };
void main() {
    atomicAdd(counter, INCREMENT);
}
"""


def test_the_guard_preprocesses_as_the_compiler_does(tmp_path, monkeypatch, capsys):
    """glslang -V defines VULKAN (100); the guard's glslang -E did not, so the branch a
    Vulkan build skips (Mesa's `#include <stdint.h>` in build_interface.h) was read and
    the kernel refused ('Could not process include directive')."""
    (tmp_path / "k.comp").write_text(VULKAN_ONLY)
    status, out, err = run(["check", "--workgroups", "2", "k.comp"], monkeypatch, capsys, tmp_path)
    assert status == 0, err
    assert "11 verdict(s) guaranteed to terminate" in out


def test_a_define_of_what_glslang_defines_names_the_define(tmp_path, monkeypatch, capsys):
    """`-D VULKAN` was refused at the position '-1:1:1' (glslang's name for its -D lines)."""
    (tmp_path / "k.comp").write_text(VULKAN_ONLY)
    status, _, err = run(["check", "-D", "VULKAN", "k.comp"], monkeypatch, capsys, tmp_path)
    assert status == 2 and "-1:" not in err
    assert "k.comp: a -D given for it: '#define' : Macro redefined; different substitutions: VULKAN" in err
    assert "(glslang defines VULKAN 100 itself for Vulkan)" in err


def test_a_kernels_own_problems_come_before_its_includes(tmp_path, monkeypatch, capsys):
    """Problems were sorted by file name, so an included `a.h` came before the kernel
    `z.comp`, and a kernel named by an absolute path came before the includes shown
    relative to the working folder: now the kernel first, then its includes in order."""
    (tmp_path / "a.h").write_text("uint half_of(uint x) { return uint(exp(float(x))); }\n")
    (tmp_path / "z.comp").write_text(
        "#version 450\n#extension GL_GOOGLE_include_directive : require\n\n"
        '#include "a.h"\nlayout(local_size_x = 1) in;\n'
        "layout(set = 0, binding = 0) buffer B { uint v; };\n"
        "void main() {\n    v = uint(exp(float(v))) + half_of(v);\n}\n"
    )
    status, _, err = run(["check", "z.comp"], monkeypatch, capsys, tmp_path)
    files = [line.split(":")[0] for line in err.splitlines() if ": error: " in line]
    assert status == 2 and files[0] == "z.comp" and "a.h" in files
    assert files == sorted(files, key=lambda file: file != "z.comp")


SIZED = """#version 450
#define BLOCK_SIZE 4
#define STEP \\
    1u
layout(local_size_x = BLOCK_SIZE) in;
layout(set = 0, binding = 0) buffer B { uint counter; };
void main() {
    atomicAdd(counter, STEP);
}
"""


def test_redefine_gives_a_kernels_own_define_another_value(tmp_path, monkeypatch):
    """Published kernels fix their sizes with plain #defines, which -D cannot change
    ('Macro redefined'); --redefine NAME=VALUE rewrites the kernel's own #define line
    (a continued one keeps its lines, blank) and nothing else."""
    from progress.cli.kernel import given_settings, kernel_system, terminal_memories

    path = tmp_path / "sized.comp"
    path.write_text(SIZED)

    def counter(*redefines: str) -> set[int]:
        settings = given_settings("2", [], [], None, None, redefines=list(redefines))
        return {dict(m)["counter"] for m in terminal_memories(kernel_system(path, settings), None, None)}

    assert counter() == {8}  # 2 workgroups x 4 invocations x 1
    assert counter("BLOCK_SIZE=1") == {2}
    assert counter("BLOCK_SIZE=1", "STEP=5u") == {10}
    path.write_text("// progress: --redefine BLOCK_SIZE=2\n" + SIZED)  # a header may give it too
    assert counter() == {4} and counter("BLOCK_SIZE=3") == {6}  # the command line's wins
    with pytest.raises(InputError, match="Macro redefined"):  # what -D does with it
        load.load_kernel(SIZED.encode(), "sized.comp", "glsl", LaunchSettings(defines=(("BLOCK_SIZE", "1"),)))


def test_redefine_keeps_lines_and_refuses_what_it_cannot_do(tmp_path, monkeypatch, capsys):
    (tmp_path / "sized.comp").write_text(SIZED.replace("atomicAdd(counter, STEP);", "atomicAdd(counter, q);"))
    status, _, err = run(["check", "--redefine", "STEP=2u", "sized.comp"], monkeypatch, capsys, tmp_path)
    assert status == 2 and "sized.comp:8:" in err and "'q' : undeclared identifier" in err  # line 8 still
    (tmp_path / "k.comp").write_text(SIZED)
    status, _, err = run(["check", "--redefine", "NOPE=1", "k.comp"], monkeypatch, capsys, tmp_path)
    assert status == 2 and "--redefine NOPE: no '#define NOPE' in the kernel or its includes" in err
    (tmp_path / "f.comp").write_text(SIZED.replace("#define BLOCK_SIZE 4", "#define BLOCK_SIZE(x) 4"))
    status, _, err = run(["check", "--redefine", "BLOCK_SIZE=1", "f.comp"], monkeypatch, capsys, tmp_path)
    assert status == 2 and "BLOCK_SIZE is a function-like macro here" in err
    (tmp_path / "w.wgsl").write_text("@compute @workgroup_size(1) fn main() {}\n")
    status, _, err = run(["check", "--redefine", "N=1", "w.wgsl"], monkeypatch, capsys, tmp_path)
    assert status == 2 and "--redefine is for GLSL and HLSL kernels" in err
