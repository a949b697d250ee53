"""`progress check --expect-header`: the header's verdicts, compared."""

from __future__ import annotations

import re

import pytest
from in_process import progress

from progress.errors import InputError
from progress.front.expect import expectations

ALL_HOLD = "all 11 expected verdicts hold"


def run(*args, cwd):
    """`progress ARGS` in this process (tests/in_process.py): only output and exit status are checked."""
    return progress(*args, cwd=cwd)


def test_reads_cells_with_and_without_fairness():
    text = "test t\n# expect: unfair F | fair/weak P | HSA+OBE/strong F\nthread 0\n  AXB(x, 0, end, true, 1)\n"
    assert expectations(text, "t.axb") == {
        ("UNFAIR", "none"): False,
        ("FAIR", "weak"): True,
        ("HSA+OBE", "strong"): False,
    }


@pytest.mark.parametrize(
    "text, message, where",
    [
        ("thread 0\n  AXB(x, 0, end, true, 1)\n", "no '# expect:' line", "t.axb:1:1"),
        (
            "# expect: fair/weak P\n# expect: fair/weak P\nthread 0\n AXB(x,0,end,true,1)\n",
            "more than one '# expect:' line",
            "t.axb:2:1",
        ),
        (
            "# expect: fair/weak P | OBE/weak X\nthread 0\n AXB(x,0,end,true,1)\n",
            "cannot read the expectation 'OBE/weak X'",
            "t.axb:1:25",
        ),
    ],
)
def test_bad_headers_are_positioned_errors(text, message, where):
    with pytest.raises(InputError) as caught:
        expectations(text, "t.axb")
    assert caught.value.render().startswith(f"{where}: error: {message}")


