"""Dat3M's header for SPIR-V assembly tests, read as launch settings.

Dat3M (hernanponcedeleon/Dat3M, `dartagnan/src/test/resources/spirv/`) writes
its tests' launch in the assembly's leading `;` comments:

    ; @Input: %flag = {{0}}, %data = {1, 2}
    ; @Config: 2, 1, 2

`@Input: %name = VALUE` gives a variable's initial contents, VALUE an integer
or `{...}` of values nested as the variable's type is (a struct's members, an
array's elements, a runtime array's count being its length); several items
may share a line. `@Config: T, S, W` is the thread grid: T invocations per
subgroup, S subgroups per workgroup, W workgroups (1, 1, 1 unless given), so a
workgroup has T x S invocations. They are the `// progress:` header's settings
spelled another way (`LaunchSettings`: W the workgroups, T x S the local size,
T the subgroup size, the inputs), and `progress.front.header` joins the two.
`@Output` and `@Filter` (Dat3M's assertions) say nothing about a launch and
are not read. `assembly_settings` is an assembly kernel's whole header: both
spellings, one record. Pure: text in, settings out; a line that does not read
is an InputError at its line and column.
"""

from __future__ import annotations

import re

from progress.errors import InputError, SourcePosition
from progress.front.header import (
    MAX_LOCAL_SIZE,
    MAX_WORKGROUPS,
    VALUE_RANGE,
    Input,
    LaunchSettings,
    header_lines,
    launch_settings,
)
from progress.source import error_at, source_lines

_ITEM = re.compile(r"^([ \t]*;[ \t]*@(Input|Config)[ \t]*:)(.*?)\r?$")
_NAME = re.compile(r"[ \t]*(%[A-Za-z0-9_.]+)[ \t]*=[ \t]*")
_TOKEN = re.compile(r"[ \t]*(-?\d+|[{},])")
MAX_VALUES = 1 << 16
"""Values one @Input may give at most (a runtime array's length is bounded so)."""
MAX_DEPTH = 16
"""Braces one @Input may nest (types nest no deeper in a kernel checked here)."""


def dat3m_settings(text: str, path: str) -> LaunchSettings:
    """The @Input and @Config lines of `text`'s header (its leading `;` comments)."""
    lines = source_lines(text)
    inputs: list[Input] = []
    config: tuple[int, int, int] | None = None
    for number, line in enumerate(lines[: header_lines(text, ";")], start=1):
        match = _ITEM.match(line)
        if match is None:
            continue
        start = len(match.group(1))
        if match.group(2) == "Input":
            inputs += _inputs(match.group(3), start, number, lines, path)
        elif config is not None:
            raise error_at("@Config is given twice", number, 1, lines, path)
        else:
            config = _config(match.group(3), start, number, lines, path)
    names = [i.name for i in inputs]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise InputError(f"{path}: @Input gives {twice} twice")
    if config is None:
        return LaunchSettings(inputs=tuple(inputs))
    per_subgroup, subgroups, workgroups = config
    return LaunchSettings(
        workgroups=workgroups,
        local_size=(per_subgroup * subgroups, 1, 1),
        inputs=tuple(inputs),
        subgroup_size=per_subgroup,
    )


def _config(rest: str, start: int, number: int, lines: list[str], path: str) -> tuple[int, int, int]:
    """`T, S, W`, each in its range, T x S at most MAX_LOCAL_SIZE; an error at the value."""
    first = start + _skip_blanks(rest, 0) + 1
    parts = rest.split(",")
    if len(parts) != 3 or not all(re.fullmatch(r"[ \t]*\d+[ \t]*", part) for part in parts):
        wanted = "@Config wants T, S, W: invocations per subgroup, subgroups per workgroup, workgroups"
        raise error_at(wanted, number, first, lines, path)
    values = [int(part) if len(part.strip()) < 8 else 10**8 for part in parts]
    limits = ((1, MAX_LOCAL_SIZE), (1, MAX_LOCAL_SIZE), (1, MAX_WORKGROUPS))
    offsets = [m.start() for m in re.finditer(r"\d+", rest)]
    for (low, high), value, what, offset in zip(limits, values, ("T", "S", "W"), offsets):
        if not low <= value <= high:
            raise error_at(
                f"@Config: {what} = {value} is outside {low}..{high}", number, start + offset + 1, lines, path
            )
    if values[0] * values[1] > MAX_LOCAL_SIZE:
        message = f"@Config: T x S = {values[0] * values[1]} invocations per workgroup is more than {MAX_LOCAL_SIZE}"
        raise error_at(message, number, first, lines, path)
    return values[0], values[1], values[2]


