"""WGSL source lines on naga's SPIR-V (progress/front/wgsl/compile.py): each
instruction of a kernel has the line of the statement it comes from, the
markers that carried the lines change nothing naga writes, and lines survive
`spirv-opt -O`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import REPO

from progress.core.analyze import check_system, queries_for
from progress.core.lts import Budget, explore_system
from progress.core.registry import all_models
from progress.errors import InputError
from progress.front.header import launch_settings
from progress.front.spirv.decode import decode
from progress.front.spirv.load import launch_system, load_kernel
from progress.front.wgsl import compile as wgsl_compile
from progress.front.wgsl.compile import FILE_NAME, wgsl_to_spirv

CORPUS = sorted((REPO / "litmus" / "wgsl").glob("*.wgsl"))
WGSL_OF = {
    "OpAtomicLoad": "atomicLoad",
    "OpAtomicStore": "atomicStore",
    "OpAtomicExchange": "atomicExchange",
    "OpAtomicIAdd": "atomicAdd",
    "OpAtomicOr": "atomicOr",
    "OpAtomicCompareExchange": "atomicCompareExchangeWeak",
    "OpControlBarrier": "Barrier()",
}


def loaded(path: Path, optimized: bool = False):
    return load_kernel(path.read_bytes(), f"k/{path.name}", "wgsl", optimized=optimized)


def in_functions(module):
    return [i for f in module.view.functions.values() for b in f.blocks for i in b.instructions]


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_instruction_has_the_line_of_its_statement(path):
    """Of the functions the source defines, after the entry block (where naga
    hoists loads of built-ins and access chains: no line, no visible action);
    naga's own functions (`naga_mod`, which guards `%` against 0) have no line
    and no visible action."""
    kernel = loaded(path)
    text = path.read_text()
    lines = text.split("\n")
    view = kernel.module.view
    for function in view.functions.values():
        entry = function.blocks[0].instructions
        assert not [i for i in entry if i.opcode in WGSL_OF or i.opcode == "OpStore"]
        code = [i for b in function.blocks[1:] for i in b.instructions]
        if f"fn {view.names[function.id]}(" not in text:
            assert view.names[function.id].startswith("naga_")
            assert not [i for i in code if i.opcode in WGSL_OF or i.opcode in ("OpLoad", "OpStore")]
            continue
        _lines_of(code, path, lines)


def _lines_of(code, path: Path, lines: list[str]) -> None:
    for inst in code:
        assert inst.source is not None, inst
        assert inst.source.file == f"k/{path.name}"
        assert inst.source.text == lines[inst.source.line - 1].strip()
        wanted = WGSL_OF.get(inst.opcode)
        prologue = inst.source.text.startswith("fn ")  # naga's zero-initialisation of workgroup memory
        if wanted and not prologue:
            assert wanted in inst.source.text, (inst.opcode, inst.source)


def test_statements_inside_loop_headers_and_else_if_have_their_own_lines(tmp_path):
    source = (
        "@group(0) @binding(0) var<storage, read_write> a: array<atomic<u32>, 4>;\n"  # 1
        "var<workgroup> w: u32;\n"  # 2
        "@compute @workgroup_size(2)\n"  # 3
        "fn main(@builtin(local_invocation_index) me: u32) {\n"  # 4
        "    for (var i = 0u; i < 2u; i += atomicAdd(&a[1], 1u)) {\n"  # 5
        "        w = atomicLoad(&a[0]);\n"  # 6
        "    }\n"  # 7
        "    if (me == 0u) {\n"  # 8
        "        atomicStore(&a[2], 1u);\n"  # 9
        "    } else if (atomicLoad(&a[3]) == 0u) {\n"  # 10
        "        atomicStore(&a[2], 2u);\n"  # 11
        "    }\n"  # 12
        "}\n"
    )
    (tmp_path / "k.wgsl").write_text(source)
    kernel = loaded(tmp_path / "k.wgsl")
    shown = [
        (i.opcode, i.source.line) for i in in_functions(kernel.module) if i.opcode in WGSL_OF or _shared(kernel, i)
    ]
    assert shown == [
        ("OpStore", 4),  # w = 0: naga's zero-initialisation, at `fn main`
        ("OpControlBarrier", 4),
        ("OpAtomicLoad", 6),
        ("OpStore", 6),
        ("OpAtomicIAdd", 5),  # the for loop's update: in its continuing block, at the `for` line
        ("OpAtomicStore", 9),
        ("OpAtomicLoad", 10),  # the else-if's condition, at its own line
        ("OpAtomicStore", 11),
    ]
    assert any("zero-initialises workgroup memory before the first statement of main" in n for n in kernel.notes)


def _shared(kernel, inst) -> bool:
    if inst.opcode not in ("OpLoad", "OpStore"):
        return False
    pointer = kernel.module.view.definitions.get(inst.operands[0].value)
    variable = kernel.module.view.variables.get(pointer.result if pointer.opcode == "OpVariable" else -1)
    return variable is not None and variable.storage_class == "Workgroup"


@pytest.mark.parametrize("path", CORPUS[:6], ids=lambda p: p.name)
def test_lines_survive_the_optimizer(path):
    kernel = loaded(path, optimized=True)
    visible = [i for i in in_functions(kernel.module) if i.opcode in WGSL_OF]
    assert visible and all(i.source is not None and i.source.line > 0 for i in visible)


@pytest.mark.long
def test_the_markers_change_nothing_naga_writes(monkeypatch):
    """Every corpus kernel, compiled marked and unmarked: the same code in every
    function, and the checker finds the same states and verdicts."""
    for path in CORPUS:
        text = path.read_text()
        header = launch_settings(text, path.name, "wgsl")
        launch = {"spec": header.spec, "local_size": header.local_size}
        marked = wgsl_to_spirv(text, path.name, **launch)
        with monkeypatch.context() as patch:
            patch.setattr(wgsl_compile, "_marked", lambda _source: None)
            plain = wgsl_to_spirv(text, path.name, **launch)
        assert any("could not be marked" in n for n in plain.notes)
        assert _code(marked.binary) == _code(plain.binary), path.name
        assert _checked(marked.binary, text, path) == _checked(plain.binary, text, path), path.name


def _code(binary: bytes) -> list[tuple]:
    """The opcodes and literal operands in function bodies (ids differ: the markers used some)."""
    module = decode(binary)
    return [
        (i.opcode, tuple(op for op in i.operands if not hasattr(op, "value")))
        for i in in_functions(module)
        if i.opcode not in ("OpLine", "OpNoLine")
    ]


def _checked(binary: bytes, text: str, path: Path):
    """States and verdicts of the binary launched by the WGSL file's header."""
    settings = load_kernel(text.encode(), path.name, "wgsl").settings
    kernel = replace(load_kernel(binary, path.name, "spv"), settings=settings)
    system = launch_system(kernel, path.stem, path.name)
    explored = explore_system(system, Budget(200_000, None))
    report = check_system(system, queries_for(all_models()), witnesses=False)
    return len(explored.states), [(v.model, v.fairness, v.terminates) for v in report.verdicts]


