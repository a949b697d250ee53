"""`--redefine NAME=VALUE`: a kernel's own `#define NAME ...` given another value.

Published kernels fix their sizes with plain `#define`s (Vello's `LG_WG_SIZE`,
Jimara's `BLOCK_SIZE`), which `-D` cannot change (the compiler refuses the
redefinition). `redefined(text, redefines, name)` returns the source to compile
with each object-like `#define NAME` line (of the kernel and the files it
includes, as put in place) reading `#define NAME VALUE`; a definition continued
with backslashes keeps its lines, blank, so every line stays where it was. A
NAME that no line defines is an InputError (exit 2), as is a function-like
macro of that name. Pure.
"""

from __future__ import annotations

import re

from progress.errors import InputError

_DEFINE = re.compile(r"^(?P<head>[ \t]*#[ \t]*define[ \t]+(?P<name>[A-Za-z_]\w*))(?P<rest>.*)$")


def redefined(text: str, redefines: tuple[tuple[str, str], ...], name: str) -> str:
    """`text` with each `#define NAME` of `redefines` given its VALUE (see the module's contract)."""
    if not redefines:
        return text
    values = dict(redefines)
    lines = text.split("\n")
    found: set[str] = set()
    at = 0
    while at < len(lines):
        match = _DEFINE.match(lines[at])
        if match is None or match.group("name") not in values:
            at += 1
            continue
        macro = match.group("name")
        if match.group("rest").startswith("("):
            raise InputError(f"{name}: --redefine {macro}=...: {macro} is a function-like macro here")
        found.add(macro)
        continued = lines[at].rstrip().endswith("\\")
        lines[at] = f"{match.group('head')} {values[macro]}"
        while continued and at + 1 < len(lines):
            at += 1
            continued = lines[at].rstrip().endswith("\\")
            lines[at] = ""
        at += 1
    missing = [macro for macro in values if macro not in found]
    if missing:
        shown = ", ".join(missing)
        raise InputError(f"{name}: --redefine {shown}: no '#define {missing[0]}' in the kernel or its includes")
    return "\n".join(lines)
