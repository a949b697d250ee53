"""Render classifications and verdict matrices as Markdown, CSV, JSON or
LaTeX, and read verdict CSVs back. Pure: text in, text out; the same input
gives the same bytes.

The verdict CSV has the artifact's layout (data/oopsla21/cadp_verdicts.csv):
`test`, then one `P`/`F` column per model/fairness (`fair/weak`, ...,
`LOBE/strong`); after those come the columns the artifact lacks: `unfair`
and `hash` (the test's canonical hash). A reader that takes the first 11
columns, or looks columns up by name, sees the artifact's file.
"""

from __future__ import annotations

import csv
import io
import json

from progress.core.analyze import NO_FAIRNESS
from progress.core.check import STRONG, WEAK
from progress.core.classify import Classification, Matrix, Mismatch, cell_text
from progress.errors import InputError, SourcePosition

FORMATS = ("md", "csv", "json", "latex")
VERDICT_CELLS = ("P", "F", "?")


def render_classification(classification: Classification, fmt: str) -> str:
    return {
        "md": classification_md,
        "csv": classification_csv,
        "json": classification_json,
        "latex": classification_latex,
    }[fmt](classification)


def render_matrix(matrix: Matrix, fmt: str) -> str:
    return {"md": matrix_md, "csv": matrix_csv, "json": matrix_json, "latex": matrix_latex}[fmt](matrix)


def _grid(classification: Classification) -> list[tuple[str, list[int | None]]]:
    """One line per model, in the classification's order: weak D, C, strong D, C
    (a model without fairness shows its one pair under both)."""
    lines: dict[str, list[int | None]] = {}
    for row in classification.rows:
        cells = lines.setdefault(row.model, [None] * 4)
        pair = [len(row.distinguishing), len(row.conformance)]
        if row.fairness in (WEAK, NO_FAIRNESS):
            cells[0:2] = pair
        if row.fairness in (STRONG, NO_FAIRNESS):
            cells[2:4] = pair
    return list(lines.items())


def _number(value: int | None) -> str:
    return "-" if value is None else str(value)


