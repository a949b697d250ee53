"""A kernel file's header: its launch settings and expected verdicts.

A kernel file is a self-contained test. Its header is its leading comment
lines (blank lines allowed between them), with the language's marker: `//`
for GLSL, HLSL and WGSL, `;` for SPIR-V assembly. In it,

    // progress: --workgroups 2 --buffer data=4 --init lock=1 --init data[2]=7
    // progress: --spec 0=2 --push n=3 --local-size 2
    // expect: unfair F | fair/weak P | ...

`progress:` lines hold options as on the command line (several such lines
add up); `expect:` is the `.axb` files' `# expect:` line (progress/front/expect.py)
with the kernel's marker. The command line overrides the header, option by
option: a scalar given on both wins from the command line, a buffer or an
initial value of the same name (and index) too, a specialization or push
constant too. The option parsers (`parse_workgroups`, `parse_buffer`,
`parse_init`, `parse_entry`, `parse_spec`, `parse_push`, `parse_local_size`) are
shared with the CLI; they raise UsageError, the header re-raises them as an
InputError at the option's line and column. Pure: text in, settings out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from progress.errors import SourcePosition, UsageError
from progress.front.expect import Key, expectations
from progress.source import error_at, source_lines

T = TypeVar("T")

MAX_WORKGROUPS = 64
"""The most workgroups a dispatch may have: far beyond what a state space can
be explored for, small enough that every model's thread ids stay cheap."""
DEVICE_WORKGROUPS = 65535
"""The most workgroups `progress run --no-check` dispatches (wgpu's x dimension)."""
MAX_BUFFER_LENGTH = 1 << 16
"""The most elements a runtime-sized buffer may be given."""
MAX_LOCAL_SIZE = 1024
"""The largest workgroup size along one dimension (Vulkan guarantees 1024 along x)."""
VALUE_RANGE = (-(2**31), 2**32 - 1)
"""Initial values: 32-bit, signed or unsigned; stored as the unsigned pattern."""

MARKERS = {"glsl": "//", "hlsl": "//", "wgsl": "//", "spvasm": ";"}
"""Kernel kind -> the header's comment marker (a .spv binary has no header)."""

PREPROCESSED = ("glsl", "hlsl")
"""The kinds whose compiler runs a preprocessor: -D and -I mean something only for these."""


def not_preprocessed(option: str, kind: str) -> str:
    """Why `option` (-D or -I) is refused for a kernel of `kind` (not in PREPROCESSED)."""
    shown = {"wgsl": "WGSL", "spvasm": "SPIR-V assembly", "spv": "SPIR-V binary"}.get(kind, kind)
    return f"{option} is for GLSL and HLSL kernels: a {shown} kernel has no preprocessor (no macros, no #include)"


_NAME = r"(?:@?[A-Za-z_][A-Za-z0-9_.]*|%[A-Za-z0-9_][A-Za-z0-9_.]*)"
"""A buffer, member or entry point name; glslang named an HLSL structured buffer's member `@data`;
a variable without a name is called by its assembly id, `%16`."""
_BUFFER = re.compile(rf"({_NAME})=(\d+)")
_SPEC = re.compile(rf"(\d+|{_NAME})=(-?\d+|true|false)")
_CELL_PATH = rf"{_NAME}(?:\[\d+\]\.[A-Za-z_][A-Za-z0-9_.]*)*"
"""A cell path through arrays of structs: `g_queue[0].m_head`."""
_INIT = re.compile(rf"({_CELL_PATH})(?:\[(\d+)\])?=(-?\d+)")
_PUSH_ADDRESS = re.compile(rf"({_NAME})(?:\[(\d+)\])?=(@{_NAME}(?:[+-]\d+)?)")
_SETTINGS_LINE = re.compile(r"^([ \t]*{marker}[ \t]*progress:)(.*?)\r?$")


@dataclass(frozen=True)
class Input:
    """Initial contents of a variable (Dat3M's `@Input: %name = {{0, 0}}`): `value` is an
    integer or a tuple of values, nested as the variable's type is (a struct's members, an
    array's or a vector's elements; a runtime array's count is its length); `position`
    where the header gave it."""

    name: str
    value: int | tuple[object, ...]
    position: SourcePosition | None = None


