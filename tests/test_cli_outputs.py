"""Every command that writes files: an unwritable output is a usage error
(exit 2, `error: cannot ...` naming the path), never a traceback; missing
directories are made."""

from __future__ import annotations

import pytest
from in_process import progress


def run(*args, cwd=None):
    """`progress ARGS` in this process (tests/in_process.py): (exit status, stdout, stderr)."""
    done = progress(*args, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


WRITERS = {
    "classify -o": lambda suite, repo, bad: ["classify", suite, "-o", bad / "table.md"],
    "classify --plot": lambda suite, repo, bad: ["classify", suite, "--plot", bad / "chart.svg"],
    "classify --suites": lambda suite, repo, bad: ["classify", suite, "--suites", bad],
    "show -o": lambda suite, repo, bad: ["show", suite / "1.axb", "-m", "OBE", "-o", bad / "lts.dot"],
    "export -o": lambda suite, repo, bad: ["export", suite, "-o", bad],
    "run -o": lambda suite, repo, bad: [
        "run",
        repo / "litmus" / "idioms" / "barrier_2.axb",
        "--backend",
        "cpu",
        "--iterations",
        "1",
        "-o",
        bad / "results.csv",
    ],
    "synth --out": lambda suite, repo, bad: ["synth", "-t", "1", "-i", "1", "--out", bad / "run.db"],
    "synth --export": lambda suite, repo, bad: [
        "synth",
        "-t",
        "1",
        "-i",
        "1",
        "--out",
        bad.parent / "ok.db",
        "--export",
        bad,
    ],
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_unwritable_output_is_a_usage_error(writer, oopsla_dir, repo, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory\n")
    code, _, err = run(*WRITERS[writer](oopsla_dir / "2t2i", repo, blocker / "out"))
    assert "Traceback" not in err, err
    assert code == 2 and "error: cannot" in err and str(blocker) in err, (code, err)


def test_missing_directories_are_made(oopsla_dir, tmp_path):
    code, _, err = run(
        "synth", "-t", "1", "-i", "1", "--out", tmp_path / "runs" / "one.db", "--export", tmp_path / "tests"
    )
    assert code == 0, err
    assert (tmp_path / "runs" / "one.db").is_file() and (tmp_path / "tests" / "1t1i" / "verdicts.csv").is_file()
    code, _, err = run("classify", oopsla_dir / "2t2i", "--plot", tmp_path / "charts" / "fig.svg")
    assert code == 0 and (tmp_path / "charts" / "fig.svg").read_bytes().startswith(b"<?xml"), err