def classification_md(classification: Classification) -> str:
    lines = [
        f"Classification of {classification.tests} tests ({classification.rule} rule)",
        "",
        "| model | weak distinguishing | weak conformance | strong distinguishing | strong conformance |",
        "|---|---:|---:|---:|---:|",
    ]
    for model, cells in _grid(classification):
        lines.append(f"| {model} | " + " | ".join(_number(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def classification_csv(classification: Classification) -> str:
    rows = [["model", "fairness", "conformance", "distinguishing"]]
    rows += [[r.model, r.fairness, str(len(r.conformance)), str(len(r.distinguishing))] for r in classification.rows]
    return _csv(rows)


def classification_json(classification: Classification) -> str:
    data = {
        "rule": classification.rule,
        "tests": classification.tests,
        "rows": [
            {
                "model": r.model,
                "fairness": r.fairness,
                "conformance": len(r.conformance),
                "distinguishing": len(r.distinguishing),
            }
            for r in classification.rows
        ],
    }
    return json.dumps(data, indent=2) + "\n"


def classification_latex(classification: Classification) -> str:
    """A booktabs table shaped like the paper's Table 4."""
    lines = [
        f"% {classification.tests} tests, {classification.rule} rule",
        r"\begin{tabular}{lrrrr}",
        r"\toprule",
        r" & \multicolumn{2}{c}{weak} & \multicolumn{2}{c}{strong} \\",
        r"\cmidrule(lr){2-3} \cmidrule(lr){4-5}",
        r"model & distinguishing & conformance & distinguishing & conformance \\",
        r"\midrule",
    ]
    for model, cells in _grid(classification):
        lines.append(f"{latex_escape(model)} & " + " & ".join(_number(c) for c in cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def _matrix_rows(matrix: Matrix) -> list[list[str]]:
    rows = [["test"] + [c.label for c in matrix.columns] + ["hash"]]
    shown: dict[tuple[bool | None, ...], tuple[str, ...]] = {}  # few distinct rows of verdicts: each written once
    for r in matrix.rows:
        texts = shown.get(r.cells)
        if texts is None:
            texts = shown[r.cells] = tuple(cell_text(v) for v in r.cells)
        rows.append([r.test, *texts, r.hash])
    return rows


def matrix_csv(matrix: Matrix) -> str:
    return _csv(_matrix_rows(matrix))


def matrix_md(matrix: Matrix) -> str:
    rows = _matrix_rows(matrix)
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines) + "\n"


def matrix_json(matrix: Matrix) -> str:
    data = {
        "columns": [c.label for c in matrix.columns],
        "tests": [
            {
                "test": r.test,
                "hash": r.hash,
                "verdicts": {c.label: cell_text(v) for c, v in zip(matrix.columns, r.cells)},
            }
            for r in matrix.rows
        ],
    }
    return json.dumps(data, indent=2) + "\n"


def matrix_latex(matrix: Matrix) -> str:
    rows = _matrix_rows(matrix)
    spec = "l" + "c" * len(matrix.columns) + "l"
    lines = [
        r"\begin{tabular}{" + spec + "}",
        r"\toprule",
        " & ".join(latex_escape(h) for h in rows[0]) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(latex_escape(cell) for cell in row) + r" \\" for row in rows[1:]]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def latex_escape(text: str) -> str:
    special = {
        "\\": r"\textbackslash{}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "{": r"\{",
        "}": r"\}",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
    }
    return "".join(special.get(char, char) for char in text)


def _csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def mismatch_line(mismatch: Mismatch) -> str:
    """One grep-able line per differing cell."""
    return (
        f"{mismatch.test}: {mismatch.column}: expected {mismatch.expected}, got {mismatch.got} (hash {mismatch.hash})"
    )


def parse_verdict_csv(text: str, path: str, known: tuple[str, ...] | None = None) -> dict[str, dict[str, str]]:
    """`{test: {column label: "P"|"F"|"?"}}` from a verdict CSV; columns named
    `hash` are skipped. Bad input raises InputError naming the line: a header
    not starting with `test`, a column named twice, no verdict column, or
    (when `known`, the labels that can be compared, is given) a column that
    is not one of them, so a misspelt label never compares nothing."""
    lines = text.splitlines()
    reader = csv.reader(lines)
    header = next(reader, None)
    first = lines[0] if lines else ""
    if not header or header[0].strip() != "test":
        raise InputError(
            "a verdict CSV starts with a header whose first column is `test`",
            SourcePosition(path, 1, 1, first),
        )
    labels = [h.strip() for h in header]
    seen: set[str] = set()
    for label in labels:
        column = first.find(label) + 1 if label and label in first else 1
        if label in seen:
            raise InputError(f"column {label!r} appears twice", SourcePosition(path, 1, first.rfind(label) + 1, first))
        seen.add(label)
        if known is not None and label not in ("test", "hash") and label not in known:
            raise InputError(
                f"unknown column {label!r} (the columns are {', '.join(known)}, and hash)",
                SourcePosition(path, 1, column, first),
            )
    if not [label for label in labels[1:] if label != "hash"]:
        raise InputError("a verdict CSV needs at least one verdict column", SourcePosition(path, 1, 1, first))
    result: dict[str, dict[str, str]] = {}
    for number, row in enumerate(reader, 2):
        if not row or all(not cell.strip() for cell in row):
            continue
        line = lines[number - 1] if number - 1 < len(lines) else ""
        if len(row) != len(labels):
            raise InputError(f"{len(row)} cells, the header has {len(labels)}", SourcePosition(path, number, 1, line))
        test = row[0].strip()
        if test in result:
            raise InputError(f"test {test!r} appears twice", SourcePosition(path, number, 1, line))
        cells = {}
        for label, cell in zip(labels[1:], row[1:]):
            if label == "hash":
                continue
            value = cell.strip()
            if value not in VERDICT_CELLS:
                column = line.find(cell) + 1 if cell and line.find(cell) >= 0 else 1
                raise InputError(
                    f"verdict {value!r} in column {label!r} (expected P, F or ?)",
                    SourcePosition(path, number, column, line),
                )
            cells[label] = value
        result[test] = cells
    return result
