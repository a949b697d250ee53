"""Expected verdicts written in a test's header comment:

    # expect: unfair F | fair/weak P | fair/strong P | HSA/weak F | ...

`P` = guaranteed to terminate, `F` = may not terminate; a model without
fairness (unfair) is written without `/weak` or `/strong`. A cell may name a
scoped model (docs/semantics.md section 10) in `--model`'s forms without
spaces: `fair/fair/HSA/weak F` (workgroup/subgroup/lane) or
`lane=HSA/weak F` (`workgroup=`, `subgroup=`, `lane=`, `default=`, joined
by commas); its key is the scoped model's name (`fair/fair/HSA`), and
`scoped_queries` gives the queries that answer such cells. A line may end in
CRLF. The comment marker is `#` for .axb files; kernels use their language's
(`// expect:` in GLSL and HLSL, `; expect:` in SPIR-V assembly). Pure: text
in, dicts out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from progress.core.analyze import NO_FAIRNESS, Query, TestReport
from progress.core.model_spec import parse_model_value, parse_models
from progress.errors import InputError, UsageError
from progress.source import error_at, source_lines

_LINE = r"^[ \t]*{marker}[ \t]*expect:(.*?)\r?$"
_CELL = re.compile(r"^[ \t]*([^\s|]+?)(?:/(weak|strong))?[ \t]+([PF])[ \t]*$")

Key = tuple[str, str]  # (model, fairness), fairness "weak", "strong" or "none"


class NoExpectLine(InputError):
    """The text has no `expect:` line at all (an InputError like the others:
    `--expect-header` refuses such a test; the playground compares nothing)."""


def known_verdicts(queries: Iterable[Query]) -> dict[Key, str]:
    """The verdicts of `queries` an expectation may name, as written (`OBE/weak`, `unfair`)."""
    return {
        (query.model.name.upper(), query.fairness): query.model.name
        + ("" if query.fairness == NO_FAIRNESS else f"/{query.fairness}")
        for query in queries
    }


def expectations(text: str, path: str, known: dict[Key, str] | None = None, marker: str = "#") -> dict[Key, bool]:
    """The header's expectations, or an InputError at the offending spot: no
    `# expect:` line, two of them, a cell that does not read, the same verdict
    twice with different values, or (when `known`, the verdicts that can be
    checked, is given) a cell naming no known verdict, such as `fair P`
    (fair has no verdict without `/weak` or `/strong`) or an unregistered model.
    `marker` is the comment marker that starts the line."""
    lines = source_lines(text)
    found = list(re.finditer(_LINE.format(marker=re.escape(marker)), text, re.MULTILINE))
    if len(found) != 1:
        problem = f"no '{marker} expect:' line" if not found else f"more than one '{marker} expect:' line"
        line = 1 if not found else text.count("\n", 0, found[1].start()) + 1
        error = error_at(f"{problem} (needed by --expect-header)", line, 1, lines, path)
        raise error if found else NoExpectLine(error.message, error.position)
    match = found[0]
    line = text.count("\n", 0, match.start()) + 1
    result: dict[Key, bool] = {}
    offset = match.start(1) - match.start()
    for cell in match.group(1).split("|"):
        parsed = _CELL.match(cell)
        if parsed is None:
            raise error_at(
                f"cannot read the expectation {cell.strip()!r} (want e.g. 'OBE/weak P')",
                line,
                offset + len(cell) - len(cell.lstrip()) + 1,
                lines,
                path,
            )
        model, fairness, verdict = parsed.groups()
        column = offset + len(cell) - len(cell.lstrip()) + 1
        scoped = "/" in model or "=" in model
        if scoped:
            model = _scoped_name(model, fairness, lines, path, line, column)
        key = (model.upper(), fairness or NO_FAIRNESS)
        if known is not None and key not in known and "/" not in model:
            raise error_at(_unknown(cell.split()[0], key, known), line, column, lines, path)
        if key in result and result[key] != (verdict == "P"):
            raise error_at(
                f"{cell.strip()!r} contradicts an earlier cell for the same verdict", line, column, lines, path
            )
        result[key] = verdict == "P"
        offset += len(cell) + 1
    return result


def _scoped_name(text: str, fairness: str | None, lines: list[str], path: str, line: int, column: int) -> str:
    """The name of the scoped model a cell names (`fair/fair/HSA`; a plain
    model's name when the inner scopes are fair), or an error at the cell."""
    try:
        (model,) = parse_model_value(text)
    except (UsageError, ValueError) as error:
        raise error_at(f"{text!r}: {error}", line, column, lines, path) from None
    if model.has_fairness != (fairness is not None):
        want = f"'{model.name}/weak' or '{model.name}/strong'" if model.has_fairness else f"'{model.name}'"
        raise error_at(f"{text!r} names no verdict; write {want}", line, column, lines, path)
    return model.name


def scoped_queries(expected: dict[Key, bool]) -> list[Query]:
    """The queries that answer the expectations naming scoped models (`W/S/L` keys)."""
    queries = []
    for model, fairness in expected:
        if "/" in model:
            (scoped,) = parse_models([model])
            queries.append(Query(scoped, fairness))
    return queries


def has_expect_line(text: str, marker: str = "#") -> bool:
    """Whether `text` has a `# expect:` line (one or more; `expectations` tells them apart)."""
    return re.search(_LINE.format(marker=re.escape(marker)), text, re.MULTILINE) is not None


def expect_cells(text: str, path: str) -> str | None:
    """The cells of the header's one `# expect:` line, checked as
    `expectations` checks them and with spacing normalised (`P | F`), or None
    when the text has no such line (an exporter carries them over)."""
    found = re.search(_LINE.format(marker="#"), text, re.MULTILINE)
    if found is None:
        return None
    expectations(text, path)
    return " | ".join(" ".join(cell.split()) for cell in found.group(1).split("|"))


def _unknown(label: str, key: Key, known: dict[Key, str]) -> str:
    """Why the cell `label` (read as `key`) names no verdict, with the forms that do."""
    forms = sorted(written for (model, _), written in known.items() if model == key[0])
    if not forms:
        return f"{label!r} names no registered model (see `progress models`)"
    return f"{label!r} names no verdict; write " + " or ".join(repr(form) for form in forms)


def mismatches(report: TestReport, expected: dict[Key, bool]) -> list[tuple[str, str, bool, bool | None]]:
    """(model, fairness, expected, got) for every expectation the report does
    not meet; an expectation no verdict answers counts as got None."""
    got = {(v.model.upper(), v.fairness): v for v in report.verdicts}
    wrong = []
    for (model, fairness), want in expected.items():
        verdict = got.get((model, fairness))
        value = None if verdict is None else verdict.terminates
        if value != want:
            name = verdict.model if verdict is not None else model
            wrong.append((name, fairness, want, value))
    return wrong
