"""WGSL `override` declarations at their default values.

An override is a constant the host may set when it creates the pipeline;
unset, it takes its initializer. naga-wasm has no way to give pipeline
constants and refuses to write SPIR-V for a module that still has
overrides, so `with_defaults(source, name)` turns each `override` into a
`const` with the same initializer (the kernel as a pipeline that sets none)
and blanks the `@id(...)` attributes that only overrides may carry. Every
replacement has the length of what it replaces, so lines and columns stay
where they were. An override without an initializer has no value to check
with: an InputError at its name. Pure.
"""

from __future__ import annotations

from progress.errors import InputError, SourcePosition
from progress.front.wgsl.tokens import Token, tokens
from progress.source import source_lines


def with_defaults(source: str, name: str) -> tuple[str, tuple[str, ...]]:
    """`source` with its overrides made constants, and their names in order."""
    found = tokens(source)
    edits: list[tuple[int, int, str]] = []
    names: list[str] = []
    for at, token in enumerate(found):
        if token.text == "override" and at + 1 < len(found):
            _check_initialized(found, at, source, name)
            edits.append((token.offset, token.offset + len("override"), "const   "))
            names.append(found[at + 1].text)
        elif token.text == "@" and at + 1 < len(found) and found[at + 1].text == "id":
            end = _attribute_end(found, at)
            edits.append((token.offset, end, "".join(c if c == "\n" else " " for c in source[token.offset : end])))
    text = source
    for start, end, replacement in reversed(edits):
        text = text[:start] + replacement + text[end:]
    return text, tuple(names)


def _attribute_end(found: list[Token], at: int) -> int:
    """The offset just after the `@id(...)` attribute starting at token `at`."""
    if at + 2 >= len(found) or found[at + 2].text != "(":
        return found[at + 1].offset + len(found[at + 1].text)
    depth, index = 0, at + 2
    while index < len(found):
        depth += (found[index].text == "(") - (found[index].text == ")")
        if depth == 0:
            return found[index].offset + 1
        index += 1
    return found[-1].offset + len(found[-1].text)


def _check_initialized(found: list[Token], at: int, source: str, name: str) -> None:
    for token in found[at + 1 :]:
        if token.text == "=":
            return
        if token.text == ";":
            break
    declared = found[at + 1] if at + 1 < len(found) else found[at]
    lines = source_lines(source)
    raise InputError(
        f"override {declared.text} has no default value: progress checks a kernel with its overrides at their "
        "defaults (a pipeline that sets none); give it one",
        SourcePosition(name, declared.line, declared.column, lines[declared.line - 1]),
    )