def test_the_lines_name_the_kernel_file(tmp_path):
    compiled = wgsl_to_spirv("@compute @workgroup_size(1)\nfn main() {\n  var x = 1u;\n}\n", "k.wgsl")
    strings = [i.operands[0] for i in decode(compiled.binary).instructions if i.opcode == "OpString"]
    assert strings == [FILE_NAME]


def test_a_refusal_points_at_the_statement_not_at_the_hoisted_access():
    """naga hoists `&a` to the entry block; the subset's refusal of the exponential
    it reaches is shown at the statement that uses it."""
    source = (
        "@group(0) @binding(0) var<storage, read_write> a: array<f32, 4>;\n"
        "@compute @workgroup_size(1)\nfn main() {\n    let y = 2u;\n    a[0] = exp(a[1]);\n}\n"
    )
    with pytest.raises(InputError) as caught:
        load_kernel(source.encode(), "k.wgsl", "wgsl")
    assert str(caught.value.position) == "k.wgsl:5:5"
    assert "Exp of GLSL.std.450 is not supported" in caught.value.message


@pytest.mark.parametrize(
    ("name", "cells"),
    [
        ("message_passing.wgsl", ["flag", "message.data", "message.result"]),
        ("hlsl_spinlock.wgsl", ["lock[0]", "counter[0]"]),
        ("spec_ticket_lock.wgsl", ["tickets.next", "tickets.serving", "counter"]),
    ],
)
def test_buffers_are_named_by_their_variables(name, cells):
    """naga's block around each buffer has one unnamed member: it takes the buffer's name."""
    path = REPO / "litmus" / "wgsl" / name
    text = path.read_text()
    header = launch_settings(text, name, "wgsl")
    kernel = load_kernel(path.read_bytes(), name, "wgsl", header)
    system = launch_system(kernel, path.stem, name)
    assert [cell for cell, _ in system.cells(system.initial)] == cells
