"""A kernel file's header: its launch settings and expected verdicts.

A kernel file is a self-contained test. Its header is its leading comment
lines (blank lines allowed between them), with the language's marker: `//`
for GLSL and HLSL, `;` for SPIR-V assembly. In it,

    // progress: --workgroups 2 --buffer data=4 --init lock=1 --init data[2]=7
    // expect: unfair F | fair/weak P | ...

`progress:` lines hold options as on the command line (several such lines
add up); `expect:` is the `.axb` files' `# expect:` line (progress/front/expect.py)
with the kernel's marker. The command line overrides the header, option by
option: a scalar given on both wins from the command line, a buffer or an
initial value of the same name (and index) too. The option parsers
(`parse_workgroups`, `parse_buffer`, `parse_init`, `parse_entry`) are
shared with the CLI; they raise UsageError, the header re-raises them as an
InputError at the option's line and column. Pure: text in, settings out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from progress.errors import UsageError
from progress.front.expect import Key, expectations
from progress.source import error_at, source_lines

MAX_WORKGROUPS = 64
DEVICE_WORKGROUPS = 65535
"""The most workgroups `progress run --no-check` dispatches (wgpu's x dimension)."""
"""The most workgroups a dispatch may have: far beyond what a state space can
be explored for, small enough that every model's thread ids stay cheap."""
MAX_BUFFER_LENGTH = 1 << 16
"""The most elements a runtime-sized buffer may be given."""
VALUE_RANGE = (-(2**31), 2**32 - 1)
"""Initial values: 32-bit, signed or unsigned; stored as the unsigned pattern."""

MARKERS = {"glsl": "//", "hlsl": "//", "spvasm": ";"}
"""Kernel kind -> the header's comment marker (a .spv binary has no header)."""

_NAME = r"@?[A-Za-z_][A-Za-z0-9_.]*"
"""A buffer, member or entry point name; glslang names an HLSL structured buffer's member `@data`."""
_BUFFER = re.compile(rf"({_NAME})=(\d+)")
_INIT = re.compile(rf"({_NAME})(?:\[(\d+)\])?=(-?\d+)")
_SETTINGS_LINE = re.compile(r"^([ \t]*{marker}[ \t]*progress:)(.*?)\r?$")


@dataclass(frozen=True)
class LaunchSettings:
    """How to launch a kernel. None / empty = not given (the checker's
    defaults apply: one workgroup, the shader's entry point, no optimizer).
    `buffers`: runtime-sized buffer (or member) name -> its length in
    elements. `init`: (name, element index or None for a scalar, value as a
    32-bit unsigned pattern), in the order given."""

    workgroups: int | None = None
    buffers: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    init: tuple[tuple[str, int | None, int], ...] = ()
    entry: str | None = None
    optimize: bool | None = None

    def overridden_by(self, other: LaunchSettings) -> LaunchSettings:
        """These settings with `other`'s given ones winning (see the module's contract)."""
        replaced = {(name, index) for name, index, _ in other.init}
        return LaunchSettings(
            workgroups=other.workgroups if other.workgroups is not None else self.workgroups,
            buffers=MappingProxyType({**self.buffers, **other.buffers}),
            init=tuple(i for i in self.init if (i[0], i[1]) not in replaced) + other.init,
            entry=other.entry if other.entry is not None else self.entry,
            optimize=other.optimize if other.optimize is not None else self.optimize,
        )


def parse_workgroups(text: str, limit: int = MAX_WORKGROUPS) -> int:
    """`--workgroups N`: 1..limit (MAX_WORKGROUPS for a check; a device run
    that is not checked takes DEVICE_WORKGROUPS)."""
    if not re.fullmatch(r"\d+", text):
        raise UsageError(f"--workgroups wants a whole number, not {_shown(text)}")
    count = _bounded(text)
    if not 1 <= count <= limit:
        raise UsageError(f"--workgroups {_shown(text)} is outside 1..{limit}")
    return count


def parse_buffer(text: str) -> tuple[str, int]:
    """`--buffer NAME=LENGTH`: a runtime-sized array's length, 1..MAX_BUFFER_LENGTH."""
    match = _BUFFER.fullmatch(text)
    if match is None:
        raise UsageError(f"--buffer wants NAME=LENGTH, not {_shown(text)}")
    length = _bounded(match.group(2))
    if not 1 <= length <= MAX_BUFFER_LENGTH:
        raise UsageError(f"--buffer {_shown(text)}: the length is outside 1..{MAX_BUFFER_LENGTH}")
    return match.group(1), length


def parse_init(text: str) -> tuple[str, int | None, int]:
    """`--init NAME=VALUE` or `--init NAME[INDEX]=VALUE`: a 32-bit value."""
    match = _INIT.fullmatch(text)
    if match is None:
        raise UsageError(f"--init wants NAME=VALUE or NAME[INDEX]=VALUE, not {_shown(text)}")
    name, index_digits, value_digits = match.groups()
    index = None if index_digits is None else _bounded(index_digits)
    if index is not None and index >= MAX_BUFFER_LENGTH:
        raise UsageError(f"--init {_shown(text)}: the index is outside 0..{MAX_BUFFER_LENGTH - 1}")
    sign = -1 if value_digits.startswith("-") else 1
    value = sign * _bounded(value_digits.lstrip("-"))
    if not VALUE_RANGE[0] <= value <= VALUE_RANGE[1]:
        raise UsageError(f"--init {_shown(text)}: the value is not a 32-bit integer")
    return name, index, value & 0xFFFFFFFF


def parse_entry(text: str) -> str:
    """`--entry NAME`: the entry point to check."""
    if not re.fullmatch(_NAME, text):
        raise UsageError(f"--entry wants an entry point's name, not {_shown(text)}")
    return text


def _bounded(digits: str) -> int:
    """The value of a string of digits, capped at 10**13 (larger than every
    limit here; a number of any length never raises)."""
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= 12 else 10**13


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:30] + "...")


