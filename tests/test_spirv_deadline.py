"""The deadline instrumentation as SPIR-V: spirv-val accepts every result
(every kernel of litmus/kernels/ and of tests/data/kernels/run/, as compiled
and after spirv-opt -O, budget and clock), the pass only adds (the original
instructions survive in order), every loop gets its check at the start of
its body, and a golden file pins the whole output for the hand-written spin
lock (PROGRESS_UPDATE_GOLDEN=1 regenerates it)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from progress.back.spirv_deadline import InstrumentError, instrument
from progress.back.spirv_edit import without_line_info
from progress.back.spirv_encode import encode
from progress.front.spirv.decode import decode
from progress.front.spirv.load import kind_of, load_kernel
from progress.front.spirv.toolchain import assemble, validation_errors

REPO = Path(__file__).parents[1]
KERNELS = sorted((REPO / "litmus" / "kernels").iterdir()) + sorted((REPO / "tests/data/kernels/run").iterdir())
GOLDEN = REPO / "tests" / "golden" / "gpu"


def test_the_loaders_module_is_valid_by_itself():
    """A specialized module has no SpecId left on its frozen constants (spirv-val
    refused spec_ticket_lock.comp's before) and says its specialized LocalSize."""
    for path in sorted((REPO / "litmus" / "kernels").iterdir()):
        kernel = loaded(path)
        assert validation_errors(encode(kernel.module)) == "", path.name
    spec = loaded(REPO / "litmus" / "kernels" / "spec_ticket_lock.comp").module
    modes = [i.operands[1:] for i in spec.instructions if i.opcode == "OpExecutionMode"]
    assert ("LocalSize", 2, 1, 1) in modes


def loaded(path: Path, optimized: bool = False):
    return load_kernel(path.read_bytes(), path.name, kind_of(path) or "", optimized=optimized, origin=path.parent)


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_spirv_val_accepts_every_instrumented_kernel(path):
    for optimized in (False, True):
        kernel = loaded(path, optimized)
        for clock in (False, True):
            done = instrument(kernel.module, kernel.entry.name, clock=clock)
            assert validation_errors(done.binary) == "", (path.name, optimized, clock)
            assert decode(done.binary) == decode(encode(done.module))
            stripped = encode(without_line_info(done.module))
            assert validation_errors(stripped) == ""
            assert not any(i.opcode in ("OpLine", "OpNoLine") for i in decode(stripped).instructions)
    kernel = loaded(path)
    barrier = any(i.opcode == "OpControlBarrier" for i in kernel.module.instructions)
    page = instrument(kernel.module, kernel.entry.name, leave="break", occupiers=not barrier)
    assert validation_errors(page.binary) == "", (path.name, "break")


def _opcodes(module) -> list[tuple]:
    return [(i.opcode, i.result, i.operands) for i in module.instructions if i.opcode not in ("OpLine", "OpNoLine")]


@pytest.mark.parametrize("name", ["ticket_lock.comp", "occupancy_discovery.comp", "lookback_scan.comp"])
def test_the_pass_only_adds_instructions(name):
    """Every original instruction is in the output, in order, but labels (the
    entry block moves behind the prologue), loop merges (a continue target
    may move), branches (retargeted) and built-in reads (redirected)."""
    kernel = loaded(REPO / "litmus" / "kernels" / name)
    done = instrument(kernel.module, kernel.entry.name)
    changed = {"OpLoopMerge", "OpAccessChain", "OpLoad", "OpEntryPoint", "OpBranch", "OpBranchConditional", "OpLabel"}
    before = [i for i in _opcodes(kernel.module) if i[0] not in changed]
    after = iter(_opcodes(done.module))
    assert all(any(x == y for y in after) for x in before)


def test_every_loop_checks_at_the_start_of_its_body():
    kernel = loaded(REPO / "litmus" / "kernels" / "prodcons_queue.comp")
    done = instrument(kernel.module, kernel.entry.name)
    function = next(iter(done.module.view.functions.values()))
    blocks = {b.label: b for f in done.module.view.functions.values() for b in f.blocks}
    headers = [
        b
        for f in done.module.view.functions.values()
        for b in f.blocks
        if any(i.opcode == "OpLoopMerge" for i in b.instructions)
    ]
    assert len(headers) == 5 and function  # the kernel's four loops and the occupiers' wait
    for header in headers:
        assert [i.opcode for i in header.instructions if i.opcode != "OpPhi"] == ["OpLoopMerge", "OpBranch"]
        check = blocks[header.terminator.operands[0].value]
        opcodes = [i.opcode for i in check.instructions]
        assert opcodes[-2:] == ["OpSelectionMerge", "OpBranchConditional"] or "OpAtomicLoad" in opcodes
    assert [s.kind for s in done.sites] == ["loop"] * 4
    assert [s.where.rsplit(":", 1)[1] for s in done.sites] == ["35", "36", "43", "44"]


def test_golden_instrumented_spinlock(tmp_path):
    source = REPO / "litmus" / "kernels" / "spvasm_spinlock.spvasm"
    for clock, name in ((False, "deadline_spinlock.spvasm"), (True, "deadline_spinlock_clock.spvasm")):
        kernel = loaded(source)
        done = instrument(kernel.module, kernel.entry.name, clock=clock)
        (tmp_path / "i.spv").write_bytes(done.binary)
        text = subprocess.run(
            ["spirv-dis", "--raw-id", str(tmp_path / "i.spv")], capture_output=True, text=True, check=True
        ).stdout
        golden = GOLDEN / name
        if os.environ.get("PROGRESS_UPDATE_GOLDEN") == "1":
            golden.write_text(text)
        assert text == golden.read_text(), f"{name} changed: PROGRESS_UPDATE_GOLDEN=1 regenerates it"


TWO_WAY_HEADER = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%zero = OpConstant %uint 0
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %head
%head = OpLabel
%c = OpIEqual %bool %zero %zero
OpLoopMerge %exit %cont None
OpBranchConditional %c %a %b
%a = OpLabel
OpBranch %cont
%b = OpLabel
OpBranchConditional %c %cont %exit
%cont = OpLabel
OpBranch %head
%exit = OpLabel
OpReturn
OpFunctionEnd
"""


def test_a_loop_header_branching_two_ways_inside_the_loop_is_refused():
    """SPIRV-Tools 2023.1 accepted this module; 2025.5 calls it unstructured (the
    header's branch needs a selection merge): the instrumenter refuses it on its own."""
    binary = assemble(TWO_WAY_HEADER.encode(), "two_way.spvasm")
    assert "Selection must be structured" in validation_errors(binary)
    with pytest.raises(InstrumentError, match="neither breaks nor continues"):
        instrument(decode(binary), "main")


def test_an_unknown_entry_point_is_refused():
    kernel = loaded(REPO / "litmus" / "kernels" / "tas_spinlock.comp")
    with pytest.raises(InstrumentError, match="no entry point"):
        instrument(kernel.module, "nope")


def test_sites_name_their_source_lines():
    kernel = loaded(REPO / "tests/data/kernels/run/two_loops.comp")
    done = instrument(kernel.module, kernel.entry.name)
    assert [(s.kind, s.where.rsplit(":", 1)[1], s.text) for s in done.sites] == [
        ("loop", "10", "for (uint i = 0u; i < 4u; i++) {"),
        ("loop", "13", "while (atomicAdd(flag, 0u) == 0u) {"),
    ]
    barrier = instrument(loaded(REPO / "tests/data/kernels/run/barrier_loop.comp").module, "main")
    assert [s.kind for s in barrier.sites] == ["loop", "barrier"]
    called = instrument(loaded(REPO / "tests/data/kernels/run/spin_in_function.comp").module, "main")
    assert [(s.kind, s.function) for s in called.sites] == [("loop", "wait_for(u1;")]
