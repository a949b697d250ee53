"""AXB as a kernel (docs/semantics.md section 8): random AXB programs, written
as GLSL here (independently of `progress export`), compiled by glslang and
checked as SPIR-V, get the AXB checker's 11 verdicts and its state counts,
with and without `spirv-opt -O`."""

from __future__ import annotations

from conftest import agreement_settings, long_twin
from hypothesis import strategies as st
from kernel_helpers import compile_glsl, system

from progress.core.analyze import check_program, check_system, queries_for
from progress.core.program import Instr, Program
from progress.core.registry import all_models

LOCATIONS = ("x", "y")
QUERIES = queries_for(all_models())


def glsl(program: Program) -> str:
    """One workgroup of one invocation per thread; location i is mem[i]; each
    AXB an atomicExchange (atomicOr(.., 0u) when it does not exchange) and a branch."""
    index = {loc: i for i, loc in enumerate(program.locations)}
    bodies = []
    for t, thread in enumerate(program.threads):
        cases = []
        for pc, i in enumerate(thread):
            cell = f"mem[{index[i.loc]}]"
            access = f"atomicExchange({cell}, {i.val}u)" if i.xchg else f"atomicOr({cell}, 0u)"
            cases.append(f"if (pc == {pc}u) {{ pc = {access} == {i.cmp}u ? {i.target}u : {pc + 1}u; }}")
        loop = "\n            else ".join(cases)
        bodies.append(
            f"if (t == {t}u) {{\n        while (pc != {len(thread)}u) {{\n            {loop}\n        }}\n    }}"
        )
    return f"""#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Mem {{ uint mem[{len(program.locations)}]; }};
void main() {{
    uint t = gl_WorkGroupID.x;
    uint pc = 0u;
    {" else ".join(bodies)}
}}
"""


@st.composite
def programs(draw) -> Program:
    threads = []
    for _ in range(draw(st.integers(2, 3))):
        length = draw(st.integers(1, 2))
        thread = []
        for _ in range(length):
            value = draw(st.integers(0, 1))
            xchg = draw(st.booleans())
            thread.append(
                Instr(
                    draw(st.sampled_from(LOCATIONS)),
                    draw(st.integers(0, 1)),
                    draw(st.integers(0, length)),
                    xchg,
                    value if xchg else 0,
                )
            )
        threads.append(tuple(thread))
    used = {i.loc for thread in threads for i in thread}
    init = tuple((loc, draw(st.integers(0, 1))) for loc in sorted(used) if draw(st.booleans()))
    return Program("random", tuple(threads), init)


def _launch_init(program: Program) -> tuple:
    index = {loc: i for i, loc in enumerate(program.locations)}
    return tuple(("mem", index[loc], value) for loc, value in program.init)


def _random_programs_agree(tmp_path_factory, program, optimize):
    folder = tmp_path_factory.mktemp("axb")
    module = compile_glsl(glsl(program), folder / "test", optimize=optimize)
    kernel = system(module, len(program.threads), init=_launch_init(program))
    axb = check_program(program, QUERIES, witnesses=False)
    spirv = check_system(kernel, QUERIES, witnesses=False)
    assert [v.terminates for v in spirv.verdicts] == [v.terminates for v in axb.verdicts], program.to_axb()
    if not optimize:  # the optimizer may merge or split local states, never steps
        assert [v.states for v in spirv.verdicts] == [v.states for v in axb.verdicts], program.to_axb()


test_random_programs_agree, test_random_programs_agree_in_full = long_twin(
    _random_programs_agree,
    (
        programs(),
        st.booleans(),
    ),
    suite=10,
    full=25,
    **agreement_settings(),
)
