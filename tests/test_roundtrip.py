"""Every file the tool writes reads back: `import` (artifact text to .axb),
`export` (.axb, canonical .axb, the artifact's text, Promela into SPIN) and `synth --export`,
whatever the test is called. A name `.axb` cannot spell (`0`, the stem of
`0.txt`; `my-test`; a keyword) is written without a `test` line, so the file
still reads and, named after its stem, names the test the same again; a bad
`--name` is refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from spin_oracle import spin_terminates

from progress.cli import main
from progress.cli.inputs import load
from progress.core.canonical import canonical_text
from progress.core.program import is_name
from progress.front.artifact import parse_artifact
from progress.front.axb.parse import parse_program

ARTIFACT = "THREAD0\natomic_store(0,1)\n\n\nTHREAD1\natomic_chk_branch(0,0,0)\n\n\n"
STEMS = ["0", "my-test", "end", "AXB", "thread", "ok_name", "x.y", "tést"]


def cli(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def reads(path: Path, name: str | None = None):
    """The program in `path`, which must parse; its name, when given, must survive."""
    program = load(path)
    if name is not None:
        assert program.name == name, path.read_text()
    return program


def test_names_follow_the_grammar():
    assert is_name("ok_name") and is_name("_x1") and is_name("Thread")
    for bad in ["0", "0a", "my-test", "end", "true", "thread", "aXb", "", "bad name!", "x\ny", "tést"]:
        assert not is_name(bad), bad


@pytest.mark.parametrize("stem", STEMS)
def test_import_writes_files_that_read_back_under_their_own_name(tmp_path, capsys, stem):
    source = tmp_path / f"{stem}.txt"
    source.write_text(ARTIFACT)
    (tmp_path / "out").mkdir()
    code, _, err = cli(capsys, "import", source, "-o", tmp_path / "out")
    assert code == 0, err
    written = tmp_path / "out" / f"{stem}.axb"
    assert reads(written, stem).threads == parse_artifact(ARTIFACT, "a", "a").threads
    code, out, err = cli(capsys, "check", written, "--model", "OBE", "--weak")
    assert code in (0, 1) and "bad input" not in out, err


def test_import_to_standard_output_reads_back(tmp_path, capsys):
    (tmp_path / "0.txt").write_text(ARTIFACT)
    code, out, _ = cli(capsys, "import", tmp_path / "0.txt")
    assert code == 0
    assert parse_program(out, "stdin.axb").threads == parse_artifact(ARTIFACT, "a", "a").threads


@pytest.mark.parametrize("name", ["bad name!", "0", "end", "my-test", ""])
def test_import_refuses_a_name_it_cannot_write(tmp_path, capsys, name):
    (tmp_path / "a.txt").write_text(ARTIFACT)
    code, _, err = cli(capsys, "import", tmp_path / "a.txt", "--name", name, "-o", tmp_path / "a.axb")
    assert code == 2 and f"--name {name!r} is not a test name" in err
    assert not (tmp_path / "a.axb").exists()


@pytest.mark.parametrize("fmt", [[], ["--canonical"], ["--format", "artifact"]])
def test_export_writes_files_that_read_back(tmp_path, capsys, fmt):
    tests = tmp_path / "in"
    tests.mkdir()
    body = "thread 0\n  AXB(m, 1, 0, true, 1)\n  AXB(m, 0, end, true, 0)\nthread 1\n  AXB(m, 1, end, true, 1)\n"
    for stem in ["0", "my-test", "end", "named"]:
        (tests / f"{stem}.axb").write_text(("test named\n" if stem == "named" else "") + body)
    code, _, err = cli(capsys, "export", tests, "-o", tmp_path / "out", *fmt)
    assert code == 0, err
    originals = {path.stem: load(path) for path in tests.iterdir()}
    for stem, program in originals.items():
        if fmt == ["--format", "artifact"]:
            text = (tmp_path / "out" / f"{stem}.txt").read_text()
            assert canonical_text(parse_artifact(text, "t.txt", stem)) == canonical_text(program)
            continue
        back = reads(tmp_path / "out" / f"{stem}.axb", None if fmt else program.name)
        assert (back == program) if not fmt else (len(back.threads) == len(program.threads))


@pytest.mark.long
def test_synth_export_reads_back_and_meets_its_headers(tmp_path, capsys):
    code, _, err = cli(capsys, "synth", "-t", "2", "-i", "2", "--out", tmp_path / "s.db", "--export", tmp_path / "x")
    assert code == 0, err
    code, out, err = cli(capsys, "check", tmp_path / "x", "--expect-header")
    assert code == 0, out + err
    assert "bad input" not in out and "do not" in out and ", 0 do not" in out


@pytest.mark.skipif(shutil.which("spin") is None or shutil.which("gcc") is None, reason="SPIN and gcc not installed")
def test_exported_promela_reads_back_into_spin_whatever_the_name(tmp_path, capsys):
    (tmp_path / "0.axb").write_text("thread 0\n  AXB(x, 0, end, true, 1)\nthread 1\n  AXB(x, 0, 0, false, 0)\n")
    code, _, err = cli(
        capsys, "export", tmp_path / "0.axb", "--format", "promela", "--model", "OBE", "-o", tmp_path / "t.pml"
    )
    assert code == 0, err
    # Thread 1 spins on x before thread 0 ever starts: OBE does not make thread 0 run.
    assert spin_terminates((tmp_path / "t.pml").read_text(), tmp_path / "spin") is False
