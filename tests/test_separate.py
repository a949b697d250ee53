"""`progress separate` against filtering the full synthesis (every test of
the bounds classified under all verdicts, as `progress synth` stores them),
on every edge of the lattice under both rules; the subset argument against
the same filter; the command line."""

from __future__ import annotations

from functools import cache

import pytest

from progress.cli import main
from progress.core.classify import LATTICE, PAPER, Column
from progress.core.registry import all_models
from progress.synth import separate as sep
from progress.synth.canonical import key
from progress.synth.space import Bounds, Space
from progress.synth.store import unpack_verdicts
from progress.synth.work import run_unit

MODELS = list(all_models())
BY_NAME = {m.name: m for m in MODELS}
SMALL = [Bounds(2, 2), Bounds(2, 3), Bounds(3, 3)]
REQUIREMENTS = [sep.requirement(a, b, rule) for rule in (LATTICE, PAPER) for a, b in sep.edges(MODELS)]


@cache
def store_of(bounds: Bounds) -> tuple:
    """What `progress synth` stores: every test with its 11 verdicts."""
    found = []
    for unit in Space(bounds).units:
        result = run_unit("enum", bounds, unit.id)
        for test in result.tests:
            cells = unpack_verdicts(test.verdicts, len(result.labels))
            found.append((test.candidate, tuple(zip(result.labels, cells))))
    return tuple(found)


def filtered(bounds: Bounds, req: sep.Requirement) -> set[str]:
    keys = set()
    for candidate, cells in store_of(bounds):
        verdicts = {label: {"P": True, "F": False}.get(v) for label, v in cells}
        if req.met_by(verdicts):
            keys.add(key(candidate))
    return keys


def test_the_edges_are_the_covering_pairs_of_the_product_order():
    labels = {(a.label, b.label) for a, b in sep.edges(MODELS)}
    assert labels == {
        ("HSA/weak", "unfair"),
        ("OBE/weak", "unfair"),
        ("HSA+OBE/weak", "HSA/weak"),
        ("HSA+OBE/weak", "OBE/weak"),
        ("LOBE/weak", "HSA+OBE/weak"),
        ("fair/weak", "LOBE/weak"),
        ("HSA+OBE/strong", "HSA/strong"),
        ("HSA+OBE/strong", "OBE/strong"),
        ("LOBE/strong", "HSA+OBE/strong"),
        ("fair/strong", "LOBE/strong"),
    } | {(f"{m}/strong", f"{m}/weak") for m in ("HSA", "OBE", "HSA+OBE", "LOBE", "fair")}


def test_requirements_by_rule():
    a, b = sep.parse_point("lobe/Strong", MODELS), sep.parse_point("hsa_obe/strong", MODELS)
    assert (a, b) == (Column("LOBE", "strong"), Column("HSA+OBE", "strong"))
    paper = sep.requirement(a, b, PAPER)
    assert paper.passes == (a, Column("fair", "strong")) and paper.fails == (b, Column("fair", "weak"))
    weak = sep.requirement(Column("OBE", "weak"), Column("unfair", "none"), PAPER)
    assert weak.passes == (Column("OBE", "weak"), Column("fair", "weak")) and weak.fails == (Column("unfair", "none"),)
    assert sep.parse_point("unfair", MODELS) == Column("unfair", "none")
    for bad in ("LOBE", "LOBE/fast", "nope/weak", "unfair/weak"):
        with pytest.raises(ValueError):
            sep.parse_point(bad, MODELS)
    with pytest.raises(ValueError):  # a weak test passes weak fair: it cannot fail it too
        sep.requirement(Column("LOBE", "weak"), Column("fair", "weak"), PAPER)
    assert sep.requirement(Column("LOBE", "weak"), Column("fair", "weak"), LATTICE).fails == (Column("fair", "weak"),)


@pytest.mark.parametrize("bounds", SMALL, ids=lambda b: b.label)
def test_one_size_equals_the_filtered_store_on_every_edge(bounds):
    reports = sep.search_size(bounds, REQUIREMENTS, BY_NAME)
    tests = len(store_of(bounds))
    for req, report in zip(REQUIREMENTS, reports):
        assert {key(c) for c in report.separating} == filtered(bounds, req), req.text
        assert report.tests == tests
    assert any(r.separating for r in reports)


def test_separate_stops_at_the_first_size_the_filter_finds():
    limit = Bounds(3, 3)
    results = sep.separate_all(REQUIREMENTS, limit, MODELS)
    for req, result in zip(REQUIREMENTS, results):
        hits = [b for b in sep.sizes(limit) if filtered(b, req)]
        if not hits:
            assert result.found is None, req.text
            assert [r.bounds for r in result.sizes] == sep.sizes(limit)
            continue
        assert result.found.bounds == hits[0], req.text
        assert {key(c) for c in result.found.separating} == filtered(hits[0], req)
        assert result.hit is not None and result.hit.smallest == result.hit.tests[0]
        for report in result.sizes[:-1]:
            assert not report.separating and not filtered(report.bounds, req)