@dataclass(frozen=True)
class LaunchSettings:
    """How to launch a kernel. None / empty = not given (the checker's
    defaults apply: one workgroup, the shader's entry point, no optimizer).
    `buffers`: runtime-sized buffer (or member) name -> its length in
    elements. `init`: (name, element index or None for a scalar, value as a
    32-bit unsigned pattern), in the order given. `spec`: (SpecId digits or
    the constant's name, value as a 32-bit pattern) for specialization
    constants. `push`: push constants, as `init`. `local_size`: the
    workgroup size, where the kernel reads it (docs/kernels.md).
    `inputs`: Dat3M's `@Input` items; `subgroup_size`: its `@Config` T."""

    workgroups: int | None = None
    buffers: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    init: tuple[tuple[str, int | None, int], ...] = ()
    entry: str | None = None
    optimize: bool | None = None
    spec: tuple[tuple[str, int], ...] = ()
    push: tuple[tuple[str, int | None, int | str], ...] = ()
    local_size: tuple[int, int, int] | None = None
    inputs: tuple[Input, ...] = ()
    subgroup_size: int | None = None
    defines: tuple[tuple[str, str | None], ...] = ()
    """`-D NAME[=VALUE]` for the compiler's preprocessor (GLSL, HLSL), in the order given."""
    include_dirs: tuple[str, ...] = ()
    """`-I DIR`: where `#include` looks after the including file's folder (a header's are
    relative to the kernel's folder), in the order given."""
    redefines: tuple[tuple[str, str], ...] = ()
    """`--redefine NAME=VALUE`: the value of the kernel's own `#define NAME` (GLSL, HLSL)."""

    def overridden_by(self, other: LaunchSettings) -> LaunchSettings:
        """These settings with `other`'s given ones winning (see the module's contract)."""
        return LaunchSettings(
            workgroups=_given(other.workgroups, self.workgroups),
            buffers=MappingProxyType({**self.buffers, **other.buffers}),
            init=_replaced(self.init, other.init),
            entry=_given(other.entry, self.entry),
            optimize=_given(other.optimize, self.optimize),
            spec=tuple(item for item in self.spec if item[0] not in dict(other.spec)) + other.spec,
            push=_replaced(self.push, other.push),
            local_size=_given(other.local_size, self.local_size),
            inputs=tuple(i for i in self.inputs if i.name not in {o.name for o in other.inputs}) + other.inputs,
            subgroup_size=_given(other.subgroup_size, self.subgroup_size),
            defines=tuple(d for d in self.defines if d[0] not in dict(other.defines)) + other.defines,
            include_dirs=other.include_dirs + self.include_dirs,
            redefines=tuple(r for r in self.redefines if r[0] not in dict(other.redefines)) + other.redefines,
        )

    def spec_over_size(self, other: LaunchSettings) -> frozenset[str]:
        """The `--spec` keys of `other` that win over these settings' `--local-size` where both
        set one constant (`other` gives no size of its own); otherwise setting one constant
        twice is refused (specialize.py)."""
        if self.local_size is None or other.local_size is not None:
            return frozenset()
        return frozenset(key for key, _ in other.spec)


def _given(mine: T | None, theirs: T | None) -> T | None:
    return mine if mine is not None else theirs


Item = TypeVar("Item", bound=tuple[Any, ...])


def _replaced(old: tuple[Item, ...], new: tuple[Item, ...]) -> tuple[Item, ...]:
    """`old`'s items that `new` does not set again (same name and index), then `new`'s."""
    replaced = {(name, index) for name, index, _ in new}
    return tuple(i for i in old if (i[0], i[1]) not in replaced) + new


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
    """`--init NAME=VALUE` or `--init NAME[INDEX]=VALUE` (NAME may pass through an array of
    structs: `g_queue[0].m_head`): a 32-bit value."""
    match = _INIT.fullmatch(text)
    if match is None:
        raise UsageError(f"--init wants NAME=VALUE or NAME[INDEX]=VALUE (NAME[I].MEMBER too), not {_shown(text)}")
    name, index_digits, value_digits = match.groups()
    index = None if index_digits is None else _bounded(index_digits)
    if index is not None and index >= MAX_BUFFER_LENGTH:
        raise UsageError(f"--init {_shown(text)}: the index is outside 0..{MAX_BUFFER_LENGTH - 1}")
    sign = -1 if value_digits.startswith("-") else 1
    value = sign * _bounded(value_digits.lstrip("-"))
    if not VALUE_RANGE[0] <= value <= VALUE_RANGE[1]:
        raise UsageError(f"--init {_shown(text)}: the value is not a 32-bit integer")
    return name, index, value & 0xFFFFFFFF


