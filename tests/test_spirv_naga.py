"""progress/back/spirv_naga.py: no GPU run is handed a branch naga mistranslates.

Slang wraps a loop body in `switch 0 { default: ... }` and leaves the loop
from inside it; naga's SPIR-V reader made that `break` leave only the switch
(gfx-rs/naga#1575), so hlsl_spec_ticket_lock.hlsl never ended on the H200.
The wrapper is now dropped (naga's WGSL breaks the loop); any other switch
exit is refused with exit 2 at its line. naga-wasm is the oracle here: its
WGSL is read by benchmarks/naga_loop_exits.py's `breaks`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.naga_loop_exits import breaks
from progress.back.spirv_deadline import instrument
from progress.back.spirv_edit import Draft, without_line_info
from progress.back.spirv_encode import encode
from progress.back.spirv_naga import for_naga, switch_exits
from progress.cli import main
from progress.cli.kernel_run import prepared
from progress.front.header import LaunchSettings
from progress.front.spirv.toolchain import validation_errors
from progress.front.wgsl.naga import spirv_to_wgsl

REPO = Path(__file__).parents[1]
HLSL = REPO / "litmus" / "kernels" / "hlsl_spec_ticket_lock.hlsl"
RUN = REPO / "tests" / "data" / "kernels" / "run"


def test_slangs_wrapper_switch_is_dropped_and_nagas_wgsl_breaks_the_loop():
    loaded, launch, _ = prepared(str(HLSL), LaunchSettings(), check=False)
    (found,) = [e for f in Draft(loaded.module).functions for e in switch_exits(f)]
    assert found.kind == "merge"
    assert not [e for f in Draft(for_naga(loaded.module, "k", validation_errors)).functions for e in switch_exits(f)]
    fixed = breaks(spirv_to_wgsl(launch.binary))
    assert [b.leaves for b in fixed].count("loop") == 3  # occupiers' wait, rounds, spin
    assert not [b for b in fixed if b.misplaced]
    # the module as it was before: naga's round-loop exit leaves only the switch
    done = instrument(loaded.module, loaded.entry.name)
    before = breaks(spirv_to_wgsl(encode(without_line_info(done.module))))
    assert len([b for b in before if b.misplaced]) == 1


def refused(path: Path, tmp_path: Path, capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(path), "--iterations", "1", "-o", str(tmp_path / "r.json")])
    assert exit_info.value.code == 2 and not (tmp_path / "r.json").exists()
    return capsys.readouterr().err


def test_a_switch_with_cases_that_breaks_its_loop_is_refused_at_the_line(tmp_path, capsys):
    said = refused(RUN / "switch_break.spvasm", tmp_path, capsys)
    assert "switch_break.spvasm:46:" in said and "switch_break.spvasm: not run" in said
    assert "loop's merge" in said and "gfx-rs/naga#1575" in said


def test_a_continue_from_a_switch_with_cases_is_refused(tmp_path, capsys):
    said = refused(RUN / "switch_continue.comp", tmp_path, capsys)
    assert "switch_continue.comp:11:" in said and "continue target" in said


def test_the_break_reader_tells_a_case_end_from_a_loop_exit():
    wgsl = "fn f() {\n    loop {\n        switch x {\n            case 0: {\n                break;\n            }\n"
    wgsl += "            default: {\n                if c {\n                    break;\n                }\n"
    wgsl += "                break;\n            }\n        }\n        break;\n    }\n}\n"
    assert [(b.line, b.leaves, b.misplaced) for b in breaks(wgsl)] == [
        (5, "switch", False),
        (9, "switch", True),
        (11, "switch", False),
        (14, "loop", False),
    ]


def test_a_wrapper_around_an_if_that_leaves_both_ways_is_dropped():
    path = RUN / "switch_wrapper_if.spvasm"
    loaded, launch, _ = prepared(str(path), LaunchSettings(), check=False)
    (found,) = [e for f in Draft(loaded.module).functions for e in switch_exits(f)]
    assert found.kind == "merge"
    found = breaks(spirv_to_wgsl(launch.binary))
    assert [b.leaves for b in found] == ["loop", "loop"] and not [b for b in found if b.misplaced]
