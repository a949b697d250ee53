"""Issue 28, part 1: no silent wrong verdict from the toolchain.

The hazards (tests/data/repro/, from the issue): glslang's HLSL front end compiles
`InterlockedCompareStore` to two plain loads, and its legalization deletes a spin on a
plain load. HLSL now goes through Slang at -O0 (right verdicts: only fair terminates),
and the guard (progress/front/spirv/kept.py) refuses a module that lost an atomic or a
wait, shown here by forcing the hazards through glslang's HLSL path."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from progress.cli import main
from progress.errors import InputError
from progress.front.spirv import load, toolchain, tools
from progress.front.spirv.kept import check_kept

REPRO = Path(__file__).parent / "data" / "repro"
GUARD = Path(__file__).parent / "data" / "guard"
ONLY_FAIR = ["may not terminate", "guaranteed to terminate"] + ["may not terminate"] * 4
HAZARDS = ("hlsl_comparestore.hlsl", "hlsl_spin_legalized.hlsl")


def run(args: list[str], monkeypatch, capsys, cwd: Path = REPRO) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "stdout", sys.stdout)
    with pytest.raises(SystemExit) as exit_info:
        main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


def rows(out: str) -> list[str]:
    """Each model's weak verdict, in the table's order (weak and strong agree here)."""
    models = ("unfair", "fair", "HSA", "OBE", "HSA+OBE", "LOBE")
    cells = [re.split(r"\s{2,}", line.strip()) for line in out.splitlines()]
    return [c[1] for c in cells if c[0] in models and len(c) == 4 and c[1] == c[2]]


@pytest.mark.parametrize("name", HAZARDS)
def test_the_hazards_get_the_sources_verdicts_through_slang(name, monkeypatch, capsys):
    """Workgroup 0 spins on b[1] until workgroup 1 sets it: only fair terminates
    (glslang gave 11 x P: the spin was gone)."""
    status, out, err = run(["check", "--workgroups", "2", "--buffer", "b=2", name], monkeypatch, capsys)
    assert status == 1, err
    assert rows(out) == ONLY_FAIR
    assert "2 verdict(s) guaranteed to terminate, 9 may not terminate" in out


def through_glslang(monkeypatch) -> None:
    """Force HLSL through glslang's HLSL front end (the old path) and name it so."""
    monkeypatch.setattr(
        load, "compile_shader", lambda data, kind, name, entry, limits, defines=(): toolchain.glslang_hlsl(data, name)
    )
    monkeypatch.setitem(load.COMPILER, "hlsl", "glslang (HLSL)")


def test_the_guard_refuses_a_dropped_atomic_and_a_deleted_wait(monkeypatch, capsys):
    through_glslang(monkeypatch)
    status, out, err = run(
        ["check", "--workgroups", "2", "--buffer", "@data=2", "hlsl_comparestore.hlsl"], monkeypatch, capsys
    )
    assert status == 2
    assert "checked 0 test(s)" in out and "1 file(s) with bad input" in out  # no verdict at all
    assert (
        "hlsl_comparestore.hlsl:10:9: error: glslang (HLSL) compiled InterlockedCompareStore without an atomic "
        "instruction (0 of 1 kept here)"
    ) in err
    assert "hlsl_comparestore.hlsl:8:9: error: glslang (HLSL) left no read of 'b' in this loop's condition" in err


def test_the_guard_refuses_a_legalized_spin(monkeypatch, capsys):
    through_glslang(monkeypatch)
    status, out, err = run(
        ["check", "--workgroups", "2", "--buffer", "@data=2", "hlsl_spin_legalized.hlsl"], monkeypatch, capsys
    )
    assert status == 2
    assert "hlsl_spin_legalized.hlsl:8:9: error: glslang (HLSL) left no read of 'b'" in err
    assert "InterlockedCompareExchange" not in err  # that one glslang keeps


def module_of(source: str, kind: str = "glsl"):
    binary = toolchain.compile_shader(source.encode(), kind, "k")
    return load._with_lines(load.decode(binary, "k"), kind, "k", source)


def refused(module, text: str, kind: str = "glsl") -> list[str]:
    try:
        check_kept(module, {"k": (text, text)}, kind, "cc")
    except InputError as error:
        return [str(error.position)] + [error.message]
    return []


