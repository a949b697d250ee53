"""`progress check` of a kernel file (docs/kernels.md, "Checking a kernel").

A kernel file (.comp, .hlsl, .wgsl, .spv, .spvasm) is loaded by the SPIR-V front end
(`progress.front.spirv.load`: header, compiler, decoder, subset check), its
launch settings are the header's overridden by the command line's, and it
is checked as a `KernelSystem` with the same queries, reports and exit codes
as an .axb test. With `--optimize` the `spirv-opt -O` module is checked too,
and what differs (a verdict, the set of memory states in which every
invocation has returned) is said.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from progress.cli.inputs import display, read_bytes
from progress.core.analyze import KERNEL_STATES, Query, TestReport, check_system
from progress.core.lts import terminal_memories
from progress.errors import Inconclusive, InputError
from progress.front.header import (
    MAX_WORKGROUPS,
    LaunchSettings,
    add_buffer,
    add_push,
    add_spec,
    kernel_expectations,
    parse_define,
    parse_entry,
    parse_include_dir,
    parse_init,
    parse_local_size,
    parse_redefine,
    parse_subgroup_size,
    parse_workgroups,
)
from progress.front.spirv.kernel import KernelSystem
from progress.front.spirv.load import LoadedKernel, kind_of, launch_system, load_kernel, test_name
from progress.report.render import label, phrase

OPTIMIZED = " (spirv-opt -O)"
"""How the optimized module's report is named after the kernel's."""


@dataclass(frozen=True)
class Checked:
    """One checked module: its report and the system it was checked as."""

    report: TestReport
    system: KernelSystem


@dataclass(frozen=True)
class KernelResult:
    """The kernel's check, the optimized module's (with --optimize), the
    lines to show after the verdicts (how the kernel was read:
    `LoadedKernel.notes`, the subgroups; what differs between the two
    modules), and the header's expectations (with --expect-header); a bad
    optimized module loses nothing of the source's check."""

    checked: tuple[Checked, ...]
    differences: tuple[str, ...]
    expected: dict | None
    failed: InputError | None = None
    """Why the spirv-opt -O module could not be checked (then `checked` holds the source's only)."""


def check_kernel(
    path: Path | str,
    given: LaunchSettings,
    queries: list[Query],
    *,
    max_states: int | None,
    time_limit: float | None,
    witnesses: bool,
    known: dict | None = None,
    max_memory: int | None = None,
    reduce: bool = False,
) -> KernelResult:
    """Check the kernel in `path` under the command line's settings `given`;
    with `known` (the verdicts that can be named), read its `expect:` line too."""
    name = display(path)
    data = read_bytes(path)
    kind = kind_of(path) or "spv"
    loaded = load_kernel(data, name, kind, given, origin=_origin(path))
    expected = None if known is None else _expectations(loaded, name, kind, known)
    options = {
        "max_states": max_states,
        "time_limit": time_limit,
        "witnesses": witnesses,
        "max_memory": max_memory,
        "bounded": True,
        "reduce": reduce,
    }
    source = _checked(loaded, test_name(name), name, queries, options)
    notes = loaded.notes + subgroup_notes(loaded.settings, source.system)
    if not loaded.settings.optimize:
        return KernelResult((source,), notes, expected)
    try:
        optimized = _checked(
            load_kernel(data, name, kind, given, optimized=True, origin=_origin(path)),
            test_name(name) + OPTIMIZED,
            name,
            queries,
            options,
        )
    except InputError as error:
        note = (
            f"{test_name(name)}: --optimize: the spirv-opt -O module could not be checked (below); "
            "the verdicts above are the module's as compiled"
        )
        return KernelResult((source,), (*notes, note), expected, error)
    differences = _differences(source, optimized, max_states, time_limit)
    return KernelResult((source, optimized), notes + differences, expected)


