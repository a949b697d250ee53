"""`progress check` of a kernel file (docs/kernels.md, "Checking a kernel").

A kernel file (.comp, .hlsl, .spv, .spvasm) is loaded by the SPIR-V front end
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
from progress.core.analyze import Query, TestReport, check_system
from progress.core.lts import Budget, explore_system
from progress.errors import Inconclusive, InputError
from progress.front.header import (
    MAX_WORKGROUPS,
    LaunchSettings,
    add_buffer,
    kernel_expectations,
    parse_entry,
    parse_init,
    parse_workgroups,
)
from progress.front.spirv.kernel import KernelSystem
from progress.front.spirv.load import LoadedKernel, kind_of, launch_system, load_kernel
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
    lines saying what differs between them, and the header's expectations
    (with --expect-header)."""

    checked: tuple[Checked, ...]
    differences: tuple[str, ...]
    expected: dict | None


def check_kernel(
    path: Path | str,
    given: LaunchSettings,
    queries: list[Query],
    *,
    max_states: int | None,
    time_limit: float | None,
    witnesses: bool,
    known: dict | None = None,
) -> KernelResult:
    """Check the kernel in `path` under the command line's settings `given`;
    with `known` (the verdicts that can be named), read its `expect:` line too."""
    name = display(path)
    data = read_bytes(path)
    kind = kind_of(path) or "spv"
    loaded = load_kernel(data, name, kind, given)
    expected = None if known is None else _expectations(loaded, name, kind, known)
    options = {"max_states": max_states, "time_limit": time_limit, "witnesses": witnesses}
    source = _checked(loaded, Path(name).stem, name, queries, options)
    if not loaded.settings.optimize:
        return KernelResult((source,), (), expected)
    optimized = _checked(
        load_kernel(data, name, kind, given, optimized=True), Path(name).stem + OPTIMIZED, name, queries, options
    )
    return KernelResult((source, optimized), _differences(source, optimized, max_states, time_limit), expected)


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
    loaded = load_kernel(read_bytes(path), name, kind_of(path) or "spv", given)
    return launch_system(loaded, Path(name).stem, name)


def given_settings(workgroups, buffers, inits, entry, optimize, workgroup_limit: int | None = None) -> LaunchSettings:
    """The command line's launch settings (they override each kernel header's);
    `workgroup_limit`: a larger bound on --workgroups (an unchecked device run)."""
    buffer_lengths: dict[str, int] = {}
    for text in buffers:
        add_buffer(text, buffer_lengths)
    return LaunchSettings(
        workgroups=None if workgroups is None else parse_workgroups(workgroups, workgroup_limit or MAX_WORKGROUPS),
        buffers=MappingProxyType(buffer_lengths),
        init=tuple(parse_init(text) for text in inits),
        entry=None if entry is None else parse_entry(entry),
        optimize=optimize,
    )


def _differences(
    source: Checked, optimized: Checked, max_states: int | None, time_limit: float | None
) -> tuple[str, ...]:
    name = source.report.program.name
    lines = [
        f"{name}: --optimize: {label(a)}: {phrase(a)}, after spirv-opt -O {phrase(b)}"
        for a, b in zip(source.report.verdicts, optimized.report.verdicts)
        if a.terminates != b.terminates
    ]
    try:
        before = terminal_memories(source.system, max_states, time_limit)
        after = terminal_memories(optimized.system, max_states, time_limit)
    except Inconclusive as stop:
        lines.append(f"{name}: --optimize: terminal memory states not compared ({stop.reason})")
        return tuple(lines)
    if before != after:
        lines.append(
            f"{name}: --optimize: the memory states in which every invocation has returned differ: "
            f"{_states(before)} before, {_states(after)} after spirv-opt -O"
        )
    if not lines:
        lines.append(f"{name}: --optimize: the same verdicts and the same terminal memory states after spirv-opt -O")
    return tuple(lines)


def terminal_memories(system: KernelSystem, max_states: int | None, time_limit: float | None) -> frozenset:
    """The shared memory of every reachable state in which all invocations have returned."""
    explored = explore_system(system, Budget(max_states, time_limit))
    return frozenset(system.cells(state) for state in explored.states if system.finished(state))


def _states(memories: frozenset) -> str:
    if not memories:
        return "none"
    shown = sorted(" ".join(f"{cell}={value}" for cell, value in memory) for memory in memories)
    more = f" and {len(shown) - 4} more" if len(shown) > 4 else ""
    return "{" + "}, {".join(shown[:4]) + "}" + more
