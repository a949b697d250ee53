"""The classification rules (docs/semantics.md section 5) on the OOPSLA'21 suite and on
small hand-made matrices.

Oracles: the artifact's CADP verdicts (classified without our checker), the
paper's Table 4 as printed, and the lattice order written out by hand below
from docs/semantics.md section 5's sentence (not derived from the models' `below`).
"""

from __future__ import annotations

import pytest

from progress.core.analyze import NO_FAIRNESS
from progress.core.classify import (
    LATTICE,
    PAPER,
    Column,
    Matrix,
    Row,
    classify,
    columns_for,
    compare,
    fairness_split,
    lattice_rule,
    paper_rule,
)
from progress.core.registry import all_models
from progress.report.tables import parse_verdict_csv

MODELS = list(all_models())

# The paper's Table 4: (model, fairness) -> (distinguishing, conformance).
TABLE_4 = {
    ("HSA", "weak"): (90, 90),
    ("OBE", "weak"): (12, 12),
    ("LOBE", "weak"): (20, 122),
    ("fair", "weak"): (201, 323),
    ("HSA", "strong"): (94, 94),
    ("OBE", "strong"): (0, 0),
    ("LOBE", "strong"): (16, 110),
    ("fair", "strong"): (50, 160),
}

# The lattice rule's numbers on the 483 tests (pinned; derived by hand-written
# oracle `_by_hand` below from the CADP verdicts as well).
LATTICE_483 = {
    ("unfair", "none"): (0, 0),
    ("HSA", "weak"): (90, 90),
    ("OBE", "weak"): (24, 24),
    ("HSA+OBE", "weak"): (9, 111),
    ("LOBE", "weak"): (11, 122),
    ("fair", "weak"): (201, 323),
    ("HSA", "strong"): (94, 184),
    ("OBE", "strong"): (89, 113),
    ("HSA+OBE", "strong"): (16, 221),
    ("LOBE", "strong"): (0, 232),
    ("fair", "strong"): (50, 483),
}

# docs/semantics.md section 5: unfair < HSA, OBE < HSA+OBE < LOBE < fair; weak < strong; unfair the bottom.
MODEL_ORDER_BELOW = {
    "unfair": set(),
    "HSA": {"unfair"},
    "OBE": {"unfair"},
    "HSA+OBE": {"unfair", "HSA", "OBE"},
    "LOBE": {"unfair", "HSA", "OBE", "HSA+OBE"},
    "fair": {"unfair", "HSA", "OBE", "HSA+OBE", "LOBE"},
}


def _numbers(classification) -> dict:
    return {(r.model, r.fairness): (len(r.distinguishing), len(r.conformance)) for r in classification.rows}


def _cadp_matrix(oopsla_dir) -> Matrix:
    """The artifact's verdicts as a Matrix (unfair: F for every test, as the README states)."""
    expected = parse_verdict_csv((oopsla_dir / "cadp_verdicts.csv").read_text(), "cadp_verdicts.csv")
    columns = columns_for(MODELS)
    rows = []
    for test, cells in expected.items():
        values = tuple({"P": True, "F": False}[cells.get(c.label, "F")] for c in columns)
        rows.append(Row(test, "-", values))
    return Matrix(columns, tuple(rows))


def _by_hand(matrix: Matrix) -> dict:
    """distinguishing/conformance straight from docs/semantics.md section 5 with MODEL_ORDER_BELOW."""
    result = {}
    for point in matrix.columns:

        def strictly_below(c, point=point):
            same_or_lower = c.model in MODEL_ORDER_BELOW[point.model] or c.model == point.model
            weaker = c.fairness == NO_FAIRNESS or point.fairness == "strong" or c.fairness == "weak"
            return c != point and same_or_lower and weaker

        lower = [c for c in matrix.columns if strictly_below(c)]
        passing = [r for r in matrix.rows if matrix.cell(r, point)]
        distinguishing = [r for r in passing if not any(matrix.cell(r, c) for c in lower)]
        result[(point.model, point.fairness)] = (len(distinguishing), len(passing))
    return result


