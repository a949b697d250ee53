"""The checker (and the brute-force oracle) against the artifact's CADP verdicts.

`cadp_verdicts.csv` holds P/F for each of the 483 published tests under the
10 (model, fairness) pairs the artifact checked with CADP.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import brute
import pytest
from in_process import progress

from progress.core.analyze import check_program, queries_for
from progress.core.registry import all_models
from progress.front.axb.parse import parse_program

N_TESTS = 483
PAIRS = 10


def _expected(oopsla_dir: Path) -> dict[str, dict[tuple[str, str], bool]]:
    with open(oopsla_dir / "cadp_verdicts.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {
        row["test"]: {tuple(key.split("/")): value == "P" for key, value in row.items() if key != "test"}
        for row in rows
    }


@pytest.fixture(scope="module")
def cadp(oopsla_dir) -> dict[str, dict[tuple[str, str], bool]]:
    expected = _expected(oopsla_dir)
    assert len(expected) == N_TESTS
    assert all(len(v) == PAIRS for v in expected.values())
    assert all(value in (True, False) for v in expected.values() for value in v.values())
    return expected


@pytest.fixture(scope="module")
def programs(oopsla_dir, cadp):
    return {name: parse_program((oopsla_dir / name).read_text(), str(oopsla_dir / name)) for name in cadp}


def _mismatches(cadp, verdicts_of) -> list[str]:
    wrong = []
    for name, expected in cadp.items():
        got = verdicts_of(name)
        wrong += [
            f"{name} {m}/{f}: CADP {'P' if want else 'F'}, got {got.get((m, f))}"
            for (m, f), want in expected.items()
            if got.get((m, f)) != want
        ]
    return wrong


def test_checker_matches_cadp_on_every_test(cadp, programs):
    queries = queries_for(all_models())
    reports = {name: check_program(p, queries, witnesses=False) for name, p in programs.items()}
    verdicts = {name: {(v.model, v.fairness): v.terminates for v in r.verdicts} for name, r in reports.items()}
    assert _mismatches(cadp, verdicts.__getitem__) == []
    assert all(len(v) == PAIRS + 1 for v in verdicts.values())
    failing_unfair = [name for name, v in verdicts.items() if v[("unfair", "none")] is not False]
    assert failing_unfair == [], "every synthesized test fails unfair by construction"


def test_every_lasso_on_the_suite_is_a_witness(programs):
    """Each "may not terminate" verdict's lasso replays in the oracle's semantics."""
    queries = queries_for(all_models())
    checked = 0
    for name, program in programs.items():
        for verdict in check_program(program, queries).verdicts:
            if verdict.terminates is False:
                fairness = "weak" if verdict.fairness == "none" else verdict.fairness
                problems = brute.lasso_problems(program, verdict.model, fairness, verdict.witness)
                assert problems == [], (name, verdict.model, verdict.fairness, problems)
                checked += 1
    assert checked > 3000


def test_brute_force_oracle_matches_cadp(cadp, programs):
    """The property tests' oracle is itself right on the published suite."""
    verdicts = {name: brute.verdicts(p) for name, p in programs.items()}
    assert _mismatches(cadp, verdicts.__getitem__) == []
    assert not any(v[("unfair", "none")] for v in verdicts.values())


def test_cli_json_lines_schema(oopsla_dir, cadp):
    run = progress("check", oopsla_dir, "--format", "json")  # in this process (tests/in_process.py)
    assert run.returncode == 1, run.stderr  # every test may not terminate under unfair
    lines = run.stdout.splitlines()
    assert len(lines) == N_TESTS
    seen = set()
    for line in lines:
        record = json.loads(line)
        assert set(record) == {"test", "file", "hash", "results"}
        assert isinstance(record["test"], str) and isinstance(record["hash"], str) and len(record["hash"]) == 16
        name = Path(record["file"]).relative_to(oopsla_dir).as_posix()
        seen.add(name)
        results = record["results"]
        assert len(results) == PAIRS + 1
        for result in results:
            assert set(result) == {"model", "fairness", "terminates", "states", "transitions", "witness"}
            assert isinstance(result["states"], int) and isinstance(result["transitions"], int)
            assert (result["witness"] is None) == result["terminates"]
            key = (result["model"], result["fairness"])
            if key == ("unfair", "none"):
                assert result["terminates"] is False
            else:
                assert result["terminates"] == cadp[name][key], (name, key)
        if results[0]["witness"] is not None:
            assert {"kind", "loop_start", "running", "starving", "steps"} <= set(results[0]["witness"])
    assert seen == set(cadp)
    assert "checked 483 test(s)" in run.stderr
