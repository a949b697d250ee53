"""`progress import` / `progress export`: the artifact's text form, .axb and Promela.

Oracle for import: three tests in the artifact's own text form (copied from
github.com/tyler-utah/AlloyForwardProgress, artifact/cadp/.../alloy_output_processed,
BSD-2-Clause) must give the tests data/oopsla21 holds for them."""

from __future__ import annotations

from dataclasses import replace

import pytest
from click.testing import CliRunner
from in_process import progress

from progress.cli import cli
from progress.cli.inputs import expand, load
from progress.core.canonical import canonical_hash, canonical_text
from progress.errors import InputError
from progress.front.artifact import parse_artifact, to_artifact

ARTIFACT = {
    "2t2i/2.axb": "THREAD0\natomic_exch_branch(0,0,0,0)\n\n\nTHREAD1\natomic_exch_branch(0,0,1,0)\n\n\n",
    "2t2i/5.axb": "THREAD0\natomic_store(0,1)\n\n\nTHREAD1\natomic_chk_branch(0,0,0)\n\n\n",
    "3t4i/27.axb": (
        "THREAD0\natomic_exch_branch(0,0,0,0)\n\n\nTHREAD1\natomic_exch_branch(0,0,1,END)\n\n"
        "atomic_exch_branch(0,1,0,0)\n\n\nTHREAD2\natomic_store(0,1)\n\n\n"
    ),
}


def invoke(*args):
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def run(*args):
    """`progress ARGS` in this process (tests/in_process.py): (exit status, stdout, stderr)."""
    done = progress(*args)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("name", sorted(ARTIFACT))
def test_import_of_artifact_text_gives_the_suite_test(oopsla_dir, tmp_path, name):
    source = tmp_path / "t.txt"
    source.write_text(ARTIFACT[name])
    result = invoke("import", source, "--name", "t")
    assert result.exit_code == 0
    imported = tmp_path / "t.axb"
    imported.write_text(result.stdout)
    assert load(imported).threads == load(oopsla_dir / name).threads


def test_export_then_import_gives_back_every_suite_test(oopsla_dir, tmp_path):
    assert invoke("export", oopsla_dir, "--format", "artifact", "-o", tmp_path / "txt").exit_code == 0
    texts = sorted((tmp_path / "txt").rglob("*.txt"))
    assert len(texts) == 483
    assert invoke("import", *texts[:40], "-o", tmp_path / "axb").exit_code == 0
    for path in expand([str(oopsla_dir)]):
        relative = path.relative_to(oopsla_dir).with_suffix(".txt")
        program = parse_artifact((tmp_path / "txt" / relative).read_text(), "x", "x")
        assert program.threads == load(path).threads, relative
    imported = sorted((tmp_path / "axb").rglob("*.axb"))
    assert len(imported) == 40 and imported[0].relative_to(tmp_path / "axb").parts[0] == "2t2i"


@pytest.mark.parametrize(
    "text, where, message",
    [
        ("THREAD0\natomic_exch_branch(0,0,1)\n", "t.txt:2:1", "takes 4 arguments"),
        ("THREAD1\natomic_store(0,1)\n", "t.txt:1:1", "expected THREAD0"),
        ("THREAD0\natomic_chk_branch(0,0,5)\n", "t.txt:2:1", "target 5 is out of range"),
        ("THREAD0\n\nTHREAD1\natomic_store(0,1)\n", "t.txt:1:1", "THREAD0 has no instructions"),
        ("THREAD0\natomic_swap(0,1)\n", "t.txt:2:1", "expected THREAD<n>"),
        ("THREAD0\natomic_store(x,1)\n", "t.txt:2:1", "location must be a non-negative integer"),
    ],
)
def test_bad_artifact_text_names_the_line(tmp_path, text, where, message):
    (tmp_path / "t.txt").write_text(text)
    code, _, err = run("import", tmp_path / "t.txt")
    assert code == 2 and where in err and message in err


def test_to_artifact_refuses_initial_values():
    program = parse_artifact("THREAD0\natomic_store(0,1)\n", "x", "x")
    assert to_artifact(program).startswith("THREAD0\natomic_store(0,1)")
    with pytest.raises(ValueError):
        to_artifact(replace(program, init=(("m0", 1),)))


def test_export_axb_normalises_and_canonicalises(oopsla_dir):
    path = oopsla_dir / "2t4i" / "30.axb"
    assert invoke("export", path).stdout == load(path).to_axb()
    assert invoke("export", path, "--canonical").stdout == canonical_text(load(path))


def test_export_promela_carries_the_canonical_hash_and_is_deterministic(oopsla_dir):
    path = oopsla_dir / "3t3i" / "7.axb"
    first = invoke("export", path, "--format", "promela", "--model", "LOBE")
    assert first.exit_code == 0 and f"(hash {canonical_hash(load(path))})" in first.stdout
    assert invoke("export", path, "--format", "promela", "--model", "LOBE", "--weak").stdout == first.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("--format", "promela"), "needs --model"),
        (("--format", "promela", "--model", "OBE", "--strong"), "weak fairness only"),
        (("--model", "OBE"), "--format promela only"),
    ],
)
def test_export_usage_errors(oopsla_dir, args, message):
    code, _, err = run("export", oopsla_dir / "2t2i" / "0.axb", *args)
    assert code == 2 and message in err


def test_several_inputs_need_a_directory(oopsla_dir):
    code, _, err = run("export", oopsla_dir / "2t2i")
    assert code == 2 and "-o DIRECTORY" in err


def test_parse_artifact_accepts_spaces_and_comments():
    program = parse_artifact("# a test\nTHREAD 0\n  atomic_exch_branch( 1 , 0 , 1 , END )\n", "x", "x")
    assert program.threads[0][0].text(1) == "AXB(m1, 0, end, true, 1)"
    with pytest.raises(InputError):
        parse_artifact("", "x", "x")