def parse_spec(text: str) -> tuple[str, int]:
    """`--spec ID=VALUE` or `--spec NAME=VALUE`: a specialization constant by its SpecId
    or its name; VALUE a 32-bit integer, or true/false."""
    match = _SPEC.fullmatch(text)
    if match is None:
        raise UsageError(f"--spec wants ID=VALUE or NAME=VALUE, not {_shown(text)}")
    key, value_text = match.groups()
    if key.isdigit() and _bounded(key) > 0xFFFFFFFF:
        raise UsageError(f"--spec {_shown(text)}: a SpecId is a 32-bit number")
    if value_text in ("true", "false"):
        return key, int(value_text == "true")
    sign = -1 if value_text.startswith("-") else 1
    value = sign * _bounded(value_text.lstrip("-"))
    if not VALUE_RANGE[0] <= value <= VALUE_RANGE[1]:
        raise UsageError(f"--spec {_shown(text)}: the value is not a 32-bit integer")
    return key, value & 0xFFFFFFFF


def parse_push(text: str) -> tuple[str, int | None, int | str]:
    """`--push NAME=VALUE` or `--push NAME[INDEX]=VALUE`: a push constant, read as `--init` is;
    or `--push NAME=@BUFFER[+BYTES]`: a buffer's address (the value is that text)."""
    address = _PUSH_ADDRESS.fullmatch(text)
    if address is not None:
        name, index_digits, value = address.groups()
        return name, None if index_digits is None else _bounded(index_digits), value
    try:
        return parse_init(text)
    except UsageError as error:
        raise UsageError(str(error).replace("--init", "--push", 1)) from None


def parse_local_size(text: str) -> tuple[int, int, int]:
    """`--local-size X[,Y[,Z]]`: the workgroup size, each 1..MAX_LOCAL_SIZE (Y and Z 1 unless given)."""
    parts = text.split(",")
    if not 1 <= len(parts) <= 3 or not all(re.fullmatch(r"\d+", part) for part in parts):
        raise UsageError(f"--local-size wants X, X,Y or X,Y,Z (whole numbers), not {_shown(text)}")
    sizes = [_bounded(part) for part in parts] + [1] * (3 - len(parts))
    if not all(1 <= size <= MAX_LOCAL_SIZE for size in sizes):
        raise UsageError(f"--local-size {_shown(text)}: each size must be in 1..{MAX_LOCAL_SIZE}")
    return sizes[0], sizes[1], sizes[2]


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
    items: dict[str, list] = {"init": [], "push": [], "spec": [], "define": [], "include": [], "redefine": []}
    for number, line in enumerate(lines[: header_lines(text, marker)], start=1):
        match = pattern.match(line)
        if match is None:
            continue
        for option, value, column in _options(match.group(2), len(match.group(1)) + 1, number, lines, path):
            if option in ("-D", "-I", "--redefine") and kind not in PREPROCESSED:
                at = line.rfind(option, 0, column - 1) + 1  # the option's column, not its value's
                raise error_at(not_preprocessed(option, kind), number, at, lines, path)
            try:
                _apply(option, value, values, buffers, items)
            except UsageError as error:
                raise error_at(str(error), number, column, lines, path) from None
    return LaunchSettings(
        workgroups=values.get("workgroups"),  # type: ignore[arg-type]
        buffers=MappingProxyType(buffers),
        init=tuple(items["init"]),
        entry=values.get("entry"),  # type: ignore[arg-type]
        optimize=values.get("optimize"),  # type: ignore[arg-type]
        spec=tuple(items["spec"]),
        push=tuple(items["push"]),
        local_size=values.get("local-size"),  # type: ignore[arg-type]
        subgroup_size=values.get("subgroup-size"),  # type: ignore[arg-type]
        defines=tuple(items["define"]),
        include_dirs=tuple(items["include"]),
        redefines=tuple(items["redefine"]),
    )


FLAGS = ("--optimize",)
VALUED = (
    "--workgroups",
    "--buffer",
    "--init",
    "--entry",
    "--spec",
    "--push",
    "--local-size",
    "--subgroup-size",
    "--redefine",
    "-D",
    "-I",
)
MAX_SUBGROUP = 128
"""The largest subgroup SPIR-V's masks describe (four 32-bit words)."""