def _inputs(rest: str, start: int, number: int, lines: list[str], path: str) -> list[Input]:
    """`%a = V, %b = V, ...` with each item's position."""
    found: list[Input] = []
    at = 0
    while True:
        name = _NAME.match(rest, at)
        if name is None:
            column = start + _skip_blanks(rest, at) + 1
            raise error_at("@Input wants %NAME = VALUE (an integer or {...})", number, column, lines, path)
        tokens = _Tokens(rest, name.end(), start, number, lines, path)
        value = tokens.value()
        found.append(
            Input(name.group(1), value, SourcePosition(path, number, start + name.start(1) + 1, lines[number - 1]))
        )
        at = tokens.at
        tail = re.match(r"[ \t]*(,?)[ \t]*", rest[at:])
        assert tail is not None
        if at + tail.end() >= len(rest.rstrip()) and not tail.group(1):
            return found
        if not tail.group(1):
            raise error_at("@Input items are separated by commas", number, start + at + 1, lines, path)
        at += tail.end()


class _Tokens:
    """A value's tokens from `rest[at:]`: integers, braces and commas."""

    def __init__(self, rest: str, at: int, start: int, number: int, lines: list[str], path: str):
        self.rest, self.at, self.start, self.number, self.lines, self.path = rest, at, start, number, lines, path
        self.count = 0
        self.token_at = at

    def value(self, depth: int = 0) -> int | tuple[object, ...]:
        token = self._next()
        if token == "{":
            if depth >= MAX_DEPTH:
                raise self._error(f"values nested deeper than {MAX_DEPTH}")
            parts = [self.value(depth + 1)]
            while (token := self._next()) == ",":
                parts.append(self.value(depth + 1))
            if token != "}":
                raise self._error(f"expected ',' or '}}', not {token!r}")
            return tuple(parts)
        if token in ("}", ","):
            raise self._error(f"expected a value, not {token!r}")
        number = int(token) if len(token.lstrip("-")) <= 12 else 10**13
        self.count += 1
        if not VALUE_RANGE[0] <= number <= VALUE_RANGE[1]:
            raise self._error(f"{token[:20]} is not a 32-bit integer")
        if self.count > MAX_VALUES:
            raise self._error(f"more than {MAX_VALUES} values")
        return number & 0xFFFFFFFF

    def _next(self) -> str:
        match = _TOKEN.match(self.rest, self.at)
        if match is None:
            self.token_at = _skip_blanks(self.rest, self.at)
            raise self._error("expected an integer, '{', '}' or ','")
        self.token_at = match.start(1)
        self.at = match.end()
        return match.group(1)

    def _error(self, message: str) -> InputError:
        """An InputError at the token read last."""
        column = self.start + self.token_at + 1
        return error_at(f"@Input: {message}", self.number, column, self.lines, self.path)


def _skip_blanks(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t":
        at += 1
    return at


def assembly_settings(text: str, path: str) -> LaunchSettings:
    """A SPIR-V assembly kernel's header: its `; progress:` options and its Dat3M lines,
    one record; a setting both give is an InputError."""
    options = launch_settings(text, path, "spvasm")
    dat3m = dat3m_settings(text, path)
    for field, spelled in (("workgroups", "--workgroups"), ("local_size", "--local-size")):
        if getattr(options, field) is not None and getattr(dat3m, field) is not None:
            raise InputError(f"{path}: the header gives {spelled} and @Config, which sets it too")
    return dat3m.overridden_by(options)
