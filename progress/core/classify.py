"""Classify a suite (docs/semantics.md section 5): the verdict matrix, conformance and
distinguishing tests by the lattice rule or by the paper's rule.

Pure: works on check results and model objects; no files, no printing.

The lattice rule orders the points (model, fairness) by the product order:
(m', f') is below (m, f) iff m' is at or below m in the models' `below`
relation and f' <= f (weak < strong); `unfair` (fairness "none") is below
every point. conformance(p) = tests that pass p; distinguishing(p) = tests
of conformance(p) that fail every point strictly below p. So a strong
distinguishing test of m also fails weak m: it needs strong fairness.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from typing import NamedTuple

from progress.core.analyze import NO_FAIRNESS, TestReport
from progress.core.check import STRONG, WEAK
from progress.models.base import ProgressModel

LATTICE = "lattice"
PAPER = "paper"
RULES = (LATTICE, PAPER)
PAPER_MODELS = ("HSA", "OBE", "LOBE", "fair")
"""The paper's rule credits a test to the first of these it passes (Table 4)."""
TOP = "fair"
FAIRNESS_ORDER = {NO_FAIRNESS: 0, WEAK: 1, STRONG: 2}


@dataclass(frozen=True)
class Column:
    """One verdict column: a model under a fairness ("none" for unfair)."""

    model: str
    fairness: str

    @property
    def label(self) -> str:
        """`OBE/weak` as in the artifact's CSV; the bare name without fairness."""
        return self.model if self.fairness == NO_FAIRNESS else f"{self.model}/{self.fairness}"


class Row(NamedTuple):
    """`cells[i]` is the verdict under `columns[i]`: True pass, False fail, None
    inconclusive. (A named tuple: a big suite makes hundreds of thousands.)"""

    test: str
    hash: str
    cells: tuple[bool | None, ...]


@dataclass(frozen=True)
class Matrix:
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]

    def cell(self, row: Row, column: Column) -> bool | None:
        return row.cells[self.columns.index(column)]


@dataclass(frozen=True)
class ClassRow:
    """The conformance and distinguishing tests (names, in suite order) of one point."""

    model: str
    fairness: str
    conformance: tuple[str, ...]
    distinguishing: tuple[str, ...]


@dataclass(frozen=True)
class Classification:
    rule: str
    tests: int
    rows: tuple[ClassRow, ...]


def columns_for(models: list[ProgressModel]) -> tuple[Column, ...]:
    """The artifact's layout: every model with fairness under weak, then under
    strong (registry order), then the models without fairness."""
    fair = [m.name for m in models if m.has_fairness]
    columns = [Column(m, f) for f in (WEAK, STRONG) for m in fair]
    return tuple(columns + [Column(m.name, NO_FAIRNESS) for m in models if not m.has_fairness])


def matrix_row(test: str, report: TestReport, columns: tuple[Column, ...]) -> Row:
    """The row of one checked test; `report` must hold a verdict per column."""
    verdicts = {Column(v.model, v.fairness): v.terminates for v in report.verdicts}
    missing = [c.label for c in columns if c not in verdicts]
    if missing:
        raise ValueError(f"{test}: no verdict for {', '.join(missing)}")
    return Row(test, report.hash, tuple(verdicts[c] for c in columns))


def classify(matrix: Matrix, models: list[ProgressModel], rule: str) -> Classification:
    if rule == LATTICE:
        return lattice_rule(matrix, models)
    if rule == PAPER:
        return paper_rule(matrix, models)
    raise ValueError(f"unknown rule {rule!r} (known: {', '.join(RULES)})")


def at_or_below(models: list[ProgressModel]) -> dict[str, set[str]]:
    """For each model, the names of the models at or below it (reflexive,
    transitive closure of `below`)."""
    below = {m.name: set(m.below) for m in models}
    closure: dict[str, set[str]] = {}

    def down(name: str, seen: tuple[str, ...]) -> set[str]:
        if name in closure:
            return closure[name]
        if name in seen:
            raise ValueError(f"the fairness order has a cycle through {name!r}")
        result = {name}
        for lower in sorted(below.get(name, ())):
            result |= down(lower, seen + (name,))
        closure[name] = result
        return result

    for model in models:
        down(model.name, ())
    return closure


def strictly_below(point: Column, columns: tuple[Column, ...], closure: dict[str, set[str]]) -> list[Column]:
    """The columns strictly below `point` in the product order (module docstring)."""
    lower_models = closure[point.model]
    level = FAIRNESS_ORDER[point.fairness]
    return [
        c
        for c in columns
        if c != point and c.model in lower_models and (c.fairness == NO_FAIRNESS or FAIRNESS_ORDER[c.fairness] <= level)
    ]


