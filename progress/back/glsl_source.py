"""An AXB test as a GLSL compute shader in the paper's form (Fig. 11 of
OOPSLA'21): the kernel that `progress check` reads back through SPIR-V
(docs/semantics.md section 8, "AXB as a kernel"), so that the two paths can
be compared test by test.

The shader is a self-contained kernel test (docs/kernels.md):

    // progress: --workgroups N [--init mem[i]=V ...]   the launch
    // expect: ...                                     the AXB test's expectations, if it had them
    #version 450
    layout(local_size_x = 1) in;                       one invocation per workgroup
    buffer Memory { uint mem[L]; };                    set 0, binding 0, std430

Memory layout: one 32-bit `uint` per AXB location, `mem[i]` at byte offset
4*i, locations in order of first use (thread 0 first, then init-only ones),
the same cells as the GPU runner's (`codegen.location_index`). Memory starts
at 0; an `init` becomes `--init mem[i]=V` in the header.

Workgroup t (`gl_WorkGroupID.x`) runs AXB thread t as one
`while (pc != n) switch (pc)` loop with one case per instruction: the case
does the instruction's one atomic access and sets `pc`. An exchanging AXB is
`atomicExchange(mem[i], val)`; a non-exchanging one is `atomicOr(mem[i], 0u)`:
a read-modify-write that leaves the value, as in the CUDA and WGSL backends
(core GLSL 4.50 has no atomic load; `atomicLoad` needs
GL_KHR_memory_scope_semantics and the Vulkan memory model), and, being an
atomic, not a plain load that `spirv-opt -O` may hoist out of a spin loop.
So every AXB step is exactly one visible action of the kernel and the local
computation around it, and the kernel's verdicts are the AXB test's.
Each atomic's line ends in the AXB instruction as a comment, so a lasso
quoting source lines reads as the AXB test. The text is a pure function of
the program and the expectations: the same input gives the same bytes.
"""

from __future__ import annotations

from progress.back.codegen import initial_cells, location_index
from progress.core.program import Instr, Program

ENTRY_POINT = "main"
"""The compute entry point of every exported shader."""

BUFFER = "mem"
"""The name `--init` and `--buffer` use for the memory array (the block's member)."""


def header(program: Program, expect: str | None = None) -> list[str]:
    """The kernel-file header: the launch line, then `// expect: <expect>` if given."""
    inits = [f" --init {BUFFER}[{i}]={v}" for i, v in enumerate(initial_cells(program)) if v != 0]
    lines = [f"// progress: --workgroups {len(program.threads)}" + "".join(inits)]
    if expect is not None:
        lines.append(f"// expect: {expect}")
    return lines


def shader(program: Program, expect: str | None = None) -> str:
    """The GLSL compute shader of `program` (see the module's contract);
    `expect` is the cells of the test's `# expect:` line, copied into the header."""
    cells = location_index(program)
    lines = header(program, expect)
    lines += _preamble(program, cells)
    lines.append("void main() {")
    lines.append("    uint pc = 0u;")
    for t, thread in enumerate(program.threads):
        keyword = "if" if t == 0 else "} else if"
        lines.append(f"    {keyword} (gl_WorkGroupID.x == {t}u) {{  // AXB thread {t}")
        lines += _thread(thread, cells)
    lines += ["    }", "}"]
    return "\n".join(lines) + "\n"


def _preamble(program: Program, cells: dict[str, int]) -> list[str]:
    name = "".join(char if char.isprintable() else "?" for char in program.name)
    layout = [f"//   mem[{index}]: {loc}" for loc, index in cells.items()]
    return [
        f"// The AXB test {name} as a kernel: written by `progress export --format glsl`.",
        "// Workgroup t runs AXB thread t; memory is one uint per AXB location:",
        *layout,
        "#version 450",
        "",
        "layout(local_size_x = 1) in;",
        "",
        "layout(set = 0, binding = 0, std430) buffer Memory {",
        f"    uint {BUFFER}[{len(cells)}];",
        "};",
        "",
    ]


def _thread(thread: tuple[Instr, ...], cells: dict[str, int]) -> list[str]:
    n = len(thread)
    lines = [f"        while (pc != {n}u) {{", "            switch (pc) {"]
    for i, ins in enumerate(thread):
        lines.append(f"            case {i}u:")
        lines += ["                " + line for line in _statement(i, ins, cells[ins.loc], n)]
        lines.append("                break;")
    lines += ["            }", "        }"]
    return lines


def _statement(i: int, ins: Instr, cell: int, n: int) -> list[str]:
    """One AXB: its atomic access (commented with the instruction) and the new pc."""
    comment = f"  // {ins.text(n)}"
    access = f"atomicExchange({BUFFER}[{cell}], {ins.val}u)" if ins.xchg else f"atomicOr({BUFFER}[{cell}], 0u)"
    if ins.is_store(i):
        return [access + ";" + comment, f"pc = {i + 1}u;"]
    return [f"pc = {access} == {ins.cmp}u ? {ins.target}u : {i + 1}u;" + comment]