def test_the_subset_argument_agrees_with_the_filter():
    """Every size the argument skips is empty in the full synthesis, and the
    argument fires exactly where F(A) <= F(B) holds in every state."""
    lobe = sep.requirement(Column("LOBE", "strong"), Column("HSA+OBE", "strong"))
    assert sep.dominated(lobe, BY_NAME, 2) is not None
    assert sep.dominated(lobe, BY_NAME, 3) is None  # thread 1 unstarted below started thread 2
    fired = 0
    for req in REQUIREMENTS:
        for bounds in SMALL:
            if sep.dominated(req, BY_NAME, bounds.threads):
                fired += 1
                assert not filtered(bounds, req), (req.text, bounds.label)
    assert fired > 0


def test_footprint():
    assert sep.footprint((((0, 1, 0, True, 1),), ((0, 0, 0, True, 0),))) == (1, 2)
    assert sep.footprint((((0, 2, 0, False, 0),), ((1, 0, 1, True, 2),))) == (2, 3)


def cli(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main(["separate", *args])
    out, err = capsys.readouterr()
    return stop.value.code, out, err


def test_cli_finds_the_smallest_and_shows_both_verdicts(capsys, tmp_path):
    code, out, _ = cli(capsys, "LOBE/strong", "HSA+OBE/strong", "--threads", "3", "--instructions", "3")
    assert code == 0
    assert "found: 2 separating test(s) at 3t3i" in out
    assert "impossible by the subset argument: 2t2i, 2t3i" in out
    assert "LOBE/strong: guaranteed to terminate (every fair run terminates: no lasso)" in out
    assert "HSA+OBE/strong: may not terminate; lasso:" in out and "loop:" in out
    text = out[out.index("test separating_3t3i") : out.index("LOBE/strong: guaranteed")]
    (tmp_path / "t.axb").write_text(text)
    with pytest.raises(SystemExit) as stop:
        main(["check", str(tmp_path / "t.axb"), "--expect-header"])
    assert stop.value.code == 0


def test_cli_proves_absence_with_exit_1(capsys):
    code, out, _ = cli(capsys, "LOBE/strong", "HSA+OBE/strong", "--rule", "paper", "-t", "3", "-i", "3")
    assert code == 1
    assert out.splitlines()[-1].startswith("none: no test within 3t3i, <= 2 locations, values 0..1 can pass")
    assert "exhausted: 3t3i; impossible by the subset argument: 2t2i, 2t3i" in out


@pytest.mark.parametrize(
    "args",
    [
        ["LOBE/strong"],
        ["LOBE", "HSA+OBE/strong"],
        ["LOBE/weak", "LOBE/weak"],
        ["--all", "LOBE/weak", "OBE/weak"],
        ["LOBE/weak", "OBE/weak", "--examples", "x"],
        ["LOBE/weak", "OBE/weak", "-t", "3", "-i", "2"],
    ],
)
def test_cli_usage_errors(capsys, args):
    code, _, err = cli(capsys, *args)
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1


def test_all_writes_the_table_and_examples_that_check(capsys, tmp_path):
    code, _, err = cli(
        capsys, "--all", "-t", "2", "-i", "3", "-o", str(tmp_path / "sep.md"), "--examples", str(tmp_path / "ex")
    )
    assert code == 0 and "edge(s) separated within 2t3i" in err
    table = (tmp_path / "sep.md").read_text()
    assert "| LOBE/strong | HSA+OBE/strong | none up to 2t3i | 0 | - | - | 2t2i, 2t3i |" in table
    assert "| HSA/weak | unfair | 2t2i, 1 loc, values 0..1 | 3 |" in table
    examples = sorted((tmp_path / "ex").rglob("*.axb"))
    assert len(examples) == table.count("](../../litmus/separating/")
    with pytest.raises(SystemExit) as stop:
        main(["check", str(tmp_path / "ex"), "--expect-header"])
    assert stop.value.code == 0


Z3_CASES = [  # 2t2i only: the z3 search is slow (benchmarks/bench_separate.py compares every edge at 2t3i)
    (LATTICE, "HSA+OBE/strong", "OBE/strong", Bounds(2, 2)),
    (PAPER, "HSA/strong", "HSA/weak", Bounds(2, 2)),
    (LATTICE, "fair/weak", "LOBE/weak", Bounds(2, 2)),
]


@pytest.mark.parametrize("rule,a,b,bounds", Z3_CASES, ids=lambda x: getattr(x, "label", x))
def test_the_z3_search_finds_what_the_enumeration_finds(rule, a, b, bounds):
    """Counterexample-guided (Z3 proposes tests failing B, A checked) against
    the filtered full synthesis."""
    req = sep.requirement(sep.parse_point(a, MODELS), sep.parse_point(b, MODELS), rule)
    report = sep.search_size_z3(bounds, req, BY_NAME)
    assert {key(c) for c in report.separating} == filtered(bounds, req), (req.text, bounds.label)
    assert report.separating
    failing_b = sum(1 for _, cells in store_of(bounds) if dict(cells)[req.b.label] == "F")
    assert report.tests == failing_b