SPIN = """#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint flag; uint data; };
shared uint s;
void main() {
    uint i = 0u;
    for (uint j = 0u; j < 3u; j++) { i += j; }
    while (flag == 0u) {
    }
    atomicAdd(data, i); s = 1u;
}
"""


def test_a_module_that_keeps_everything_passes():
    assert refused(module_of(SPIN), SPIN) == []


def test_an_atomic_the_module_lacks_is_refused_at_its_statement():
    """The same module against a source with one more atomic on line 10 (two calls there now)."""
    more = SPIN.replace("atomicAdd(data, i);", "atomicAdd(data, i); atomicOr(data, 1u);")
    found = refused(module_of(SPIN), more)
    assert found[0] == "k:10:25" and "cc compiled atomicOr without an atomic instruction (1 of 2 kept here)" in found[1]


def test_a_wait_the_module_lacks_is_refused_and_a_local_loop_is_not_asked_for():
    """A source whose line 7 waits on `flag` where the module has only the local loop."""
    moved = SPIN.replace("for (uint j = 0u; j < 3u; j++)", "while (flag == 2u)  ")
    found = refused(module_of(SPIN), moved)
    assert found[0] == "k:7:5" and "left no read of 'flag'" in found[1]


def test_code_the_preprocessor_removed_is_not_asked_for():
    source = SPIN.replace("    atomicAdd(data, i); s = 1u;\n", "#if 0\n    atomicAdd(data, i);\n#endif\n    s = 1u;\n")
    active = toolchain.preprocessed(source.encode(), "glsl", "k")
    module = module_of(source)
    check_kept(module, {"k": (source, active)}, "glsl", "cc")  # glslang -E blanks the inactive line
    with pytest.raises(InputError, match="atomicAdd"):  # without the preprocessor's view it would be asked for
        check_kept(module, {"k": (source, source)}, "glsl", "cc")


HLSL_UNCALLED = """RWStructuredBuffer<uint> b;
void helper() {
    InterlockedAdd(b[0], 1);
}
[numthreads(1, 1, 1)]
void main() {
    while (b[1] == 0) {}
}
"""


def test_a_function_the_module_does_not_have_is_not_asked_for():
    """Slang leaves out a function nobody calls: its atomic is not missing."""
    assert refused(module_of(HLSL_UNCALLED, "hlsl"), HLSL_UNCALLED, "hlsl") == []


def test_the_copyright_sign_is_read(monkeypatch, capsys):
    """A non-ASCII character in a comment: glslang's -g cuts it in OpSource, which the
    decoder refused ('a literal string is not UTF-8'); now read leniently, the lines
    from the file itself."""
    status, out, err = run(["check", "--expect-header", "tas_spinlock_copyright.comp"], monkeypatch, capsys)
    assert status == 0, err
    assert "all 11 expected verdicts hold" in out
    status, out, err = run(["check", "-m", "unfair", "--witness", "tas_spinlock_copyright.comp"], monkeypatch, capsys)
    assert status == 1, err
    assert "tas_spinlock_copyright.comp:26  while (atomicExchange(lock, 1u) != 0u) {" in out


@pytest.mark.parametrize("name", ["tas_spinlock.glsl", "tas_spinlock.comp.glsl"])
def test_glsl_suffixes_are_kernels(name, tmp_path, monkeypatch, capsys):
    """`.glsl` (and so `.comp.glsl`) was read as an .axb test."""
    (tmp_path / name).write_bytes((REPRO / "tas_spinlock.glsl").read_bytes())
    status, out, err = run(["check", "--expect-header", name], monkeypatch, capsys, tmp_path)
    assert status == 0, err
    assert "tas_spinlock: all 11 expected verdicts hold" in out  # the test's name: the file's without .comp.glsl


def test_slang_gives_the_same_bytes_from_two_cold_caches(tmp_path, monkeypatch):
    """Slang names the compiled file by its temporary path; the toolchain renames it
    `kernel.hlsl`, so one source gives one module (and one kernel hash)."""
    source = (REPRO / "hlsl_comparestore.hlsl").read_bytes()
    binaries = []
    for cache in ("one", "two"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / cache))
        binaries.append(toolchain.compile_shader(source, "hlsl", "k.hlsl"))
    assert binaries[0] == binaries[1]
    assert b"kernel.hlsl\0" in binaries[0] and b"progress-spirv-" not in binaries[0]


