"""`progress select`: every separable edge covered min(k, available) times,
every verdict vector once, deterministic, smallest tests preferred; the
command line on a store and on a directory of tests."""

from __future__ import annotations

import random

import pytest

from progress.cli import main
from progress.core.classify import LATTICE, PAPER, Column
from progress.core.registry import all_models
from progress.synth import select as selecting
from progress.synth.separate import edges, requirement

MODELS = list(all_models())
REQS = [requirement(a, b, rule) for rule in (LATTICE, PAPER) for a, b in edges(MODELS)]
LABELS = [Column(m.name, f).label for f in ("weak", "strong") for m in MODELS if m.has_fairness] + ["unfair"]


def fake(index: int, pattern: str) -> selecting.Classified:
    return selecting.Classified(f"t{index}", (index,), tuple(zip(LABELS, (c == "P" for c in pattern))))


def check_selection(tests, result, k):
    """The contract, recomputed from the verdicts alone."""
    chosen = {t.name for t in result.chosen}
    assert len(chosen) == len(result.chosen)
    for req in REQS:
        separating = [t for t in tests if req.met_by(dict(t.verdicts))]
        picked = [t for t in separating if t.name in chosen]
        assert len(picked) >= min(k, len(separating)), req.text
    assert {t.vector for t in tests} == {t.vector for t in result.chosen}


def test_contract_and_determinism_on_random_vectors():
    rng = random.Random(7)
    # fair/weak, fair/strong, HSA, OBE, HSA+OBE, LOBE (weak then strong), unfair: any mix of P/F
    tests = [fake(i, "".join(rng.choice("PF") for _ in LABELS)) for i in range(400)]
    for k in (1, 3, 5):
        result = selecting.select(tests, REQS, k)
        check_selection(tests, result, k)
        shuffled = tests[:]
        rng.shuffle(shuffled)
        assert selecting.select(shuffled, REQS, k) == result
    assert len(selecting.select(tests, REQS, 1).chosen) < len(tests)


def passing(*labels: str) -> str:
    return "".join("P" if label in labels else "F" for label in LABELS)


def test_ties_go_to_the_smallest_test():
    same = passing(*LABELS[:-1])  # everything but unfair passes
    tests = [fake(i, same) for i in (5, 3, 9, 4)]
    result = selecting.select(tests, REQS, 2)
    assert [t.name for t in result.chosen] == ["t3", "t4"]


def test_an_edge_with_fewer_tests_than_k_gets_them_all():
    hsa = passing("HSA/weak", "fair/weak", "HSA/strong", "fair/strong")
    tests = [fake(0, passing("fair/weak", "fair/strong")), fake(1, hsa), fake(2, hsa)]
    result = selecting.select(tests, REQS, 3)
    check_selection(tests, result, 3)
    coverage = {(c.requirement.rule, c.requirement.a.label, c.requirement.b.label): c for c in result.coverage}
    assert coverage[(LATTICE, "HSA/weak", "unfair")].available == 2
    assert coverage[(LATTICE, "HSA/weak", "unfair")].chosen == 2


def run(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(list(args))
    out, err = capsys.readouterr()
    return stop.value.code, out, err


def test_cli_from_a_store_writes_a_checkable_deterministic_suite(capsys, tmp_path):
    code, _, _ = run(capsys, "synth", "-t", "2", "-i", "3", "--out", str(tmp_path / "s.db"))
    assert code == 0
    outputs = []
    for name in ("a", "b"):
        with pytest.raises(SystemExit) as stop:
            main(["select", str(tmp_path / "s.db"), "-o", str(tmp_path / name)])
        assert stop.value.code in (0, None)
        out, _ = capsys.readouterr()
        outputs.append(out.replace(str(tmp_path / name), "DIR"))
    assert outputs[0] == outputs[1]
    assert "select: 162 tests from" in outputs[0]
    files = sorted((tmp_path / "a").rglob("*"))
    assert [f.read_bytes() for f in files if f.is_file()] == [
        (tmp_path / "b" / f.relative_to(tmp_path / "a")).read_bytes() for f in files if f.is_file()
    ]
    chosen = sorted((tmp_path / "a" / "2t3i").glob("*.axb"))
    assert f"chosen: {len(chosen)} tests (162 -> {len(chosen)})" in outputs[0]
    assert 0 < len(chosen) < 162
    code, _, _ = run(capsys, "check", str(tmp_path / "a"), "--expect-header")
    assert code == 0
    csv_rows = (tmp_path / "a" / "selection.csv").read_text().splitlines()
    assert len(csv_rows) == len(chosen) + 1


def test_cli_from_test_files(capsys, tmp_path, repo):
    with pytest.raises(SystemExit) as stop:
        main(
            ["select", str(repo / "litmus" / "paper"), str(repo / "litmus" / "idioms"), "-o", str(tmp_path), "-k", "1"]
        )
    assert stop.value.code in (0, None)
    out, _ = capsys.readouterr()
    assert "select: 13 tests from" in out
    code, _, _ = run(capsys, "check", str(tmp_path), "--expect-header")
    assert code == 0


def test_cli_bad_inputs(capsys, tmp_path):
    code, _, err = run(capsys, "select", str(tmp_path / "none.db"), "-o", str(tmp_path / "x"))
    assert code == 2 and "no such store" in err
    (tmp_path / "bad.db").write_text("not sqlite at all, just text " * 10)
    code, _, err = run(capsys, "select", str(tmp_path / "bad.db"), "-o", str(tmp_path / "x"))
    assert code == 2 and err.startswith("error: ")
