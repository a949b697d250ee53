"""The hand-written litmus corpus: each file's header states its 11 verdicts.

A header line reads `# expect: unfair F | fair/weak P | ... | LOBE/strong P`
(P = guaranteed to terminate, F = may not terminate). Each file is one test
here; the checker, the brute-force oracle and, where the published suite holds
the same test up to location names, the artifact's CADP verdicts must all
agree with it, and every lasso the checker returns must be a valid witness.
"""

from __future__ import annotations

import csv
import re
from functools import lru_cache
from pathlib import Path

import brute
import pytest
from conftest import OOPSLA, REPO

from progress.core.analyze import check_program, queries_for
from progress.core.canonical import canonical_hash
from progress.core.registry import all_models
from progress.front.axb.parse import parse_program

LITMUS = REPO / "litmus"
FILES = sorted(path for path in LITMUS.rglob("*.axb") if OOPSLA not in path.parents)
"""The hand-written corpus: every .axb under litmus/ but the published suite
(litmus/oopsla21: no header lines; its CADP verdicts are checked in test_check_cadp.py)."""
EXPECT = re.compile(r"^#\s*expect:\s*(.*)$", re.MULTILINE)
CELL = re.compile(r"^(?P<model>[A-Za-z+\-_]+)(?:/(?P<fairness>weak|strong))?\s+(?P<verdict>[PF])$")


def expected_verdicts(text: str) -> dict[tuple[str, str], bool]:
    """The one `# expect:` line as {(model, fairness): terminates}; unfair's fairness is "none"."""
    lines = EXPECT.findall(text)
    assert len(lines) == 1, f"want exactly one '# expect:' line, found {len(lines)}"
    result = {}
    for cell in lines[0].split("|"):
        match = CELL.match(cell.strip())
        assert match, f"cannot read expectation {cell.strip()!r}"
        key = (match["model"], match["fairness"] or "none")
        assert key not in result, f"{key} listed twice"
        result[key] = match["verdict"] == "P"
    return result


@lru_cache(maxsize=1)
def published() -> dict[str, dict[tuple[str, str], bool]]:
    """CADP verdicts of the published suite keyed by canonical hash."""
    with open(OOPSLA / "cadp_verdicts.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    by_hash = {}
    for row in rows:
        path = OOPSLA / row["test"]
        digest = canonical_hash(parse_program(path.read_text(), str(path)))
        by_hash[digest] = {tuple(k.split("/")): v == "P" for k, v in row.items() if k != "test"}
    return by_hash


def test_corpus_has_the_paper_and_gpu_idioms():
    names = {f.relative_to(LITMUS).as_posix() for f in FILES}
    for wanted in [
        "paper/mutex.axb",
        "paper/prodcons_increasing.axb",
        "paper/prodcons_decreasing.axb",
        "paper/prodcons_bidirectional.axb",
        "paper/simplified_mutex.axb",
        "paper/dining_philosophers.axb",
        "idioms/ticket_lock.axb",
        "idioms/barrier_2.axb",
        "idioms/barrier_3.axb",
        "idioms/message_passing.axb",
    ]:
        assert wanted in names


def test_expect_line_reader():
    text = "# expect: unfair F | fair/weak P | HSA/strong F\n"
    assert expected_verdicts(text) == {("unfair", "none"): False, ("fair", "weak"): True, ("HSA", "strong"): False}
    with pytest.raises(AssertionError):
        expected_verdicts("# expect: fair/weak X\n")
    with pytest.raises(AssertionError):
        expected_verdicts("# no expectations\n")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(LITMUS).as_posix())
def test_litmus_file(path: Path):
    text = path.read_text()
    expected = expected_verdicts(text)
    program = parse_program(text, str(path))
    report = check_program(program, queries_for(all_models()))
    got = {(v.model, v.fairness): v.terminates for v in report.verdicts}
    assert set(expected) == set(got), "the header must list all 11 verdicts"
    assert got == expected
    assert brute.verdicts(program) == expected
    for verdict in report.verdicts:
        if verdict.terminates is False:
            fairness = "weak" if verdict.fairness == "none" else verdict.fairness
            assert brute.lasso_problems(program, verdict.model, fairness, verdict.witness) == []
    cadp = published().get(report.hash)
    if cadp is not None:
        assert all(expected[key] == value for key, value in cadp.items())
