"""`progress classify` end to end on the OOPSLA'21 suite: Table 4, the
lattice numbers, the artifact's CSV layout, --expect, --suites, --plot,
determinism."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner
from test_classify_rules import LATTICE_483, TABLE_4

from progress.cli import cli
from progress.cli.inputs import load
from progress.core.canonical import canonical_hash


def run(*args, cwd=None):
    """`progress ARGS` in a subprocess: (exit status, stdout, stderr)."""
    done = subprocess.run(
        [sys.executable, "-c", "from progress.cli import main; main()", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    return done.returncode, done.stdout, done.stderr


def invoke(*args):
    result = CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)
    return result.exit_code, result.stdout


@pytest.fixture(scope="module")
def oopsla_csv(oopsla_dir) -> str:
    code, out = invoke("classify", oopsla_dir, "--matrix", "--format", "csv")
    assert code == 0
    return out


def _json_numbers(text: str) -> dict:
    data = json.loads(text)
    assert data["tests"] == 483
    return {(r["model"], r["fairness"]): (r["distinguishing"], r["conformance"]) for r in data["rows"]}


def test_paper_rule_gives_table_4(oopsla_dir):
    code, out = invoke("classify", oopsla_dir, "--rule", "paper", "--format", "json")
    assert code == 0
    assert json.loads(out)["rule"] == "paper"
    assert _json_numbers(out) == TABLE_4


def test_table4_is_the_papers_table_4(oopsla_dir):
    """`progress classify litmus/oopsla21 --table4`, the README's reproduction of the paper."""
    code, out = invoke("classify", oopsla_dir, "--table4", "--format", "json")
    assert code == 0 and json.loads(out)["rule"] == "paper"
    assert _json_numbers(out) == TABLE_4
    assert invoke("classify", oopsla_dir, "--table4") == invoke("classify", oopsla_dir, "--rule", "paper")


@pytest.mark.parametrize("other", [("--matrix",), ("--rule", "lattice")])
def test_table4_with_another_table_is_a_usage_error(oopsla_dir, other):
    code, _, err = run("classify", oopsla_dir / "2t2i", "--table4", *other)
    assert code == 2 and "--table4 is the classification by the paper's rule" in err


def test_lattice_rule_is_the_default(oopsla_dir):
    code, out = invoke("classify", oopsla_dir, "--format", "json")
    assert code == 0 and json.loads(out)["rule"] == "lattice"
    assert _json_numbers(out) == LATTICE_483


def test_markdown_and_latex_tables_show_table_4_rows(oopsla_dir):
    _, markdown = invoke("classify", oopsla_dir, "--rule", "paper")
    assert "| LOBE | 20 | 122 | 16 | 110 |" in markdown
    _, latex = invoke("classify", oopsla_dir, "--rule", "paper", "--format", "latex")
    assert r"fair & 201 & 323 & 50 & 160 \\" in latex and r"\begin{tabular}" in latex


