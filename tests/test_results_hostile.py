"""Hostile imports into the results database: every bad file is exit 2 naming the file and
line, and the database is left as it was (its bytes and its dump); a new database is not
created. Also the validation a server calls on a submitted run, and `progress run --db`."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from progress.cli import main
from progress.cli.inputs import load
from progress.cli.run import _fingerprint
from progress.gpu.database import open_database
from progress.gpu.records import inputs_digest, submitted_run, suite_of

GPU = Path(__file__).resolve().parents[1] / "docs" / "results" / "gpu"
TWO = "2_thread_2_instruction"


def cli(args, capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main([str(a) for a in args])
    captured = capsys.readouterr()
    return stop.value.code, captured.out, captured.err


@pytest.fixture()
def layout(tmp_path, oopsla_dir) -> Path:
    """A copy of the artifact's 2t2i folder (11 device files)."""
    root = tmp_path / "empirical"
    shutil.copytree(oopsla_dir / "empirical_results" / TWO, root / TWO)
    return root


@pytest.fixture()
def db(tmp_path, layout, oopsla_dir, capsys) -> Path:
    """A database holding the 2t2i runs."""
    path = tmp_path / "r.db"
    code, out, _ = cli(["results", "import", layout, "--suite", oopsla_dir, "--db", path], capsys)
    assert code == 0 and "11 runs: 11 new" in out
    return path


def state(path: Path) -> tuple[bytes, str]:
    with open_database(path) as database:
        return path.read_bytes(), database.dump()


def refused(args, db, capsys, *expected: str) -> str:
    """Run an import that must be refused: exit 2, the messages in stderr, the database unchanged."""
    before = state(db) if db.exists() else None
    code, out, err = cli(args, capsys)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err
    for text in expected:
        assert text in err, (text, err)
    assert (state(db) if db.exists() else None) == before
    return err