def test_the_shipped_corpus_meets_its_headers_and_the_published_suite_cadp(repo):
    """README command 1: the hand-written corpus against its header lines, and
    the 483 published tests (no header lines) against CADP's 10 verdicts in
    litmus/oopsla21/cadp_verdicts.csv."""
    done = run("check", "litmus", "--expect-header", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    suffixes = {".axb", ".comp", ".glsl", ".hlsl", ".spvasm", ".wgsl"}  # a directory holds kernels too (litmus/kernels)
    published = repo / "litmus" / "oopsla21"
    tests = sum(1 for path in (repo / "litmus").rglob("*") if path.suffix in suffixes and published not in path.parents)
    corpus = [p for p in (repo / "litmus").rglob("*") if p.suffix in suffixes and published not in p.parents]
    scoped = sum(_scoped_cells(path.read_text()) for path in corpus)  # the subgroup kernels' lane verdicts
    assert scoped >= 30
    assert len(re.findall(r"all \d+ expected verdicts hold", done.stdout)) - 483 == tests
    assert done.stdout.count("all 10 expected verdicts hold") == 483
    assert f"expectations: {11 * tests + scoped + 10 * 483} hold, 0 do not" in done.stdout


def _scoped_cells(text: str) -> int:
    """The cells of a header's expect line that name a scoped model (W/S/L)."""
    line = next((line for line in text.splitlines() if "expect:" in line), "")
    return sum(1 for cell in line.split("expect:", 1)[-1].split("|") if cell.split()[0].count("/") >= 2)


def test_scoped_cells_are_read_in_both_forms():
    text = "# expect: fair/fair/HSA/weak F | lane=OBE/strong P | unfair/fair/HSA F | lane=fair/weak P\nthread 0\n"
    assert expectations(text, "t.axb") == {
        ("FAIR/FAIR/HSA", "weak"): False,
        ("FAIR/FAIR/OBE", "strong"): True,
        ("UNFAIR/FAIR/HSA", "none"): False,
        ("FAIR", "weak"): True,  # the inner scopes fair: the plain model
    }


@pytest.mark.parametrize(
    "cell, message",
    [
        ("fair/fair/HSA F", "'fair/fair/HSA' names no verdict; write 'fair/fair/HSA/weak' or 'fair/fair/HSA/strong'"),
        ("fair/nope/HSA/weak F", "'fair/nope/HSA': unknown progress model 'nope'"),
        ("lane=HSA/weak F | fair/fair/HSA/weak P", "contradicts an earlier cell"),
    ],
)
def test_bad_scoped_cells_are_positioned_errors(cell, message):
    with pytest.raises(InputError) as caught:
        expectations(f"# expect: {cell}\nthread 0\n", "t.axb", KNOWN)
    assert caught.value.render().startswith("t.axb:1:") and message in caught.value.render()


def test_a_flipped_lane_verdict_of_a_kernel_exits_1(repo, tmp_path):
    text = (repo / "litmus/kernels/warp_spinlock.comp").read_text()
    assert "fair/fair/HSA/weak F" in text
    (tmp_path / "warp_spinlock.comp").write_text(text.replace("fair/fair/HSA/weak F", "fair/fair/HSA/weak P", 1))
    done = run("check", "warp_spinlock.comp", "--expect-header", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "warp_spinlock: fair/fair/HSA weak: expected guaranteed to terminate, got may not terminate" in done.stdout
    assert "expectations: 18 hold, 1 do not" in done.stdout


def _published_copy(repo, tmp_path, group="2t2i"):
    """A copy of one group of the published suite with the suite's verdict table."""
    suite = tmp_path / "oopsla21"
    (suite / group).mkdir(parents=True)
    for path in (repo / "litmus" / "oopsla21" / group).glob("*.axb"):
        (suite / group / path.name).write_bytes(path.read_bytes())
    (suite / "cadp_verdicts.csv").write_bytes((repo / "litmus" / "oopsla21" / "cadp_verdicts.csv").read_bytes())
    return suite


def test_a_flipped_cadp_cell_is_a_mismatch(repo, tmp_path):
    suite = _published_copy(repo, tmp_path)
    table = suite / "cadp_verdicts.csv"
    lines = table.read_text().splitlines(keepends=True)
    assert lines[1] == "2t2i/0.axb,F,F,F,F,F,P,P,P,P,P\n"
    lines[1] = "2t2i/0.axb,F,F,F,F,P,P,P,P,P,P\n"  # LOBE/weak: CADP says F
    table.write_text("".join(lines))
    done = run("check", "oopsla21", "--expect-header", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "artifact_2t2i_0: LOBE weak: expected guaranteed to terminate, got may not terminate" in done.stdout
    assert "expectations: 79 hold, 1 do not" in done.stdout


def test_a_test_neither_header_nor_table_names_is_bad_input_not_a_pass(repo, tmp_path):
    suite = _published_copy(repo, tmp_path)
    extra = suite / "2t2i" / "extra.axb"
    extra.write_text("test extra\nthread 0\n  AXB(x, 0, end, true, 1)\n")
    done = run("check", "oopsla21", "--expect-header", cwd=tmp_path)
    assert done.returncode == 2
    assert "oopsla21/2t2i/extra.axb:1:1: error: no '# expect:' line, and oopsla21/cadp_verdicts.csv has no row" in (
        done.stderr
    )
    assert "expectations: 80 hold, 0 do not; 1 file(s) with bad input" in done.stdout
    (suite / "cadp_verdicts.csv").unlink()
    done = run("check", "oopsla21/2t2i/0.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 2 and "0.axb:1:1: error: no '# expect:' line (needed by --expect-header)" in done.stderr


def test_a_header_line_wins_over_the_table_and_only_the_nearest_table_counts(repo, tmp_path):
    suite = _published_copy(repo, tmp_path)
    test = suite / "2t2i" / "0.axb"
    test.write_text("# expect: LOBE/weak P\n" + test.read_text())  # CADP: F; the header decides
    done = run("check", "oopsla21/2t2i/0.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 1 and "expectations: 0 hold, 1 do not" in done.stdout
    (suite / "2t2i" / "cadp_verdicts.csv").write_text("test,fair/weak\n1.axb,F\n")  # nearer, without 2.axb
    done = run("check", "oopsla21/2t2i/1.axb", "oopsla21/2t2i/2.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 2 and "2t2i/cadp_verdicts.csv has no row" in done.stderr
    assert "expectations: 1 hold, 0 do not" in done.stdout


def test_a_bad_table_is_a_positioned_error(repo, tmp_path):
    suite = _published_copy(repo, tmp_path)
    (suite / "cadp_verdicts.csv").write_text("test,fair/weak,LOBE/sometimes\n2t2i/0.axb,F,F\n")
    done = run("check", "oopsla21/2t2i/0.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 2
    assert "cadp_verdicts.csv:1:16: error: unknown column 'LOBE/sometimes'" in done.stderr


def test_a_flipped_expectation_is_reported_and_exits_1(repo, tmp_path):
    text = (repo / "litmus/paper/mutex.axb").read_text().replace("OBE/weak P", "OBE/weak F", 1)
    (tmp_path / "mutex.axb").write_text(text)
    done = run("check", "mutex.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 1
    assert "mutex: OBE weak: expected may not terminate, got guaranteed to terminate" in done.stdout
    assert "expectations: 10 hold, 1 do not" in done.stdout


def test_a_missing_header_is_bad_input(tmp_path):
    (tmp_path / "plain.axb").write_text("thread 0\n  AXB(x, 0, end, true, 1)\n")
    done = run("check", "plain.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 2 and "plain.axb:1:1: error: no '# expect:' line" in done.stderr


KNOWN = {("UNFAIR", "none"): "unfair", ("FAIR", "weak"): "fair/weak", ("FAIR", "strong"): "fair/strong"}


@pytest.mark.parametrize(
    "header, message, column",
    [
        ("fair P", "'fair' names no verdict; write 'fair/strong' or 'fair/weak'", 11),
        ("unfair F | unfair/weak F", "'unfair/weak' names no verdict; write 'unfair'", 22),
        ("unfair F | obe/weak P", "'obe/weak' names no registered model", 22),
        ("fair/weak P | unfair F | fair/weak F", "'fair/weak F' contradicts an earlier cell", 36),
    ],
)
def test_a_cell_naming_no_verdict_or_contradicting_one_is_a_positioned_error(header, message, column):
    text = f"test t\n# expect: {header}\nthread 0\n  AXB(x, 0, end, true, 1)\n"
    with pytest.raises(InputError) as caught:
        expectations(text, "t.axb", KNOWN)
    assert caught.value.render().startswith(f"t.axb:2:{column}: error: {message}")


def test_the_same_cell_twice_with_the_same_value_reads():
    text = "# expect: unfair F | unfair F\nthread 0\n  AXB(x, 0, end, true, 1)\n"
    assert expectations(text, "t.axb", KNOWN) == {("UNFAIR", "none"): False}


def test_crlf_files_are_checked_against_their_header(repo, tmp_path):
    text = (repo / "litmus/paper/mutex.axb").read_text()
    (tmp_path / "mutex.axb").write_bytes(text.replace("\n", "\r\n").encode())
    done = run("check", "mutex.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ALL_HOLD in done.stdout


def test_fair_without_fairness_in_a_batch_is_bad_input_not_success(repo, tmp_path):
    (tmp_path / "t.axb").write_text("test t\n# expect: fair P\nthread 0\n  AXB(x, 0, end, true, 1)\n")
    done = run("check", "t.axb", repo / "litmus/paper/mutex.axb", "--expect-header", cwd=tmp_path)
    assert done.returncode == 2
    assert "t.axb:2:11: error: 'fair' names no verdict" in done.stderr
    assert ALL_HOLD in done.stdout and "1 file(s) with bad input" in done.stdout


def test_comparing_nothing_is_not_success(tmp_path):
    (tmp_path / "t.axb").write_text("test t\n# expect: unfair P\nthread 0\n  AXB(x, 0, end, true, 1)\n")
    done = run("check", "t.axb", "--expect-header", "--model", "OBE", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "t: its header states none of the checked verdicts (nothing compared)" in done.stdout
    assert "expectations: 0 hold, 0 do not (nothing was compared)" in done.stdout
    assert run("check", "t.axb", "--expect-header", cwd=tmp_path).returncode == 0
