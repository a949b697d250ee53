"""Source lines: OpLine (glslang -g) and DebugLine (-gV, -gVS) give the same
lines; a line lasts until OpNoLine or the end of its block; the text comes
from the embedded source (OpSource + OpSourceContinued), else from `texts`."""

from __future__ import annotations

import subprocess
from pathlib import Path

from progress.front.spirv.asmlines import instruction_starts
from progress.front.spirv.decode import decode
from progress.front.spirv.lines import attach_lines, without_preamble

KERNELS = Path(__file__).parent / "data" / "kernels"
SHARED = ("OpAtomicExchange", "OpAtomicIAdd", "OpLoad", "OpStore", "OpControlBarrier")


def compiled(tmp_path: Path, name: str, flag: str) -> bytes:
    out = tmp_path / f"{name}{flag}.spv"
    subprocess.run(
        ["glslangValidator", "-V", flag, "--target-env", "vulkan1.1", name, "-o", str(out)],
        check=True,
        capture_output=True,
        cwd=KERNELS,
    )
    return out.read_bytes()


def assembled(tmp_path: Path, text: str) -> bytes:
    (tmp_path / "m.spvasm").write_text(text)
    subprocess.run(["spirv-as", str(tmp_path / "m.spvasm"), "-o", str(tmp_path / "m.spv")], check=True)
    return (tmp_path / "m.spv").read_bytes()


def shared_lines(module) -> list[tuple[str, str, int, str]]:
    return [
        (i.opcode, i.source.file, i.source.line, i.source.text)
        for i in module.instructions
        if i.opcode in SHARED and i.source is not None
    ]


def test_debug_info_lines_match_oplines(tmp_path):
    for name in ("barrier.comp", "message.comp", "spinlock.comp"):
        plain = shared_lines(attach_lines(decode(compiled(tmp_path, name, "-g"))))
        texts = {name: (KERNELS / name).read_text()}
        debug = shared_lines(attach_lines(decode(compiled(tmp_path, name, "-gV")), texts=texts))
        with_source = shared_lines(attach_lines(decode(compiled(tmp_path, name, "-gVS"))))
        assert plain and plain == debug == with_source, name
        assert all(text for *_, text in plain)


def test_without_line_information_nothing_is_attached(tmp_path):
    module = attach_lines(decode(compiled(tmp_path, "spinlock.comp", "-g0")))
    assert all(i.source is None for i in module.instructions)


SCOPED = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "k.comp"
OpSource GLSL 450 %file "one
two
"
OpSourceContinued "	three
four"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%one = OpConstant %uint 1
%main = OpFunction %void None %fn
%a = OpLabel
OpLine %file 3 5
%x = OpIAdd %uint %one %one
OpBranch %b
%b = OpLabel
%y = OpIAdd %uint %one %one
OpLine %file 4 0
%z = OpIAdd %uint %one %one
OpNoLine
%w = OpIAdd %uint %one %one
OpReturn
OpFunctionEnd
"""


def test_a_line_lasts_until_no_line_or_the_block_end(tmp_path):
    module = attach_lines(decode(assembled(tmp_path, SCOPED)), rename={"k.comp": "src/k.comp"})
    by_result = {module.view.names.get(i.result, i.result): i for i in module.instructions}
    adds = [i for i in module.instructions if i.opcode == "OpIAdd"]
    branch = next(i for i in module.instructions if i.opcode == "OpBranch")
    assert [(s.file, s.line, s.column, s.text) for s in [adds[0].source, branch.source]] == [
        ("src/k.comp", 3, 5, "three"),
        ("src/k.comp", 3, 5, "three"),
    ]
    assert adds[1].source is None  # the block ended with the branch
    assert adds[2].source.line == 4 and adds[2].source.text == "four"
    assert adds[3].source is None  # OpNoLine
    assert by_result  # the view still reads the module


def test_glslang_preamble_is_dropped():
    text = "// OpModuleProcessed client vulkan100\n// OpModuleProcessed entry-point main\n#line 1\n// header\n"
    assert without_preamble(text) == "// header\n"
    assert without_preamble("#version 450\n") == "#version 450\n"


def test_assembly_lines_skip_comments_and_string_continuations():
    text = '; header\n\nOpCapability Shader ; the one\n%s = OpString "a\n; not a comment\nb"\n  OpNop\n'
    assert instruction_starts(text) == [
        (3, 1, "OpCapability Shader ; the one"),
        (4, 1, '%s = OpString "a'),
        (7, 3, "OpNop"),
    ]