def subgroup_notes(settings: LaunchSettings, system: KernelSystem) -> tuple[str, ...]:
    """What a subgroup size (--subgroup-size, Dat3M's @Config T) means to a plain
    model's check, said once a workgroup holds more than one subgroup."""
    size = settings.subgroup_size
    if size is None or system.per_group <= size:
        return ()
    count = -(-system.per_group // size)
    return (
        f"{system.name}: {count} subgroups of {size} invocation{'s' if size > 1 else ''} per workgroup: "
        "subgroups and the invocations in them are fair under a plain --model M, which is (M, fair, fair): "
        "a scoped model such as --model OBE/HSA/unfair schedules them (docs/semantics.md section 10)",
    )


def _expectations(loaded: LoadedKernel, name: str, kind: str, known: dict) -> dict:
    """The `expect:` line of the kernel's header (a binary's: of the source it embeds)."""
    if kind == "spv" and not loaded.source:
        raise InputError(f"{name}: this SPIR-V binary embeds no source, so no header with an expect: line")
    return kernel_expectations(loaded.source, name, "glsl" if kind == "spv" else kind, known)


def _checked(loaded: LoadedKernel, test: str, path: str, queries, options) -> Checked:
    system = launch_system(loaded, test, path)
    return Checked(check_system(system, queries, **options), system)


def kernel_system(path: Path | str, given: LaunchSettings) -> KernelSystem:
    """The kernel in `path` as a System, launched by its header and `given` (`progress show`)."""
    name = display(path)
    loaded = load_kernel(read_bytes(path), name, kind_of(path) or "spv", given, origin=_origin(path))
    return launch_system(loaded, test_name(name), name)


def _origin(path: Path | str) -> Path:
    """The folder a kernel file's quoted `#include`s start from (standard input: the working folder)."""
    return Path(".") if str(path) == "-" else Path(path).parent


def given_settings(
    workgroups,
    buffers,
    inits,
    entry,
    optimize,
    specs=(),
    pushes=(),
    local_size=None,
    workgroup_limit=None,
    subgroup_size=None,
    defines=(),
    include_dirs=(),
    redefines=(),
) -> LaunchSettings:
    """The command line's launch settings (they override each kernel header's);
    `workgroup_limit`: a larger bound on --workgroups (an unchecked device run)."""
    buffer_lengths: dict[str, int] = {}
    for text in buffers:
        add_buffer(text, buffer_lengths)
    spec: list[tuple[str, int]] = []
    push: list[tuple[str, int | None, int | str]] = []
    for text in specs:
        add_spec(text, spec)
    for text in pushes:
        add_push(text, push)
    return LaunchSettings(
        workgroups=None if workgroups is None else parse_workgroups(workgroups, workgroup_limit or MAX_WORKGROUPS),
        buffers=MappingProxyType(buffer_lengths),
        init=tuple(parse_init(text) for text in inits),
        entry=None if entry is None else parse_entry(entry),
        optimize=optimize,
        spec=tuple(spec),
        push=tuple(push),
        local_size=None if local_size is None else parse_local_size(local_size),
        subgroup_size=None if subgroup_size is None else parse_subgroup_size(subgroup_size),
        defines=tuple(parse_define(text) for text in defines),
        include_dirs=tuple(parse_include_dir(text) for text in include_dirs),
        redefines=tuple(parse_redefine(text) for text in redefines),
    )


def _differences(
    source: Checked, optimized: Checked, max_states: int | None, time_limit: float | None
) -> tuple[str, ...]:
    """The verdicts that differ, then the terminal memory states compared on the cells both
    modules have (the cells spirv-opt removed are named, not counted as a difference)."""
    name = source.report.program.name
    lines = [
        f"{name}: --optimize: {label(a)}: {phrase(a)}, after spirv-opt -O {phrase(b)}"
        for a, b in zip(source.report.verdicts, optimized.report.verdicts)
        if a.terminates != b.terminates
    ]
    verdicts_differ = bool(lines)
    try:
        bound = KERNEL_STATES if max_states is None else max_states
        before = terminal_memories(source.system, bound, time_limit)
        after = terminal_memories(optimized.system, bound, time_limit)
    except Inconclusive as stop:
        lines.append(f"{name}: --optimize: terminal memory states not compared ({stop.reason})")
        return tuple(lines)
    only = _cells_on_one_side(source.system, optimized.system)
    if only:
        lines.append(f"{name}: --optimize: {only}; the terminal memory states are compared on the other cells")
        common = {cell for cell, _ in source.system.layout.names} & {cell for cell, _ in optimized.system.layout.names}
        before, after = _projected(before, common), _projected(after, common)
    if before != after:
        lines.append(
            f"{name}: --optimize: the memory states in which every invocation has returned differ: "
            f"{_states(before)} before, {_states(after)} after spirv-opt -O"
        )
    elif not verdicts_differ:
        lines.append(f"{name}: --optimize: the same verdicts and the same terminal memory states after spirv-opt -O")
    return tuple(lines)


def _cells_on_one_side(source: KernelSystem, optimized: KernelSystem) -> str:
    """What spirv-opt removed (or added) among the shared cells, in words ("" if nothing)."""
    before = [cell for cell, _ in source.layout.names]
    after = [cell for cell, _ in optimized.layout.names]
    removed = [cell for cell in before if cell not in set(after)]
    added = [cell for cell in after if cell not in set(before)]
    parts = []
    if removed:
        parts.append(f"spirv-opt -O removed the cells {_few(removed)} (the kernel does not use them)")
    if added:
        parts.append(f"spirv-opt -O added the cells {_few(added)}")
    return "; ".join(parts)


def _few(cells: list[str]) -> str:
    return ", ".join(cells[:6]) + (f" and {len(cells) - 6} more" if len(cells) > 6 else "")


def _projected(memories: frozenset, cells: set[str]) -> frozenset:
    return frozenset(tuple((cell, value) for cell, value in memory if cell in cells) for memory in memories)


def _states(memories: frozenset) -> str:
    if not memories:
        return "none"
    shown = sorted(" ".join(f"{cell}={value}" for cell, value in memory) for memory in memories)
    more = f" and {len(shown) - 4} more" if len(shown) > 4 else ""
    return "{" + "}, {".join(shown[:4]) + "}" + more
