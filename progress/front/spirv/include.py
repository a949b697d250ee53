"""`#include`, as shaderc and game engines compile it (GL_GOOGLE_include_directive).

`expand(text, name, origin, include_dirs)` gives the source the compiler
reads: each `#include "file"` (searched in the including file's folder, then
in each `-I` folder in order) and `#include <file>` (the `-I` folders only)
replaced by that file's text, expanded the same way, between `#line`
directives that keep every line's number and file (`#line 1 "common.h"` ...
`#line 7 "kernel.comp"`), so that compiler messages, OpLine and the guard
see the files as written (a `#line` follows every conditional directive
too: an include inside an inactive branch hides its own). A GLSL source also gets `#extension
GL_GOOGLE_include_directive : enable` after its `#version` line (shaderc
enables it itself; `#line` with a file name needs it), followed by a `#line`
that puts the next line back at its number.

- A file with `#pragma once` is read once. Includes nest at most
  `MAX_DEPTH` deep (a cycle without a guard is an InputError).
- A file that is not found is left as the directive: the compiler then
  refuses it at its line if the line is active (an `#include` inside an
  inactive `#if` of a missing file is no error, as in a preprocessor).
- `origin` None: includes are not read at all (the playground): any
  `#include` is an InputError at its line.
- `files`: each file read, (the name the `#line` directives and so the
  module use, its text), the source's own first.

Pure but for reading the included files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from progress.errors import InputError, SourcePosition

MAX_DEPTH = 32
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)[ \t]*(?://.*|/\*.*)?$')
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b")
_ONCE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+once\b", re.MULTILINE)
_VERSION = re.compile(r"^[ \t]*#[ \t]*version\b.*$", re.MULTILINE)
EXTENSION = "#extension GL_GOOGLE_include_directive : enable"


@dataclass(frozen=True)
class Expanded:
    text: str
    files: tuple[tuple[str, str], ...]
    missing: tuple[tuple[str, int, str], ...] = ()
    """(file, line, the include's name) of each include not found, left to the compiler."""
    searched: tuple[str, ...] = ()
    """The `-I` folders, as given."""

    @property
    def included(self) -> bool:
        return len(self.files) > 1


def has_include(text: str) -> bool:
    return any(_INCLUDE.match(line) for line in text.split("\n"))


def expand(
    text: str, name: str, line_name: str, kind: str, origin: Path | None, include_dirs: tuple[Path, ...] = ()
) -> Expanded:
    """The source with its includes in place (see the module's contract); `name` is how
    messages show the kernel, `line_name` how its `#line` directives name it (the name
    the toolchain compiles it under)."""
    lines = text.split("\n")
    if origin is None:
        for number, line in enumerate(lines, 1):
            if _INCLUDE.match(line):
                raise InputError(
                    "#include is not read here: a kernel typed in the playground is one file; put the included text "
                    "in its place, or check the file with progress check, which reads includes",
                    SourcePosition(name, number, line.index("#") + 1, line),
                )
        return Expanded(text, ((name, text),))
    state = _State(include_dirs, [(name, text)], set())
    body = state.lines(text, name, line_name, origin, 0)
    searched = tuple(str(d) for d in include_dirs)
    if len(state.files) == 1:
        return Expanded(text, tuple(state.files), tuple(state.missing), searched)
    if kind == "glsl":
        body = _with_extension(body, line_name)
    return Expanded("\n".join(body), tuple(state.files), tuple(state.missing), searched)


def missing_message(expanded: Expanded, error: InputError) -> InputError:
    """A compiler's refusal at an include that was not found, said as such (else `error`)."""
    position = error.position
    for file, line, wanted in expanded.missing:
        if position is not None and (position.path, position.line) == (file, line):
            where = ", ".join(expanded.searched) or "no -I folder given"
            message = f"#include {wanted}: no such file (looked in the including file's folder and: {where})"
            if wanted.startswith("<"):
                message = f"#include {wanted}: no such file in the -I folders ({where})"
            return InputError(message, position)
    return error


def _with_extension(body: list[str], name: str) -> list[str]:
    """`body` with the include extension after `#version` (and the line count kept)."""
    for at, line in enumerate(body):
        if _VERSION.match(line):
            return [*body[: at + 1], EXTENSION, f'#line {at + 2} "{name}"', *body[at + 1 :]]
    return [EXTENSION, f'#line 1 "{name}"', *body]


class _State:
    def __init__(self, include_dirs: tuple[Path, ...], files: list[tuple[str, str]], once: set[Path]):
        self.include_dirs, self.files, self.once = include_dirs, files, once
        self.missing: list[tuple[str, int, str]] = []

    def lines(self, text: str, name: str, line_name: str, folder: Path, depth: int) -> list[str]:
        out: list[str] = []
        for number, line in enumerate(text.split("\n"), 1):
            match = _INCLUDE.match(line)
            if match is None:
                out.append(line)
                if _CONDITIONAL.match(line):  # an include in an inactive branch hid its #line: renumber
                    out.append(f'#line {number + 1} "{line_name}"')
                continue
            quoted, angled = match.group(1), match.group(2)
            found = self.find(quoted or angled, folder if quoted else None)
            if found is None:
                out.append(line)  # the compiler says so if the line is active
                self.missing.append((name, number, f'"{quoted}"' if quoted else f"<{angled}>"))
                continue
            path, shown = found
            if path in self.once:
                out.append("")
                continue
            if depth >= MAX_DEPTH:
                raise InputError(
                    f"includes nest deeper than {MAX_DEPTH} (a cycle without an include guard?)",
                    SourcePosition(name, number, line.index("#") + 1, line),
                )
            try:
                included = path.read_text(encoding="utf-8").removeprefix("\ufeff")  # a byte order mark is no text
            except (OSError, UnicodeDecodeError) as error:
                raise InputError(
                    f"cannot read the included {shown}: {getattr(error, 'strerror', None) or error}",
                    SourcePosition(name, number, line.index("#") + 1, line),
                ) from None
            if _ONCE.search(included):
                self.once.add(path)
            if shown not in dict(self.files):
                self.files.append((shown, included))
            out.append(f'#line 1 "{shown}"')
            out += self.lines(included, shown, shown, path.parent, depth + 1)
            out.append(f'#line {number + 1} "{line_name}"')
        return out

    def find(self, wanted: str, folder: Path | None) -> tuple[Path, str] | None:
        """The file an include names (its path, and its name as shown: the path as found)."""
        for base in ([folder] if folder is not None else []) + list(self.include_dirs):
            candidate = base / wanted
            if candidate.is_file():
                return candidate.resolve(), _shown(candidate)
        return None


def _shown(path: Path) -> str:
    """A path as messages show it: relative to the working folder when below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.resolve())


_LINE = re.compile(r'^[ \t]*#[ \t]*line[ \t]+(\d+)(?:[ \t]+"([^"]*)")?')


def split_by_file(preprocessed: str, first: str) -> dict[str, str]:
    """The preprocessor's output (`#line` directives kept, as glslang -E writes them) as
    each file's active text, every line at its number (lines it left out blank)."""
    found: dict[str, dict[int, str]] = {}
    file, number = first, 1
    for line in preprocessed.split("\n"):
        match = _LINE.match(line)
        if match:
            number, file = int(match.group(1)), match.group(2) if match.group(2) is not None else file
            continue
        found.setdefault(file, {})[number] = line
        number += 1
    return {f: "\n".join(lines.get(n, "") for n in range(1, max(lines, default=0) + 1)) for f, lines in found.items()}