def lattice_order(models: list[ProgressModel], columns: tuple[Column, ...]) -> list[Column]:
    """Columns from the bottom up: by fairness, then by height in the model order, then rank."""
    closure = at_or_below(models)
    rank = {m.name: m.rank for m in models}
    return sorted(columns, key=lambda c: (FAIRNESS_ORDER[c.fairness], len(closure[c.model]), rank[c.model], c.model))


def lattice_rule(matrix: Matrix, models: list[ProgressModel]) -> Classification:
    closure = at_or_below(models)
    tests = [r.test for r in matrix.rows]
    kinds, kind_of = _row_kinds(matrix)
    rows = []
    for point in lattice_order(models, matrix.columns):
        index = matrix.columns.index(point)
        lower = [matrix.columns.index(c) for c in strictly_below(point, matrix.columns, closure)]
        passes = [cells[index] is True for cells in kinds]
        only = [ok and all(cells[i] is False for i in lower) for ok, cells in zip(passes, kinds)]
        conformance = compress(tests, map(passes.__getitem__, kind_of))
        distinguishing = compress(tests, map(only.__getitem__, kind_of))
        rows.append(ClassRow(point.model, point.fairness, tuple(conformance), tuple(distinguishing)))
    return Classification(LATTICE, len(matrix.rows), tuple(rows))


def _row_kinds(matrix: Matrix) -> tuple[list[tuple[bool | None, ...]], list[int]]:
    """The distinct verdict rows of the matrix (a big suite has few) and the
    number of each row's: a rule decides each kind once."""
    number: dict[tuple[bool | None, ...], int] = {}
    kind_of = [number.setdefault(r.cells, len(number)) for r in matrix.rows]
    return list(number), kind_of


def fairness_class(matrix: Matrix, row: Row) -> str | None:
    """The paper's split: "weak" (passes weak fair), "strong" (fails weak
    fair, passes strong fair), or None (passes neither, or inconclusive)."""
    if matrix.cell(row, Column(TOP, WEAK)) is True:
        return WEAK
    if matrix.cell(row, Column(TOP, WEAK)) is False and matrix.cell(row, Column(TOP, STRONG)) is True:
        return STRONG
    return None


def paper_rule(matrix: Matrix, models: list[ProgressModel]) -> Classification:
    """Table 4's rule (docs/semantics.md section 5): credit each weak (strong) test to the
    first of PAPER_MODELS it passes under weak (strong) fairness; conformance
    adds the credits of the paper's models below in the fairness order."""
    names = [n for n in PAPER_MODELS if any(m.name == n for m in models)]
    closure = at_or_below(models)
    credit: dict[tuple[str, str], list[str]] = {(n, f): [] for f in (WEAK, STRONG) for n in names}
    for row in matrix.rows:
        fairness = fairness_class(matrix, row)
        if fairness is None:
            continue
        for name in names:
            if matrix.cell(row, Column(name, fairness)) is True:
                credit[(name, fairness)].append(row.test)
                break
    order = {row.test: i for i, row in enumerate(matrix.rows)}
    rows = []
    for fairness in (WEAK, STRONG):
        for name in names:
            members = [t for lower in names if lower in closure[name] for t in credit[(lower, fairness)]]
            rows.append(
                ClassRow(name, fairness, tuple(sorted(members, key=order.__getitem__)), tuple(credit[(name, fairness)]))
            )
    return Classification(PAPER, len(matrix.rows), tuple(rows))


def fairness_split(matrix: Matrix) -> dict[str, int]:
    """How many tests are weak, strong, or neither (the paper's Fig. 10, left bar)."""
    counts = {WEAK: 0, STRONG: 0, "neither": 0}
    for row in matrix.rows:
        counts[fairness_class(matrix, row) or "neither"] += 1
    return counts


@dataclass(frozen=True)
class Mismatch:
    test: str
    hash: str
    column: str
    expected: str
    got: str


def cell_text(value: bool | None) -> str:
    """`P` guaranteed to terminate, `F` may not terminate, `?` inconclusive."""
    return {True: "P", False: "F", None: "?"}[value]


def compare(matrix: Matrix, expected: dict[str, dict[str, str]]) -> list[Mismatch]:
    """Every cell of `matrix` that differs from `expected[test][column label]`;
    tests or columns that `expected` lacks are not compared."""
    mismatches = []
    for row in matrix.rows:
        cells = expected.get(row.test)
        if cells is None:
            continue
        for column, value in zip(matrix.columns, row.cells):
            want = cells.get(column.label)
            if want is not None and want != cell_text(value):
                mismatches.append(Mismatch(row.test, row.hash, column.label, want, cell_text(value)))
    return mismatches