def test_the_guard_and_the_subset_report_together(monkeypatch, capsys):
    """The guard's refusal was raised before the subset was looked at: now every problem
    of the kernel comes in one report, in line order."""
    through_glslang(monkeypatch)
    guard = Path(__file__).parent / "data" / "guard"
    status, out, err = run(["check", "--buffer", "b=4", "guard_and_subset.hlsl"], monkeypatch, capsys, guard)
    assert status == 2 and "checked 0 test(s)" in out
    located = [line.split(": error: ")[0] for line in err.splitlines() if ": error: " in line]
    assert [place.split(":")[1] for place in located] == ["7", "9", "11", "13"]  # 7: the float wave sum
    assert "OpGroupNonUniformFAdd: this subgroup operation is not supported" in err
    assert "left no read of 'b' in this loop's condition" in err
    assert "compiled InterlockedCompareStore without an atomic instruction" in err
    assert "Exp of GLSL.std.450 is not supported" in err


def test_atomics_and_waits_behind_macros_are_asked_for():
    """The guard read the source text, where `ADD_ONE(data)` and `WAIT(flag)` show no atomic
    and no loop: a module without them passed. It reads the preprocessor's output now."""
    defines = "#define ADD_ONE(x) atomicOr(x, 1u)\n#define WAIT(x) while (x == 2u) {}\n"
    real = SPIN.replace("#version 450\n", "#version 450\n" + defines)
    real = real.replace("atomicAdd(data, i);", "atomicAdd(data, i); ADD_ONE(data);")
    real = real.replace("for (uint j = 0u; j < 3u; j++) { i += j; }", "WAIT(flag);")
    dropped = real.replace("atomicOr(x, 1u)", "").replace("while (x == 2u) {}", "")  # same lines, no sync
    active = toolchain.preprocessed(real.encode(), "glsl", "k")
    with pytest.raises(InputError) as caught:
        check_kept(module_of(dropped), {"k": (real, active)}, "glsl", "cc")
    found = [f"{e.position}: {e.message}" for e in caught.value.errors]  # at the macro's line, its first word
    assert found[0].startswith("k:9:5: cc left no read of 'flag' in this loop's condition")
    assert found[1].startswith("k:12:5: cc compiled atomicOr without an atomic instruction (1 of 2 kept here)")
    assert refused(module_of(real), real) == []  # the module that keeps them passes


SLANG_ONLY = """RWStructuredBuffer<uint> b;
[numthreads(1, 1, 1)]
void main() {
#ifndef __SLANG__
    InterlockedAdd(b[0], 1);
#endif
    b[1] = 1;
}
"""


def test_the_guard_preprocesses_hlsl_as_slang_does(tmp_path, monkeypatch, capsys):
    """Slang defines __SLANG__ (and __SLANG_COMPILER__; __HLSL_VERSION is given as DXC's 2021); the guard's HLSL
    preprocessor did not, so it asked for the atomic of a branch Slang skips."""
    (tmp_path / "k.hlsl").write_text(SLANG_ONLY)
    status, out, err = run(["check", "--buffer", "b=2", "k.hlsl"], monkeypatch, capsys, tmp_path)
    assert status == 0, err


def test_a_wait_through_a_function_call_is_guarded(monkeypatch, capsys):
    """The wait reads b only through load_flag() -> read_at(): glslang's HLSL legalization
    deleted it and the guard let 11 x P through (the condition names no buffer). Refused now;
    Slang keeps it (OpFunctionCall at the condition's line) and only fair terminates."""
    args = ["check", "--workgroups", "2", "--buffer", "b=2", "call_wait.hlsl"]
    status, out, err = run(args, monkeypatch, capsys, GUARD)
    assert status == 1, err
    assert rows(out) == ONLY_FAIR
    through_glslang(monkeypatch)
    status, out, err = run(args, monkeypatch, capsys, GUARD)
    assert status == 2
    assert (
        "call_wait.hlsl:15:9: error: glslang (HLSL) left no read of 'b' (through load_flag()) in this loop's condition"
    ) in err