def test_csv_table_has_one_row_per_point(oopsla_dir):
    _, out = invoke("classify", oopsla_dir, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["model", "fairness", "conformance", "distinguishing"]
    assert ["OBE", "weak", "24", "24"] in rows and len(rows) == 12


def test_matrix_csv_has_the_artifact_layout_and_verdicts(oopsla_dir, oopsla_csv):
    ours = list(csv.reader(io.StringIO(oopsla_csv)))
    theirs = list(csv.reader(io.StringIO((oopsla_dir / "cadp_verdicts.csv").read_text())))
    assert [row[:11] for row in ours] == theirs
    assert ours[0][11:] == ["unfair", "hash"]
    assert {row[11] for row in ours[1:]} == {"F"}
    hashes = {row[0]: row[12] for row in ours[1:]}
    assert all(hashes[name] == canonical_hash(load(oopsla_dir / name)) for name in ("2t2i/0.axb", "3t4i/104.axb"))
    # Location-renaming duplicates (docs/semantics.md section 6) share a hash: 20 in the suite (README).
    assert len(hashes) - len(set(hashes.values())) == 20


def test_expect_with_the_artifact_csv_finds_no_mismatch(oopsla_dir):
    code, out = invoke("classify", oopsla_dir, "--expect", oopsla_dir / "cadp_verdicts.csv")
    assert code == 0
    assert out.splitlines() == [
        f"0 mismatching cell(s) in 0 test(s); 483 test(s) compared with {oopsla_dir / 'cadp_verdicts.csv'}"
    ]


def test_expect_reports_exactly_the_flipped_cells(oopsla_dir, tmp_path):
    rows = list(csv.reader(io.StringIO((oopsla_dir / "cadp_verdicts.csv").read_text())))
    flips = {(5, "OBE/weak"), (200, "fair/strong"), (480, "LOBE/weak")}
    header = rows[0]
    for line, column in flips:
        index = header.index(column)
        rows[line][index] = {"P": "F", "F": "P"}[rows[line][index]]
    flipped = tmp_path / "flipped.csv"
    with flipped.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    code, out = invoke("classify", oopsla_dir, "--expect", flipped)
    assert code == 1
    lines = out.splitlines()
    reported = {(line.split(":")[0], line.split(": ")[1]) for line in lines[:-1]}
    assert reported == {(rows[line][0], column) for line, column in flips}
    assert lines[-1].startswith("3 mismatching cell(s) in 3 test(s)")


def test_bad_expect_file_is_an_input_error(oopsla_dir, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("test,fair/weak\n2t2i/0.axb,X\n")
    code, _, err = run("classify", oopsla_dir / "2t2i", "--expect", bad)
    assert code == 2 and "bad.csv:2:" in err and "verdict 'X'" in err


def test_same_bytes_for_the_same_input(oopsla_dir, oopsla_csv):
    assert invoke("classify", oopsla_dir, "--matrix", "--format", "csv")[1] == oopsla_csv
    for fmt in ("md", "json", "latex"):
        assert invoke("classify", oopsla_dir / "2t2i", "--format", fmt) == invoke(
            "classify", oopsla_dir / "2t2i", "--format", fmt
        )


def test_names_are_relative_to_the_common_directory(oopsla_dir):
    _, out = invoke("classify", oopsla_dir / "2t2i", oopsla_dir / "3t3i" / "7.axb", "--matrix", "--format", "csv")
    names = [row[0] for row in csv.reader(io.StringIO(out))][1:]
    assert names[0] == "2t2i/0.axb" and names[-1] == "3t3i/7.axb" and len(names) == 9
    _, out = invoke("classify", oopsla_dir / "2t2i", "--matrix", "--format", "json")
    assert [t["test"] for t in json.loads(out)["tests"]][:2] == ["0.axb", "1.axb"]


def test_suites_are_list_files_that_check_accepts(oopsla_dir, tmp_path):
    code, _ = invoke(
        "classify", oopsla_dir, "--rule", "paper", "--suites", tmp_path / "suites", "-o", tmp_path / "table.md"
    )
    assert code == 0 and "| OBE | 12 | 12 | 0 | 0 |" in (tmp_path / "table.md").read_text()
    listing = tmp_path / "suites" / "conformance" / "LOBE-weak.txt"
    entries = [line for line in listing.read_text().splitlines() if not line.startswith("#")]
    assert len(entries) == 122
    code, out = invoke("check", f"@{listing}", "--model", "LOBE", "--weak")
    assert code == 0 and out.count("LOBE weak: guaranteed to terminate") == 122
    distinguishing = tmp_path / "suites" / "distinguishing" / "LOBE-weak.txt"
    code, out = invoke("check", f"@{distinguishing}", "--model", "HSA", "--weak")
    assert code == 1 and out.count("HSA weak: may not terminate") == 20


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_is_written_and_deterministic(oopsla_dir, tmp_path, suffix):
    first, second = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    assert invoke("classify", oopsla_dir, "--rule", "paper", "--plot", first)[0] == 0
    assert invoke("classify", oopsla_dir, "--rule", "paper", "--plot", second)[0] == 0
    assert first.read_bytes() == second.read_bytes() and first.stat().st_size > 5000


def test_plot_refuses_other_formats(oopsla_dir, tmp_path):
    code, _, err = run("classify", oopsla_dir / "2t2i", "--plot", tmp_path / "chart.pdf")
    assert code == 2 and "--plot" in err


def test_bad_test_files_are_reported_and_the_rest_classified(oopsla_dir, tmp_path):
    (tmp_path / "good.axb").write_text((oopsla_dir / "2t2i" / "3.axb").read_text())
    (tmp_path / "bad.axb").write_text("thread 0\n  AXB(x, 0, 7, true, 1)\n")
    code, out, err = run("classify", tmp_path, "--matrix", "--format", "csv")
    assert code == 2 and "bad.axb:2:" in err
    assert [row[0] for row in csv.reader(io.StringIO(out))] == ["test", "good.axb"]


def test_state_bound_makes_verdicts_inconclusive(oopsla_dir):
    code, out = invoke("classify", oopsla_dir / "3t4i" / "0.axb", "--matrix", "--format", "csv", "--max-states", "2")
    assert code == 3 and "?" in out.splitlines()[1]


@pytest.mark.parametrize(
    "header, message, column",
    [
        ("test,OBE-weak", "unknown column 'OBE-weak' (the columns are fair/weak,", 6),
        ("test,obe/weak", "unknown column 'obe/weak'", 6),
        ("test,OBE/weak,OBE/weak", "column 'OBE/weak' appears twice", 15),
        ("test,hash", "a verdict CSV needs at least one verdict column", 1),
    ],
)
def test_an_expect_header_that_would_compare_nothing_is_bad_input(oopsla_dir, tmp_path, header, message, column):
    bad = tmp_path / "bad.csv"
    width = header.count(",")
    bad.write_text(f"{header}\n2t2i/0.axb" + ",F" * width + "\n")
    code, out, err = run("classify", oopsla_dir / "2t2i", "--expect", bad)
    assert code == 2, out + err
    assert f"bad.csv:1:{column}: error: {message}" in err and "Traceback" not in err


def test_an_expect_file_sharing_no_test_with_the_suite_is_not_success(oopsla_dir):
    # Names are relative to the inputs' common directory: `0.axb`, not `2t2i/0.axb`.
    code, out, err = run("classify", oopsla_dir / "2t2i", "--expect", oopsla_dir / "cadp_verdicts.csv")
    assert code == 2
    assert "0 test(s) compared with" in out and "8 not in it" in out
    assert "nothing was compared" in err