def damage(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


ASUS = f"{TWO}/CUDA/toucan_quadro_rtx4000-inter-workgroup.csv"


@pytest.mark.parametrize(
    "old,new,message",
    [
        ("1,P,F (16/20),P,F", "1,P,F (26/20),P,F", ":3:5: error: F (26/20): 26 of 20 iterations cannot fail"),
        ("1,P,F (16/20),P,F", "1,P,maybe,P,F", ":3:5: error: not a result: 'maybe'"),
        ("1,P,F (16/20),P,F", "1,P,F (16/21),P,F", ":3:5: error: F (16/21): the run has 20 iterations"),
        ("1,P,F (16/20),P,F", "1,P,F (16/20),P", ":3:1: error: 4 fields, the header has 5"),
        ("1,P,F (16/20),P,F", "1,P,F (16/20),P,P", ":3:17: error: All Passed is 'P'"),
        ("1,P,F (16/20),P,F", "0,P,F (16/20),P,F", ":3:1: error: test 0 again (first on line 2)"),
        ("1,P,F (16/20),P,F", "x1,P,F (16/20),P,F", ":3:1: error: the test name 'x1' is not a test number"),
        ("Total failures:,0,24,60,5", "Total failures:,0,25,60,5", ":10:19: error: the footer says 25"),
        ("Total failures:,0,24,60,5", "Total failures:,0,24,60,6", "the footer says 6 tests failed; the rows give 5"),
        ("Chunking Saturation Result", "Chunks", ":1:67: error: unknown or repeated column 'Chunks'"),
        ("7,P,P,F (20/20),F", "8,P,P,F (20/20),F", ":9:1: error: test 8 of 2t2i is not in the suite (no 2t2i/8.axb)"),
    ],
)
def test_a_damaged_artifact_file_is_refused_at_its_line(layout, db, oopsla_dir, capsys, old, new, message):
    damage(layout / ASUS, old, new)
    refused(["results", "import", layout, "--suite", oopsla_dir, "--db", db], db, capsys, ASUS.split("/")[-1], message)


def test_a_truncated_artifact_file_is_refused(layout, db, oopsla_dir, capsys):
    path = layout / ASUS
    text = path.read_text()
    path.write_text(text[: text.index("Total failures:")])  # cut at a line boundary: no footer
    refused(
        ["results", "import", path, "--suite", oopsla_dir, "--db", db], db, capsys, ":9:1: error: no `Total failures:`"
    )
    path.write_text(text[: text.index("4,P,P,F") + 9])  # cut inside a row
    refused(
        ["results", "import", path, "--suite", oopsla_dir, "--db", db],
        db,
        capsys,
        ":6:1: error: 4 fields, the header has 5",
    )
    path.write_text("")
    refused(["results", "import", path, "--suite", oopsla_dir, "--db", db], db, capsys, "the file is empty")


def test_a_file_of_another_suite_is_refused(layout, db, oopsla_dir, repo, capsys, tmp_path):
    # The 2t3i results filed under 2t2i: test 8 and on are not in 2t2i.
    source = oopsla_dir / "empirical_results" / "2_thread_3_instruction" / "CUDA" / "laptop_940m-inter-workgroup.csv"
    shutil.copy(source, layout / TWO / "CUDA" / "laptop_940m-inter-workgroup.csv")
    refused(
        ["results", "import", layout, "--suite", oopsla_dir, "--db", db], db, capsys, ":10:1: error: test 8 of 2t2i"
    )
    # A project run of the 3t5i selection against the 483-test suite.
    args = ["results", "import", GPU / "select3t5i" / "run1.csv", "--suite", oopsla_dir, "--db", db]
    refused(args, db, capsys, "run1.csv:2:1: error: 3t5i/0.axb is not a test of the suite")
    # Right keys, other programs: the run's inputs digest says so.
    other = tmp_path / "other"
    shutil.copytree(GPU / "select3t5i" / "suite", other)
    (other / "3t5i" / "0.axb").write_text((oopsla_dir / "3t3i" / "0.axb").read_text())
    args = ["results", "import", GPU / "select3t5i" / "run1.csv", "--suite", other, "--db", db]
    refused(args, db, capsys, "the tests of --suite are not the ones this run ran")


def test_damaged_project_files_are_refused(tmp_path, db, capsys):
    suite = GPU / "select3t5i" / "suite"
    table, meta = tmp_path / "run.csv", tmp_path / "run.json"
    lines = (GPU / "select3t5i" / "run1.csv").read_text().splitlines(keepends=True)
    text = json.loads((GPU / "select3t5i" / "run1.json").read_text())
    args = ["results", "import", table, "--suite", suite, "--db", db]
    table.write_text("".join(lines[:40]))
    meta.write_text(json.dumps(text))
    refused(args, db, capsys, "run.csv:40:1: error: 39 tests, ", "says 83: truncated or edited?")
    table.write_text("".join(lines))
    meta.write_text(json.dumps(text)[:200])
    refused(args, db, capsys, "run.json:1:", "not JSON")
    meta.write_text(json.dumps(text | {"complete": False}))
    refused(args, db, capsys, "run.json: the run is not complete")
    meta.write_text(json.dumps(text))
    table.write_text("".join(lines).replace("F (20/20)", "F (30/20)", 1))
    refused(args, db, capsys, "run.csv:2:16: error: F (30/20): 30 of 20 iterations cannot fail")
    table.write_text("".join(lines).replace("F (20/20)", "F (3/21)", 1))
    refused(args, db, capsys, "run.csv:2:16: error: F (3/21): the run has 20 iterations")
    meta.unlink()
    refused(args, db, capsys, "no metadata")


def test_a_foreign_or_damaged_database_is_refused_and_left_alone(tmp_path, layout, oopsla_dir, capsys):
    foreign = tmp_path / "synth.db"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE units (id INTEGER PRIMARY KEY, done INTEGER)")
        connection.execute("INSERT INTO units VALUES (1, 0)")
    connection.close()
    before = foreign.read_bytes()
    code, _, err = cli(["results", "import", layout, "--suite", oopsla_dir, "--db", foreign], capsys)
    assert code == 2 and "synth.db is a SQLite file of another application" in err
    assert foreign.read_bytes() == before
    text = tmp_path / "notes.db"
    text.write_text("not a database\n")
    code, _, err = cli(["results", "import", layout, "--suite", oopsla_dir, "--db", text], capsys)
    assert code == 2 and "notes.db is not a SQLite file" in err and text.read_text() == "not a database\n"
    code, _, err = cli(["devices", "--db", foreign], capsys)
    assert code == 2 and "another application" in err


def test_a_truncated_database_is_refused(db, layout, oopsla_dir, capsys):
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    half = db.read_bytes()
    for args in (["devices", "--db", db], ["results", "import", layout, "--suite", oopsla_dir, "--db", db]):
        code, _, err = cli(args, capsys)
        assert code == 2 and "r.db" in err and "Traceback" not in err, err
        assert db.read_bytes() == half


def test_a_read_only_database_is_refused_even_for_root(db, layout, oopsla_dir, capsys, tmp_path):
    shutil.copy(GPU / "select3t5i" / "run1.csv", tmp_path / "run1.csv")
    shutil.copy(GPU / "select3t5i" / "run1.json", tmp_path / "run1.json")
    os.chmod(db, 0o444)
    try:
        args = ["results", "import", tmp_path / "run1.csv", "--suite", GPU / "select3t5i" / "suite", "--db", db]
        refused(args, db, capsys, "r.db is read-only (mode 0444): nothing was written")
        code, out, _ = cli(["results", "list", "--db", db], capsys)  # reading is fine
        assert code == 0 and "a12" in out
    finally:
        os.chmod(db, 0o644)


def test_a_refused_import_creates_no_database(layout, oopsla_dir, capsys, tmp_path):
    damage(layout / ASUS, "1,P,F (16/20),P,F", "1,P,F (26/20),P,F")
    fresh = tmp_path / "fresh.db"
    refused(["results", "import", layout, "--suite", oopsla_dir, "--db", fresh], fresh, capsys, "26 of 20")
    assert not fresh.exists()


def test_a_submitted_run_is_validated_with_reasons(db, oopsla_dir):
    with open_database(db) as database:
        info = database.run("a12")
        suite = database.suite(info.suite_hash)
    assert suite is not None and len(suite.tests) == 483
    header = {"name": "browser", "device": "Some GPU", "backend": "webgpu", "driver": "x", "date": "2026-12-01"}
    header |= {"variant": "inter-workgroup", "heuristics": ["plain", "rr"], "iterations": 20}
    good = {"2t2i/0.axb": {"plain": "P", "rr": "F (3/20)"}}
    run = submitted_run(suite, suite.hash, header, good)
    assert run.rows() == good
    bad_cases = [
        (suite.hash, header, {"9t9i/0.axb": {"plain": "P", "rr": "P"}}, "9t9i/0.axb is not a test of the suite"),
        (suite.hash, header, {"2t2i/0.axb": {"plain": "P", "rr": "F (21/20)"}}, "21 of 20 iterations cannot fail"),
        (suite.hash, header, {"2t2i/0.axb": {"plain": "P", "rr": "F (2/30)"}}, "30 iterations, the run has 20"),
        (suite.hash, header, {"2t2i/0.axb": {"plain": "P", "rr": "fail"}}, "not a result cell"),
        (suite.hash, header, {"2t2i/0.axb": {"plain": "P"}}, "has no result under rr"),
        ("0" * 32, header, good, "the run is of suite '000"),
        (suite.hash, header | {"iterations": "20"}, good, "iterations must be a whole number"),
        (suite.hash, header | {"device": "a\x1b[2Jb"}, good, "the run's device is not a line"),
        (suite.hash, header | {"heuristics": ["Plain"]}, {"2t2i/0.axb": {"Plain": "P"}}, "is not a heuristic name"),
    ]
    for claimed, head, rows, reason in bad_cases:
        with pytest.raises(ValueError, match=None) as error:
            submitted_run(suite, claimed, head, rows)
        assert reason in str(error.value), (reason, str(error.value))
    with open_database(db, writable=True) as database:
        run_id = database.import_run(run)
        assert database.rows(run_id) == good and database.run(run_id).name == "browser"


def test_the_inputs_digest_is_the_one_progress_run_writes(repo):
    tests = [(f"paper/{p.name}", load(p)) for p in sorted((repo / "litmus" / "paper").glob("*.axb"))]
    assert inputs_digest(tests) == _fingerprint(tests)
    suite = suite_of("paper", tests)
    assert [t.key for t in suite.tests] == sorted(key for key, _ in tests)


def test_run_records_into_the_database_and_an_import_of_its_csv_is_the_same_run(repo, tmp_path, capsys):
    paper, out, db = repo / "litmus" / "paper", tmp_path / "r.csv", tmp_path / "runs.db"
    args = ["run", paper, "--backend", "cpu", "--iterations", "2", "--deadline", "2ms", "-o", out, "--db", db]
    code, _, err = cli(args, capsys)
    assert code == 0 and f"run 1 in {db}" in err
    before = db.read_bytes()
    code, stdout, _ = cli(["results", "import", out, "--suite", paper, "--db", db], capsys)
    assert code == 0 and "already in the database" in stdout and db.read_bytes() == before
    code, on_db, _ = cli(["conform", "--db", db, "--run", "1"], capsys)
    code, on_csv, _ = cli(["conform", out, "--suite", paper], capsys)
    assert on_db.split("\n", 1)[1] == on_csv.split("\n", 1)[1]


def test_run_refuses_an_unusable_database_before_running(repo, tmp_path, capsys):
    foreign = tmp_path / "x.db"
    foreign.write_text("text")
    out = tmp_path / "r.csv"
    args = ["run", repo / "litmus" / "paper", "--backend", "cpu", "-o", out, "--db", foreign]
    code, _, err = cli(args, capsys)
    assert code == 2 and "x.db is not a SQLite file" in err and not out.exists()
    code, _, err = cli(["run", repo / "litmus" / "paper", "--backend", "cpu", "-o", out, "--db", tmp_path], capsys)
    assert code == 2 and not out.exists()


def test_numbers_of_any_length_and_bad_names_are_refused(layout, db, oopsla_dir, capsys):
    huge = "9" * 5000  # more digits than Python converts to int
    damage(layout / ASUS, "1,P,F (16/20),P,F", f"1,P,F ({huge}/20),P,F")
    err = refused(
        ["results", "import", layout, "--suite", oopsla_dir, "--db", db], db, capsys, ":3:5: error: not a result"
    )
    assert "(5007 characters)" in err and len(err) < 6000
    damage(layout / ASUS, f"1,P,F ({huge}/20),P,F", f"{huge},P,F (16/20),P,F")
    refused(["results", "import", layout, "--suite", oopsla_dir, "--db", db], db, capsys, "is not a test number")
    one = layout / ASUS.replace("toucan_quadro_rtx4000-inter-workgroup", "laptop_940m-inter-workgroup")
    for name, reason in (("", "--name is a line"), ("a\x1b[2Jb", "--name is a line")):
        refused(["results", "import", one, "--suite", oopsla_dir, "--name", name, "--db", db], db, capsys, reason)
    shutil.copy(oopsla_dir / "empirical_results" / ASUS, layout / ASUS)
    args = ["results", "import", layout, "--suite", oopsla_dir, "--name", "x", "--db", db]
    refused(args, db, capsys, "--name names one run; PATHS hold")


def test_conform_refuses_a_count_too_long_to_convert(tmp_path, oopsla_dir, capsys):
    table = tmp_path / "r.csv"
    table.write_text(f"test,plain\n2t2i/0.axb,F ({'9' * 5000}/20)\n")
    code, _, err = cli(["conform", table, "--suite", oopsla_dir], capsys)
    assert code == 2 and "not a result cell" in err
