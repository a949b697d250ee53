"""WGSL `enable` directives naga refuses for functionality it has.

naga-wasm 30.1.0 refuses `enable subgroups;` ("the `subgroups`
enable-extension is not yet supported") although it translates the subgroup
built-ins (`subgroupBallot`, `subgroupShuffle`, `@builtin(subgroup_invocation_id)`)
without it, and the checker executes them (docs/kernels.md, "Subgroups").
`without_naga_refused(source)` gives the source with `subgroups` taken out of
each `enable` directive (the whole directive blanked when it named nothing
else), every other character and every line and column kept, and whether it
took any out. Pure.
"""

from __future__ import annotations

import re

REFUSED = frozenset({"subgroups"})
"""Extensions naga-wasm refuses by name but implements."""
_ENABLE = re.compile(r"(?m)^([ \t]*)enable\b([^;]*);")


def without_naga_refused(source: str) -> tuple[str, bool]:
    """`source` without the `enable` names in REFUSED (see the module's contract)."""
    taken = False

    def edit(match: re.Match[str]) -> str:
        nonlocal taken
        names = [name.strip() for name in match.group(2).split(",")]
        kept = [name for name in names if name and name not in REFUSED]
        if len(kept) == len([name for name in names if name]):
            return match.group(0)
        taken = True
        directive = f"enable {', '.join(kept)};" if kept else ""
        body = match.group(0)[len(match.group(1)) :]
        blank = re.sub(r"[^\n]", " ", body)
        return match.group(1) + directive + blank[len(directive) :]

    return _ENABLE.sub(edit, source), taken
