"""The playground's kernels: a GLSL, HLSL, WGSL or SPIR-V assembly compute
shader's text and the form's launch fields, loaded by the SPIR-V front end
within the request's bounds, as the System `progress check` checks (WGSL
through naga under Node on the server, as the command line reads it:
docs/web.md says why not in the page).

The same path as `progress check k.comp` (`load_kernel`: header, toolchain,
decoder, source lines, spirv-val, the subset; `launch_system`): the header's
`// progress:` options, overridden field by field by the form's, as by the
command line. Every problem is an InputError, at its line and column when
the kernel's text has one; the external tools run at most
`Limits.tool_timeout_s` and `Limits.tool_memory_bytes` each.

A playground kernel is one self-contained text: a GLSL or HLSL source that
could name another file (`#include`, which glslang resolves relative to its
working folder, `../` included, and would embed and quote) is refused
before the compiler runs. The word `include` is refused wherever it stands,
also once line continuations are joined and however comments are placed,
so that no spelling of the directive reaches glslang.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType

from progress.errors import InputError, UsageError
from progress.front.header import (
    LaunchSettings,
    add_buffer,
    add_init,
    add_push,
    add_spec,
    parse_local_size,
    parse_workgroups,
)
from progress.front.spirv.kernel import KernelSystem
from progress.front.spirv.load import LoadedKernel, launch_system, load_kernel
from progress.front.spirv.toolchain import ToolLimits
from progress.source import error_at, source_lines
from progress.web.limits import Limits

SOURCES = {"glsl": "kernel.comp", "hlsl": "kernel.hlsl", "wgsl": "kernel.wgsl", "spvasm": "kernel.spvasm"}
"""Kernel language -> the name its errors and lassos give the text (`kernel.comp:12:5`)."""
TEST_NAME = "kernel"
"""The name of a playground kernel in reports."""


@dataclass(frozen=True)
class LaunchFields:
    """The playground form's launch fields as typed (the URL's `workgroups`,
    `buffer`, `init`, `spec`, `push`, `local_size`): "" is not given.
    `buffer`, `init`, `spec` and `push` hold space-separated `NAME=LEN`,
    `NAME=V` / `NAME[i]=V` and `ID=V` / `NAME=V` items."""

    workgroups: str = ""
    buffer: str = ""
    init: str = ""
    spec: str = ""
    push: str = ""
    local_size: str = ""

    NAMES = ("workgroups", "buffer", "init", "spec", "push", "local_size")
    """The URL's names of the fields, in the form's order."""

    @property
    def given(self) -> bool:
        return any(getattr(self, name).strip() for name in self.NAMES)

    def query(self) -> dict[str, str]:
        """The fields that are given, for a URL."""
        return {name: getattr(self, name) for name in self.NAMES if getattr(self, name).strip()}

    def settings(self) -> LaunchSettings:
        """The launch settings they give, or an InputError naming the field."""
        buffers: dict[str, int] = {}
        init: list[tuple[str, int | None, int]] = []
        spec: list[tuple[str, int]] = []
        push: list[tuple[str, int | None, int | str]] = []
        try:
            workgroups = parse_workgroups(self.workgroups.strip()) if self.workgroups.strip() else None
            local_size = parse_local_size(self.local_size.strip()) if self.local_size.strip() else None
            for item in self.buffer.split():
                add_buffer(item, buffers)
            for item in self.init.split():
                add_init(item, init)
            for item in self.spec.split():
                add_spec(item, spec)
            for item in self.push.split():
                add_push(item, push)
        except UsageError as error:
            raise InputError(f"the launch fields: {error}") from None
        return LaunchSettings(
            workgroups=workgroups,
            buffers=MappingProxyType(buffers),
            init=tuple(init),
            spec=tuple(spec),
            push=tuple(push),
            local_size=local_size,
        )


def load_system(
    text: str, language: str, fields: LaunchFields, limits: Limits
) -> tuple[KernelSystem, LaunchSettings, tuple[str, ...]]:
    """The kernel in `text` launched by its header and `fields` (see the
    module's contract), the settings it is launched with, and what the
    reader says about how it read it (`LoadedKernel.notes`: naga's loop
    bounds removed, overrides' values)."""
    loaded = load_text(text, language, fields, limits)
    return launch_system(loaded, TEST_NAME, SOURCES[language]), loaded.settings, loaded.notes


def load_text(text: str, language: str, fields: LaunchFields, limits: Limits) -> LoadedKernel:
    """The kernel in `text` loaded as `progress check` loads a file, by its header and `fields`."""
    given = fields.settings()
    if language in ("glsl", "hlsl"):
        refuse_includes(text, SOURCES[language])
    data = text.encode("utf-8")
    if not data.strip():
        raise InputError("the kernel is empty: write a compute shader (or pick an example)")
    return load_kernel(data, SOURCES[language], language, given, limits=tool_limits(limits), origin=None)


def tool_limits(limits: Limits) -> ToolLimits:
    """The external tools' limits on a page's kernel."""
    return ToolLimits(limits.tool_timeout_s, limits.tool_memory_bytes)


_INCLUDE = re.compile(r"\binclude\b", re.ASCII)
_SPLICES = (re.compile(r"\\\r?\n"), re.compile(r"\\\s*"))
"""A line continuation as the preprocessor joins it; and any backslash with the blanks after it."""
NO_INCLUDE = (
    "#include is not read here: a playground kernel is one self-contained file (`include` is refused anywhere); "
    "put the included text in its place, or check the file with `progress check FILE -I DIR`, which reads includes"
)


def refuse_includes(text: str, name: str) -> None:
    """An InputError at the first word `include` of `text` (or of it with its
    line continuations joined), so that the compiler never opens a file."""
    found = _INCLUDE.search(text)
    if found is not None:
        line = text.count("\n", 0, found.start()) + 1
        column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
        raise error_at(NO_INCLUDE, line, column, source_lines(text), name)
    if any(_INCLUDE.search(splice.sub("", text)) for splice in _SPLICES):
        raise InputError(f"{name}: {NO_INCLUDE}, also when line continuations join it")


def launch_text(system: KernelSystem, settings: LaunchSettings) -> str:
    """`2 workgroups of 1 invocation`, then the runtime arrays' lengths and initial values given."""
    launch = settings
    groups = max(system.groups) + 1
    parts = [f"{groups} workgroup{'s' if groups != 1 else ''} of {_count(system.per_group, 'invocation')}"]
    if launch.buffers:
        parts.append("buffers " + " ".join(f"{name}={length}" for name, length in sorted(launch.buffers.items())))
    if launch.init:
        parts.append("init " + " ".join(_items(launch.init)))
    if launch.spec:
        parts.append("spec " + " ".join(f"{key}={value}" for key, value in launch.spec))
    if launch.push:
        parts.append("push " + " ".join(_items(launch.push)))
    return ", ".join(parts)


def _items(items: tuple[tuple[str, int | None, int | str], ...]) -> list[str]:
    return [f"{name}{'' if index is None else f'[{index}]'}={value}" for name, index, value in items]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
