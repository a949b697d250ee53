"""A suite as the server holds it: its tests checked once at start, the verdict
matrix, both classifications, the lattice's edges and the suite's hash.

Pure: the CLI reads the files and hands over (key, text, program) triples.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from progress.core.analyze import TestReport, check_program, queries_for
from progress.core.classify import (
    LATTICE,
    PAPER,
    Classification,
    Column,
    Matrix,
    at_or_below,
    cell_text,
    classify,
    columns_for,
    lattice_order,
    matrix_row,
    strictly_below,
)
from progress.core.program import Program
from progress.gpu import records
from progress.models.base import ProgressModel
from progress.web.playground import Drawing
from progress.web.points import points


@dataclass(frozen=True)
class SuiteTest:
    key: str
    text: str
    program: Program
    report: TestReport

    @property
    def hash(self) -> str:
        return self.report.hash


@dataclass(frozen=True)
class TestView:
    """A suite test as its page shows it: the verdict `view` checked again
    (`report`: that verdict alone, with its lasso) and drawn."""

    test: SuiteTest
    view: tuple[str, str]
    report: TestReport
    svg: str | None
    drawing: Drawing


@dataclass(frozen=True)
class Edge:
    """An immediate edge of the verdict lattice: `upper` directly above `lower`."""

    lower: Column
    upper: Column

    @property
    def label(self) -> str:
        return f"{self.lower.label}<{self.upper.label}"


@dataclass(frozen=True)
class Suite:
    name: str
    tests: tuple[SuiteTest, ...]
    matrix: Matrix
    record: records.Suite
    classifications: dict[str, Classification]
    edges: tuple[Edge, ...]
    points: tuple[Column, ...]
    """The matrix's columns in the pages' order (`points.points`): `vector` lists them so."""
    _by_key: dict[str, SuiteTest] = field(repr=False, compare=False)
    description: str = ""
    """A sentence about the suite (its folder's README), or none."""

    @property
    def hash(self) -> str:
        """The results database's suite hash (keys and canonical hashes): what
        a submitted run must name, so that results of another suite, or of an
        edited one, are refused."""
        return self.record.hash

    def test(self, key: str) -> SuiteTest | None:
        return self._by_key.get(key)

    def vector(self, index: int) -> str:
        """The test's verdicts as one `P`/`F`/`?` letter per point, in the pages' order."""
        cells = dict(zip(self.matrix.columns, self.matrix.rows[index].cells))
        return "".join(cell_text(cells[c]) for c in self.points)

    def edge(self, label: str) -> Edge | None:
        return next((e for e in self.edges if e.label == label), None)

    def separated_by(self, edge: Edge) -> list[int]:
        """Indexes of the tests that pass `edge.upper` and fail `edge.lower`."""
        up, low = self.matrix.columns.index(edge.upper), self.matrix.columns.index(edge.lower)
        return [i for i, row in enumerate(self.matrix.rows) if row.cells[up] is True and row.cells[low] is False]


def build_suite(
    name: str,
    entries: Sequence[tuple[str, str, Program]],
    models: Sequence[ProgressModel],
    max_states: int,
    description: str = "",
) -> Suite:
    """Check every test under every model (no lassos) and classify the suite."""
    queries = queries_for(models)
    columns = columns_for(list(models))
    tests = tuple(
        SuiteTest(key, text, program, check_program(program, queries, max_states=max_states, witnesses=False))
        for key, text, program in entries
    )
    matrix = Matrix(columns, tuple(matrix_row(t.key, t.report, columns) for t in tests))
    return Suite(
        name,
        tests,
        matrix,
        records.suite_of(name, [(t.key, t.program) for t in tests]),
        {rule: classify(matrix, list(models), rule) for rule in (LATTICE, PAPER)},
        lattice_edges(models, columns),
        points(models),
        {t.key: t for t in tests},
        description,
    )


def lattice_edges(models: Sequence[ProgressModel], columns: tuple[Column, ...]) -> tuple[Edge, ...]:
    """The cover relation of the verdict lattice, bottom up."""
    closure = at_or_below(list(models))
    below = {c: set(strictly_below(c, columns, closure)) for c in columns}
    edges = []
    for upper in lattice_order(list(models), columns):
        for lower in lattice_order(list(models), columns):
            if lower in below[upper] and not any(lower in below[mid] for mid in below[upper]):
                edges.append(Edge(lower, upper))
    return tuple(edges)


def description_of(readme: str, limit: int = 300) -> str:
    """A suite's README in one line: its first paragraph that is not a heading,
    Markdown's emphasis and link targets dropped, cut at `limit` characters."""
    for block in readme.replace("\r\n", "\n").split("\n\n"):
        text = " ".join(line.strip() for line in block.splitlines() if line.strip())
        if text and not text.startswith("#"):
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).replace("`", "").replace("*", "")
            return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
    return ""