def test_a_read_inlined_from_a_call_keeps_the_wait(monkeypatch, capsys):
    """glslang's legalization inlines load_flag(): its atomic is at line 7, in the loop's
    block, and counts for the condition at line 13 (only fair terminates, as through Slang)."""
    through_glslang(monkeypatch)
    status, out, err = run(
        ["check", "--workgroups", "2", "--buffer", "b=2", "call_wait_atomic.hlsl"], monkeypatch, capsys, GUARD
    )
    assert status == 1, err
    assert rows(out) == ONLY_FAIR


CALL_SPIN = """#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint flag; uint data; };
uint read_flag() { return flag; }
uint load_flag() { return read_flag(); }
void main() {
    uint i = 0u;
    for (uint j = 0u; j < 3u; j++) { i += j; }
    while (load_flag() == 0u) {
    }
    atomicAdd(data, i);
}
"""


def test_a_glsl_wait_through_a_function_call_is_guarded():
    """glslang keeps the call (the read is in read_flag, two calls away): accepted. The same
    module against a source whose line 8 also waits through load_flag() is refused there
    (passed before: the condition names no memory)."""
    module = module_of(CALL_SPIN)
    assert refused(module, CALL_SPIN) == []
    moved = CALL_SPIN.replace("for (uint j = 0u; j < 3u; j++)", "while (load_flag() == 2u)      ")
    found = refused(module, moved)
    assert found[0] == "k:8:5" and "left no read of 'flag' (through load_flag())" in found[1]