def parse_subgroup_size(text: str) -> int:
    """`--subgroup-size N`: 1..MAX_SUBGROUP invocations per subgroup."""
    if not re.fullmatch(r"[0-9]{1,4}", text.strip()) or not 1 <= int(text) <= MAX_SUBGROUP:
        raise UsageError(f"--subgroup-size wants a whole number from 1 to {MAX_SUBGROUP}, not {_shown(text)}")
    return int(text)


def _options(rest: str, start: int, number: int, lines: list[str], path: str) -> Iterator[tuple[str, str, int]]:
    """(option, value, column of the value, or of a flag) for each option on a settings line."""
    tokens = [(m.group(), start + m.start()) for m in re.finditer(r"\S+", rest)]
    at = 0
    while at < len(tokens):
        token, column = tokens[at]
        option, equals, inline = token.partition("=")
        if token[:2] in ("-D", "-I") and len(token) > 2:  # -DNAME=VALUE, -IDIR
            yield token[:2], token[2:], column + 2
            at += 1
        elif token in ("-D", "-I"):
            if at + 1 >= len(tokens):
                raise error_at(f"{token} needs a value", number, column, lines, path)
            yield token, tokens[at + 1][0], tokens[at + 1][1]
            at += 2
        elif option in FLAGS and not equals:
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


def _apply(option: str, value: str, values: dict[str, object], buffers: dict[str, int], items: dict[str, list]) -> None:
    if option == "--buffer":
        add_buffer(value, buffers)
    elif option == "--init":
        add_init(value, items["init"])
    elif option == "--push":
        add_push(value, items["push"])
    elif option == "--spec":
        add_spec(value, items["spec"])
    elif option == "-D":
        items["define"].append(parse_define(value))
    elif option == "-I":
        items["include"].append(parse_include_dir(value))
    elif option == "--redefine":
        items["redefine"].append(parse_redefine(value))
    else:
        key = option[2:]
        if key in values:
            raise UsageError(f"{option} is given twice")
        if key == "optimize":
            values[key] = True
        elif key == "workgroups":
            values[key] = parse_workgroups(value)
        elif key == "subgroup-size":
            values[key] = parse_subgroup_size(value)
        else:
            values[key] = parse_local_size(value) if key == "local-size" else parse_entry(value)


_DEFINE = re.compile(r"([A-Za-z_]\w*)(?:=(.*))?", re.DOTALL)


def parse_define(text: str) -> tuple[str, str | None]:
    """`NAME` or `NAME=VALUE` (`-D`): a preprocessor macro; a UsageError if NAME is no identifier."""
    match = _DEFINE.fullmatch(text)
    if match is None or "\n" in text:
        raise UsageError(f"-D wants NAME or NAME=VALUE (NAME an identifier), not {_shown(text)}")
    return match.group(1), match.group(2)


def parse_redefine(text: str) -> tuple[str, str]:
    """`--redefine NAME=VALUE`: a new value for the kernel's own `#define NAME`."""
    match = _DEFINE.fullmatch(text)
    if match is None or match.group(2) is None or "\n" in text:
        raise UsageError(f"--redefine wants NAME=VALUE (NAME an identifier), not {_shown(text)}")
    return match.group(1), match.group(2)


def parse_include_dir(text: str) -> str:
    """`-I DIR`: a folder for `#include` (checked when a kernel includes a file)."""
    if not text or "\n" in text or "\0" in text:
        raise UsageError(f"-I wants a folder, not {_shown(text)}")
    return text


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


def add_push(text: str, push: list[tuple[str, int | None, int | str]]) -> None:
    """`NAME=V` or `NAME[i]=V` appended to `push`; a UsageError if it is bad or sets a constant twice."""
    item = parse_push(text)
    if any(item[:2] == earlier[:2] for earlier in push):
        raise UsageError(f"--push {text} sets the same constant twice")
    push.append(item)


def add_spec(text: str, spec: list[tuple[str, int]]) -> None:
    """`ID=V` or `NAME=V` appended to `spec`; a UsageError if it is bad or given twice."""
    item = parse_spec(text)
    if any(item[0] == earlier[0] for earlier in spec):
        raise UsageError(f"--spec {item[0]} is given twice")
    spec.append(item)


def kernel_expectations(text: str, path: str, kind: str, known: dict[Key, str] | None = None) -> dict[Key, bool]:
    """The header's `expect:` line (progress/front/expect.py's rules, the
    kernel's comment marker); only the header is searched."""
    return expectations(_header(text, MARKERS[kind]), path, known, MARKERS[kind])