def test_paper_rule_on_cadp_verdicts_is_table_4(oopsla_dir):
    assert _numbers(paper_rule(_cadp_matrix(oopsla_dir), MODELS)) == TABLE_4


def test_lattice_rule_on_cadp_verdicts_matches_the_definition(oopsla_dir):
    matrix = _cadp_matrix(oopsla_dir)
    assert _numbers(lattice_rule(matrix, MODELS)) == _by_hand(matrix) == LATTICE_483


def test_weak_and_strong_tests_split_as_in_the_paper(oopsla_dir):
    assert fairness_split(_cadp_matrix(oopsla_dir)) == {"weak": 323, "strong": 160, "neither": 0}


def _tiny(rows: dict[str, dict[str, bool]]) -> Matrix:
    columns = columns_for(MODELS)
    return Matrix(
        columns,
        tuple(Row(name, "-", tuple(cells.get(c.label, False) for c in columns)) for name, cells in rows.items()),
    )


PASS_ALL_BUT_UNFAIR = {c.label: True for c in columns_for(MODELS) if c.fairness != NO_FAIRNESS}


def test_a_test_passing_everything_above_unfair_is_distinguishing_for_weak_hsa_and_obe_only():
    matrix = _tiny({"t": PASS_ALL_BUT_UNFAIR})
    numbers = _numbers(lattice_rule(matrix, MODELS))
    assert {k for k, (d, _) in numbers.items() if d} == {("HSA", "weak"), ("OBE", "weak")}
    assert all(c == 1 for k, (_, c) in numbers.items() if k[1] != NO_FAIRNESS)
    # The paper's rule credits it to HSA alone (first in HSA, OBE, LOBE, fair).
    paper = _numbers(paper_rule(matrix, MODELS))
    assert paper[("HSA", "weak")] == (1, 1) and paper[("OBE", "weak")] == (0, 0)
    assert paper[("LOBE", "weak")] == (0, 1) and paper[("fair", "weak")] == (0, 1)


def test_a_livelock_test_is_strong_distinguishing():
    strong_only = {"fair/strong": True, "LOBE/strong": True}
    numbers = _numbers(lattice_rule(_tiny({"t": strong_only}), MODELS))
    assert numbers[("LOBE", "strong")] == (1, 1)  # fails weak LOBE and strong HSA+OBE
    assert numbers[("fair", "strong")] == (0, 1)
    paper = _numbers(paper_rule(_tiny({"t": strong_only}), MODELS))
    assert paper[("LOBE", "strong")] == (1, 1) and paper[("fair", "strong")] == (0, 1)
    assert paper[("fair", "weak")] == (0, 0)


def test_inconclusive_cells_are_neither_pass_nor_fail():
    columns = columns_for(MODELS)
    cells = tuple(None if c.label == "HSA/weak" else PASS_ALL_BUT_UNFAIR.get(c.label, False) for c in columns)
    matrix = Matrix(columns, (Row("t", "-", cells),))
    numbers = _numbers(lattice_rule(matrix, MODELS))
    assert numbers[("HSA", "weak")] == (0, 0)
    assert numbers[("HSA+OBE", "weak")] == (0, 1)  # HSA weak not known to fail


def test_unknown_rule_is_refused():
    with pytest.raises(ValueError):
        classify(_tiny({}), MODELS, "alphabetical")


def test_compare_reports_only_differing_cells_of_known_tests_and_columns():
    matrix = _tiny({"a": PASS_ALL_BUT_UNFAIR, "b": {}})
    expected = {"a": {"HSA/weak": "F", "OBE/weak": "P"}, "b": {"fair/strong": "P", "nonsense": "P"}, "c": {}}
    found = [(m.test, m.column, m.expected, m.got) for m in compare(matrix, expected)]
    assert found == [("a", "HSA/weak", "F", "P"), ("b", "fair/strong", "P", "F")]


def test_rules_are_named():
    assert lattice_rule(_tiny({}), MODELS).rule == LATTICE and paper_rule(_tiny({}), MODELS).rule == PAPER
    assert Column("unfair", NO_FAIRNESS).label == "unfair" and Column("OBE", "weak").label == "OBE/weak"