def disassembled(binary: bytes, tmp_path: Path) -> str:
    (tmp_path / "m.spv").write_bytes(binary)
    argv, env = tools.command("spirv-dis")
    done = subprocess.run([*argv, str(tmp_path / "m.spv")], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def reassembled(text: str, kind: str, source: str):
    """The edited assembly as the guard sees a compiled module (lines from `source`, file k)."""
    return load._with_lines(load.decode(toolchain.assemble(text.encode(), "k"), "k"), kind, "k", source)


def test_a_read_hoisted_out_of_the_wait_is_refused(tmp_path):
    """SPIN's module edited as a compiler that hoists the wait's load would: the access chain
    and the load of `flag`, with their line (8), moved from the loop's condition block to
    the block before the loop, which then spins on a stale value. The guard took the read
    at line 8 for the wait's (it passed before); the read is not in the loop now: refused."""
    text = disassembled(toolchain.compile_shader(SPIN.encode(), "glsl", "k"), tmp_path)
    read = re.search(
        r"\n( *%\w+ = OpAccessChain %_ptr_StorageBuffer_uint %\w+ %int_0\n *%\w+ = OpLoad %uint %\w+)", text
    )
    assert read is not None
    text = text.replace(read.group(0), "")
    header = re.search(r"\n( *OpBranch (%\w+)\n *\2 = OpLabel\n *OpLine (%\w+) 8 0\n *OpLoopMerge)", text)
    assert header is not None
    text = text.replace(header.group(0), f"\n OpLine {header.group(3)} 8 0\n{read.group(1)}{header.group(0)}")
    found = refused(reassembled(text, "glsl", SPIN), SPIN)
    assert found[0] == "k:8:5" and "left no read of 'flag' in this loop's condition" in found[1]
    assert refused(module_of(SPIN), SPIN) == []  # as compiled: kept


def test_an_inlined_read_hoisted_out_of_the_wait_is_refused(tmp_path):
    """call_wait_atomic.hlsl through glslang's HLSL path (its legalization inlines
    load_flag(): the atomic at line 7, the compare at 13, in the loop's block), edited to
    hoist both into the block before the loop: that block has code at the condition's
    line and a read at the called function's line, which the inlined-read rule took for the
    wait's (passed before). Refused now: the loop itself reads nothing."""
    source = (GUARD / "call_wait_atomic.hlsl").read_text()
    text = disassembled(toolchain.glslang_hlsl(source.encode(), "k"), tmp_path)
    loop = re.search(
        r"\n *OpBranch (%\w+)\n *\1 = OpLabel\n"
        r"( *OpLine %\w+ 7 0\n.*\n.*OpAtomicIAdd.*\n *OpLine %\w+ 13 0\n.*OpIEqual.*)\n",
        text,
    )
    assert loop is not None, text
    hoisted = loop.group(0).replace(loop.group(2) + "\n", "")
    hoisted = hoisted.replace(f"OpBranch {loop.group(1)}\n", f"{loop.group(2)}\n OpBranch {loop.group(1)}\n", 1)
    module = reassembled(text.replace(loop.group(0), hoisted), "hlsl", source)
    with pytest.raises(InputError) as caught:
        check_kept(module, {"k": (source, source)}, "hlsl", "cc")
    assert (
        str(caught.value.position) == "k:13:9" and "left no read of 'b' (through load_flag())" in caught.value.message
    )
    as_compiled = reassembled(text, "hlsl", source)
    check_kept(as_compiled, {"k": (source, source)}, "hlsl", "cc")  # in the loop: kept


def test_a_wait_on_a_resource_parameter_is_guarded(monkeypatch, capsys):
    """The wait reads `flags`, a RWStructuredBuffer parameter, not a global: glslang's HLSL
    legalization deleted it and the guard saw no wait (11 x P before). Refused now; through
    Slang only fair terminates, as the source says."""
    args = ["check", "--workgroups", "2", "--buffer", "b=2", "param_wait.hlsl"]
    status, out, err = run(args, monkeypatch, capsys, GUARD)
    assert status == 1, err
    assert rows(out) == ONLY_FAIR
    through_glslang(monkeypatch)
    status, out, err = run(args, monkeypatch, capsys, GUARD)
    assert status == 2, out
    assert "param_wait.hlsl:7:5: error: glslang (HLSL) left no read of 'flags' in this loop's condition" in err


REFERENCE_SPIN = """#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 1) in;
layout(buffer_reference, std430) buffer Flag { uint value; };
layout(set = 0, binding = 0) buffer B { uint data; };
void main() {
    uint i = 0u;
    for (uint j = 0u; j < 3u; j++) { i += j; }
    atomicAdd(data, i);
}
"""


def test_a_wait_through_a_buffer_reference_is_asked_for():
    """A source whose line 8 waits on `f.value`, `f` a buffer reference (no global is called
    f), against a module without that wait: refused (passed before: no memory named)."""
    module = module_of(REFERENCE_SPIN)
    assert refused(module, REFERENCE_SPIN) == []
    moved = REFERENCE_SPIN.replace("for (uint j = 0u; j < 3u; j++)", "Flag f; while (f.value == 0u)  ")
    found = refused(module, moved)
    assert found[0] == "k:8:13" and "left no read of 'f'" in found[1]


PRIVATE_LOOP = """#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint data; };
uint rounds = 0u;
void main() {
    while (rounds < 3u) {
        rounds++;
    }
    data = rounds;
}
"""


def test_a_plain_glsl_global_is_not_memory():
    """`uint rounds;` at the top of a GLSL kernel is the invocation's own (Private): a loop on
    it is no wait. It was taken for memory and the kernel refused ("left no read of 'rounds'";
    Mesa's build_helpers.h has such globals: num_tasks_to_skip, phase_index)."""
    assert refused(module_of(PRIVATE_LOOP), PRIVATE_LOOP) == []
    shared = PRIVATE_LOOP.replace("uint rounds = 0u;", "shared uint rounds;")
    found = refused(module_of(PRIVATE_LOOP), shared)  # the same module against a `shared` global: asked for
    assert found[0] == "k:6:5" and "left no read of 'rounds'" in found[1]


CAS_LOCK = ["may not terminate", "guaranteed to terminate", "may not terminate"] + ["guaranteed to terminate"] * 3


def test_slang_s_lines_for_a_macro_s_code_are_the_define_s(monkeypatch, capsys):
    """Slang gives what a macro expands to the lines of its #define (AnKi's LOCK/UNLOCK; glslang
    gives the using line): the guard refused the lock ("compiled InterlockedCompareExchange
    without an atomic instruction") and the wait ("left no read of 'b'"); both kept now, with
    the verdicts of a CAS lock (Jimara's) and of a spin on a plain load (only fair)."""
    status, out, err = run(
        ["check", "--workgroups", "2", "--buffer", "b=2", "slang_macro_lock.hlsl"], monkeypatch, capsys, GUARD
    )
    assert status == 1, err
    assert rows(out) == CAS_LOCK
    status, out, err = run(
        ["check", "--workgroups", "2", "--buffer", "b=2", "slang_macro_wait.hlsl"], monkeypatch, capsys, GUARD
    )
    assert status == 1, err
    assert rows(out) == ONLY_FAIR
