"""WGSL `override` declarations given their values before naga runs.

An override is a constant the host sets when it creates the pipeline (by
name or by its `@id`), else its initializer: WebGPU's specialization
constants. naga-wasm cannot set pipeline constants and writes no SPIR-V
for a module that still has overrides, so `with_values` turns each
`override` into a `const` of the value the launch gives it: `--spec NAME=V`
or `--spec ID=V` (as for a SPIR-V specialization constant), `--local-size`
for the overrides the entry point's `@workgroup_size(...)` names, else its
initializer (a `--spec` and a `--local-size` that set one override to two values
are refused, unless the `--spec` is in `yields`: given where the size was not).
`@id(...)` attributes, which only overrides carry, are blanked.
Keywords and attributes keep their length, so lines and columns stay
(a value longer than the initializer it replaces moves the rest of its
line). Refused, at the override's name or naming the option: an override
without an initializer that the launch does not set, a `--spec` that names
no override, a value its type cannot hold, a value for a float override.
Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from progress.errors import InputError, SourcePosition
from progress.front.wgsl.tokens import Token, tokens
from progress.source import source_lines

_SIGNED = 1 << 31


@dataclass(frozen=True)
class _Override:
    keyword: Token
    name: Token
    id: str | None
    type: str | None
    value: tuple[int, int] | None  # the initializer's offsets
    end: int  # the offset of the `;`


def with_values(
    source: str,
    name: str,
    spec: tuple[tuple[str, int], ...] = (),
    local_size: tuple[int, int, int] | None = None,
    entry: str | None = None,
    yields: frozenset[str] = frozenset(),
) -> tuple[str, tuple[str, ...]]:
    """`source` with its overrides made constants (see the module's contract),
    and a `NAME = VALUE (why)` line for each."""
    found = tokens(source)
    overrides = _overrides(found)
    chosen = _chosen(overrides, spec, name) | _sized(found, overrides, local_size, entry, spec, (source, name), yields)
    edits: list[tuple[int, int, str]] = []
    said: list[str] = []
    for item in overrides:
        edits.append((item.keyword.offset, item.keyword.offset + len("override"), "const   "))
        if item.name.text in chosen:
            value, why = chosen[item.name.text]
            literal = _literal(item, value, name)
            edits.append(_value_edit(item, literal))
            said.append(f"{item.name.text} = {literal} ({why})")
        elif item.value is None:
            raise _at(item.name, source, name, f"override {item.name.text} has no value: give it one with --spec")
        else:
            said.append(f"{item.name.text} at its default")
    edits += _blanked_ids(found, source)
    text = source
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text, tuple(said)


def _overrides(found: list[Token]) -> list[_Override]:
    result = []
    for at, token in enumerate(found):
        if token.text != "override" or at + 1 >= len(found):
            continue
        stop = next((i for i in range(at, len(found)) if found[i].text == ";"), len(found) - 1)
        parts = [t.text for t in found[at + 2 : stop]]
        typed = parts[1] if len(parts) > 1 and parts[0] == ":" else None
        equals = next((i for i in range(at, stop) if found[i].text == "="), None)
        value = (found[equals + 1].offset, found[stop].offset) if equals is not None and equals + 1 < stop else None
        result.append(_Override(token, found[at + 1], _id_of(found, at), typed, value, found[stop].offset))
    return result


def _id_of(found: list[Token], at: int) -> str | None:
    """N of an `@id(N)` right before the token at `at` (the one attribute an override may carry)."""
    parts = [t.text for t in found[max(at - 5, 0) : at]]
    if len(parts) == 5 and parts[:3] == ["@", "id", "("] and parts[4] == ")":
        return parts[3].rstrip("iu")
    return None


def _chosen(overrides: list[_Override], spec: tuple[tuple[str, int], ...], name: str) -> dict[str, tuple[int, str]]:
    chosen: dict[str, tuple[int, str]] = {}
    for key, value in spec:
        matches = [o for o in overrides if (o.id == key if key.isdigit() else o.name.text == key)]
        if not matches:
            known = ", ".join(f"{o.id + ' ' if o.id else ''}{o.name.text}" for o in overrides) or "none"
            what = f"@id {key}" if key.isdigit() else f"the name {key!r}"
            raise InputError(f"{name}: --spec {key}={value}: no override has {what} (the kernel's: {known})")
        for match in matches:
            chosen[match.name.text] = (value, "--spec")
    return chosen


def _sized(
    found: list[Token],
    overrides: list[_Override],
    local_size: tuple[int, int, int] | None,
    entry: str | None,
    spec: tuple[tuple[str, int], ...],
    where: tuple[str, str],
    yields: frozenset[str],
) -> dict[str, tuple[int, str]]:
    """The overrides `--local-size` sets: those the entry point's `@workgroup_size` names and
    no `--spec` sets; one a `--spec` sets to another value is refused unless the key `yields`."""
    if local_size is None:
        return {}
    by_name = {o.name.text: o for o in overrides}
    sized: dict[str, tuple[int, str]] = {}
    for arg, size in zip(_workgroup_size(found, entry), local_size):
        item = by_name.get(arg)
        given = [(k, v) for k, v in spec if item is not None and k in (item.id, item.name.text)]
        if item is not None and not given:
            sized[arg] = (size, "--local-size")
        elif given and given[-1][1] != size and given[-1][0] not in yields:
            key, value = given[-1]
            message = (
                f"--spec {key}={value} and --local-size {','.join(map(str, local_size))} both set the override "
                f"{arg}, the workgroup size: give one of them (a --spec on the command line wins over the "
                "header's --local-size)"
            )
            raise _at(item.name, where[0], where[1], message)  # type: ignore[union-attr]
    return sized


def _workgroup_size(found: list[Token], entry: str | None) -> list[str]:
    """The arguments of the entry point's `@workgroup_size(...)` (the first compute entry point's
    when `entry` is None), each as its text when it is one token, else ""."""
    last: list[str] = []
    for at, token in enumerate(found[:-1]):
        if token.text == "@" and found[at + 1].text == "workgroup_size":
            last = _arguments(found, at + 2)
        elif token.text == "fn" and last:
            if entry is None or found[at + 1].text == entry:
                return last
            last = []
    return []


def _arguments(found: list[Token], at: int) -> list[str]:
    args: list[list[str]] = [[]]
    depth = 0
    for token in found[at:]:
        depth += (token.text == "(") - (token.text == ")")
        if depth == 0:
            break
        if depth == 1 and token.text == ",":
            args.append([])
        elif not (depth == 1 and token.text == "("):
            args[-1].append(token.text)
    return [arg[0] if len(arg) == 1 else "" for arg in args if arg]


def _literal(item: _Override, value: int, name: str) -> str:
    kind = item.type
    if kind == "bool":
        if value not in (0, 1):
            raise InputError(f"{name}: override {item.name.text} is a bool: give it 0, 1, true or false")
        return "true" if value else "false"
    if kind in ("f32", "f16"):
        raise InputError(f"{name}: override {item.name.text} is a float: the checker's values are integers")
    signed = value - (1 << 32) if value & _SIGNED else value
    if kind == "u32":
        return f"{value}u"
    return f"{signed}i" if kind == "i32" else str(signed)


def _value_edit(item: _Override, literal: str) -> tuple[int, int, str]:
    if item.value is None:
        return (item.end, item.end, f" = {literal}")
    start, end = item.value
    return (start, end, literal.ljust(end - start))


def _blanked_ids(found: list[Token], source: str) -> list[tuple[int, int, str]]:
    edits = []
    for at, token in enumerate(found[:-1]):
        if token.text == "@" and found[at + 1].text == "id":
            end = _attribute_end(found, at)
            edits.append((token.offset, end, "".join(c if c == "\n" else " " for c in source[token.offset : end])))
    return edits


def _attribute_end(found: list[Token], at: int) -> int:
    """The offset just after the `@id(...)` attribute starting at token `at`."""
    if at + 2 >= len(found) or found[at + 2].text != "(":
        return found[at + 1].offset + len(found[at + 1].text)
    depth = 0
    for token in found[at + 2 :]:
        depth += (token.text == "(") - (token.text == ")")
        if depth == 0:
            return token.offset + 1
    return found[-1].offset + len(found[-1].text)


def _at(token: Token, source: str, name: str, message: str) -> InputError:
    lines = source_lines(source)
    text = lines[token.line - 1] if 0 < token.line <= len(lines) else ""
    return InputError(message, SourcePosition(name, token.line, token.column, text))
