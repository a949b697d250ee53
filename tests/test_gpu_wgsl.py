"""Generated WGSL: golden files and the shader's AXB semantics, as text (no wgpu needed).

`tests/test_gpu_wgpu.py` compiles and runs these shaders. Golden files live in
tests/golden/gpu/; regenerate them with PROGRESS_UPDATE_GOLDEN=1 after an
intended change, and review the diff.
"""

from __future__ import annotations

import re

import pytest
from test_gpu_codegen import INPUTS, _check_golden, _program

from progress.back import wgsl_source
from progress.back.mapping import mapping_wgsl
from progress.front.axb.parse import parse_program


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_wgsl_shader_matches_golden(name):
    _check_golden(f"{name}.wgsl", wgsl_source.shader(_program(name)))


def _thread_text(shader: str, t: int) -> str:
    start = shader.index(f"fn thread_{t}(")
    return shader[start : shader.index("\n}\n", start)]


def test_shader_follows_axb_semantics():
    program = parse_program(
        "thread 0\n  AXB(x, 0, 2, false, 0)\n  AXB(y, 0, 2, true, 5)\n"
        "  AXB(x, 1, 0, true, 1)\nthread 1\n  AXB(x, 0, end, true, 1)\n",
        "t.axb",
    )
    shader = wgsl_source.shader(program)
    t0 = _thread_text(shader, 0)
    # instruction 0: a non-exchanging forward jump: value-preserving RMW, no budget charge
    assert "if (pc == 0u) { // AXB(x, 0, 2, false, 0)\n            if (atomicOr(&mem[base + 0u], 0i) == 0i) {" in t0
    # instruction 1: an exchange whose target is pc+1 (a store): value discarded, fall through
    assert "_ = atomicExchange(&mem[base + 1u], 5i);\n            pc = 2u;" in t0
    # instruction 2: a backward jump: charged, then restarts the pass
    assert (
        "if (atomicExchange(&mem[base + 0u], 1i) == 1i) {\n"
        "                if (progress_spin(&spins)) { progress_timeout(instance); return; }\n"
        "                pc = 0u;\n                continue;"
    ) in t0
    assert "_ = atomicExchange(&mem[base + 0u], 1i);\n            pc = 1u;" in _thread_text(shader, 1)
    # instance regions: L = 2 cells per instance
    assert "let base = instance * 2u;" in shader
    assert mapping_wgsl() in shader


def test_every_backward_jump_is_charged_and_nothing_else_loops(oopsla_dir):
    """The termination argument of wgsl_source: the only `loop` is the
    thread's, it iterates only through `continue`, and each `continue` follows
    a budget charge; a backward jump in the program is exactly such a site."""
    for path in sorted(oopsla_dir.glob("*/*.axb"))[::7]:
        program = parse_program(path.read_text(), str(path))
        shader = wgsl_source.shader(program)
        backward = sum(1 for thread in program.threads for i, ins in enumerate(thread) if ins.target <= i)
        assert shader.count("continue;") == backward == shader.count("if (progress_spin(&spins))")
        assert shader.count("loop {") == len(program.threads)
        assert not re.search(r"\b(for|while)\b", shader)
        for t in range(len(program.threads)):
            body = _thread_text(shader, t)
            assert body.count("done = true;\n        break;") == 1


def test_budget_and_expiry_are_in_the_prelude():
    shader = wgsl_source.shader(_program("mutex"))
    assert "if (*spins > params.budget) {\n        atomicStore(&state.expired, 1u);\n        return true;" in shader
    assert "return atomicLoad(&state.expired) != 0u;" in shader
    assert "@compute @workgroup_size(1)\nfn main(" in shader
