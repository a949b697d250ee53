"""`progress conform` and the results CSV: conformance sets checked against the
artifact's CADP verdicts, and the consistent/violates rule on small inputs."""

from __future__ import annotations

import csv
import json

import pytest

from progress.cli import main
from progress.core.analyze import Verdict
from progress.gpu import results
from progress.gpu.conform import conformance, render_text
from progress.gpu.heuristics import geometry
from progress.gpu.runner import Outcome, parse_duration, parse_heuristics


def _v(model, fairness, terminates):
    return Verdict(model, fairness, terminates, 1, 1)


def test_cells_and_csv_round_trip():
    launch = geometry("rr", 2, 4)
    assert results.cell(Outcome(launch, (0, 0, 0), 0.1)) == "P"
    assert results.cell(Outcome(launch, (0, 7, 1), 0.1)) == "F (2/3)"
    text = results.header(("plain", "chunked")) + results.row("a/b.axb", ["P", "F (2/20)"])
    assert text == "test,plain,chunked\na/b.axb,P,F (2/20)\n"
    assert results.parse_csv(text) == (("plain", "chunked"), {"a/b.axb": {"plain": "P", "chunked": "F (2/20)"}})
    assert results.parse_cell("F (2/20)") == (2, 20) and results.parse_cell("P") is None
    with pytest.raises(ValueError):
        results.parse_csv("test,plain\nx.axb,maybe\n")


def test_option_parsers():
    assert parse_heuristics("chunked, plain") == ("plain", "chunked")
    assert parse_duration("300ms") == pytest.approx(0.3) and parse_duration("2s") == 2.0
    assert parse_duration("20s") == 20.0 and parse_duration("50us") == pytest.approx(5e-5)
    for bad in ("", "fast", "0s", "2", "50", "infs", "inf", "nans", "1e3s", "-1s", "0.5ns", "2h", "3601s"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_a_failing_conformance_test_violates_only_models_that_guarantee_it():
    rows = {"a": {"plain": "P", "chunked": "F (3/20)"}, "b": {"plain": "P", "chunked": "P"}}
    verdicts = {
        "a": (_v("HSA", "weak", False), _v("fair", "weak", True)),
        "b": (_v("HSA", "weak", True), _v("fair", "weak", True)),
        "c": (_v("HSA", "weak", True), _v("fair", "weak", True)),
    }  # not run: ignored
    report = {(r.model, r.fairness): r for r in conformance(("plain", "chunked"), rows, verdicts)}
    assert report["HSA", "weak"].conformance == ("b",) and report["HSA", "weak"].verdict == "consistent with"
    assert report["fair", "weak"].failed == {"plain": (), "chunked": ("a",)}
    assert report["fair", "weak"].verdict == "violates"
    text = render_text(list(report.values()), ("plain", "chunked"))
    assert "fair/weak failed under chunked: a" in text


def test_conformance_sets_match_the_artifacts_verdicts(oopsla_dir, tmp_path, capsys):
    with (oopsla_dir / "cadp_verdicts.csv").open() as handle:
        cadp = list(csv.DictReader(handle))
    chunked_fails = {row["test"] for row in cadp if row["LOBE/weak"] == "F"}
    table = tmp_path / "r.csv"
    table.write_text(
        results.header(("plain", "chunked"))
        + "".join(results.row(row["test"], ["P", "F (1/20)" if row["test"] in chunked_fails else "P"]) for row in cadp)
    )
    with pytest.raises(SystemExit) as exit_info:
        main(["conform", str(table), "--suite", str(oopsla_dir), "--format", "json"])
    assert exit_info.value.code == 0
    models = {(m["model"], m["fairness"]): m for m in json.loads(capsys.readouterr().out)["models"]}
    for column in ("fair/weak", "HSA/weak", "OBE/weak", "LOBE/weak", "fair/strong", "LOBE/strong"):
        model, fairness = column.split("/")
        expected = [row["test"] for row in cadp if row[column] == "P"]
        assert models[model, fairness]["conformance"] == len(expected)
        assert models[model, fairness]["failed"]["chunked"] == [t for t in expected if t in chunked_fails]
    assert models["LOBE", "weak"]["verdict"] == "consistent with"
    assert models["fair", "weak"]["verdict"] == "violates"
    assert models["unfair", "none"]["conformance"] == 0


def test_results_sharing_no_test_with_the_suites_compare_nothing_and_fail(oopsla_dir, tmp_path, capsys):
    # Keys relative to the suite root, but the suite given is one level down: no key resolves.
    table = tmp_path / "r.csv"
    table.write_text(results.header(("plain",)) + results.row("2t2i/0.axb", ["P"]) + results.row("2t2i/1.axb", ["P"]))
    with pytest.raises(SystemExit) as exit_info:
        main(["conform", str(table), "--suite", str(oopsla_dir / "2t2i")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "is in any --suite directory (2 test(s), such as '2t2i/0.axb'): nothing to compare" in err