def header_lines(text: str, marker: str) -> int:
    """How many of `text`'s first lines form its header (comments and blanks)."""
    count = 0
    for line in source_lines(text):
        stripped = line.strip()
        if stripped and not stripped.startswith(marker):
            break
        count += 1
    return count


def _header(text: str, marker: str) -> str:
    return "\n".join(source_lines(text)[: header_lines(text, marker)])


def launch_settings(text: str, path: str, kind: str) -> LaunchSettings:
    """The settings in the header of a kernel of `kind` ("glsl", "hlsl",
    "spvasm"), or an InputError at the option that does not read."""
    marker = MARKERS[kind]
    lines = source_lines(text)
    pattern = re.compile(_SETTINGS_LINE.pattern.format(marker=re.escape(marker)))
    values: dict[str, object] = {}
    buffers: dict[str, int] = {}
    init: list[tuple[str, int | None, int]] = []
    for number, line in enumerate(lines[: header_lines(text, marker)], start=1):
        match = pattern.match(line)
        if match is None:
            continue
        for option, value, column in _options(match.group(2), len(match.group(1)) + 1, number, lines, path):
            try:
                _apply(option, value, values, buffers, init)
            except UsageError as error:
                raise error_at(str(error), number, column, lines, path) from None
    return LaunchSettings(
        workgroups=values.get("workgroups"),  # type: ignore[arg-type]
        buffers=MappingProxyType(buffers),
        init=tuple(init),
        entry=values.get("entry"),  # type: ignore[arg-type]
        optimize=values.get("optimize"),  # type: ignore[arg-type]
    )


FLAGS = ("--optimize",)
VALUED = ("--workgroups", "--buffer", "--init", "--entry")


def _options(rest: str, start: int, number: int, lines: list[str], path: str) -> Iterator[tuple[str, str, int]]:
    """(option, value, column of the value, or of a flag) for each option on a settings line."""
    tokens = [(m.group(), start + m.start()) for m in re.finditer(r"\S+", rest)]
    at = 0
    while at < len(tokens):
        token, column = tokens[at]
        option, equals, inline = token.partition("=")
        if option in FLAGS and not equals:
            yield option, "", column
            at += 1
        elif option in VALUED and equals:
            yield option, inline, column + len(option) + 1
            at += 1
        elif option in VALUED:
            if at + 1 >= len(tokens):
                raise error_at(f"{option} needs a value", number, column, lines, path)
            yield option, tokens[at + 1][0], tokens[at + 1][1]
            at += 2
        else:
            known = ", ".join(VALUED + FLAGS)
            raise error_at(
                f"{_shown(token)} is not a launch setting (a header may give {known})", number, column, lines, path
            )


def _apply(
    option: str,
    value: str,
    values: dict[str, object],
    buffers: dict[str, int],
    init: list[tuple[str, int | None, int]],
) -> None:
    if option == "--buffer":
        add_buffer(value, buffers)
    elif option == "--init":
        add_init(value, init)
    else:
        key = option[2:]
        if key in values:
            raise UsageError(f"{option} is given twice")
        if key == "optimize":
            values[key] = True
        else:
            values[key] = parse_workgroups(value) if key == "workgroups" else parse_entry(value)


def add_buffer(text: str, buffers: dict[str, int]) -> None:
    """`NAME=LEN` added to `buffers`; a UsageError if it is bad or NAME is there already."""
    name, length = parse_buffer(text)
    if name in buffers:
        raise UsageError(f"--buffer {name} is given twice")
    buffers[name] = length


def add_init(text: str, init: list[tuple[str, int | None, int]]) -> None:
    """`NAME=V` or `NAME[i]=V` appended to `init`; a UsageError if it is bad or sets a location twice."""
    item = parse_init(text)
    if any(item[:2] == earlier[:2] for earlier in init):
        raise UsageError(f"--init {text} sets the same location twice")
    init.append(item)


def kernel_expectations(text: str, path: str, kind: str, known: dict[Key, str] | None = None) -> dict[Key, bool]:
    """The header's `expect:` line (progress/front/expect.py's rules, the
    kernel's comment marker); only the header is searched."""
    return expectations(_header(text, MARKERS[kind]), path, known, MARKERS[kind])
