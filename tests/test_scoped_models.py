"""Scoped models (docs/semantics.md section 10): the AXB special case against
CADP's verdicts, kernels under (M, fair, fair) through the scoped checker,
and scoped verdicts against a brute-force enumerator of the definition."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from progress.core.analyze import Query, check_program, check_system
from progress.core.model_spec import parse_models
from progress.core.registry import find_model
from progress.core.scoped import Hierarchy, ScopedModel, at_scope
from progress.errors import UsageError
from progress.front.axb.parse import parse_program
from tests import brute_scoped

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "litmus" / "oopsla21"
BUILTINS = ("unfair", "fair", "HSA", "OBE", "HSA+OBE", "LOBE")


def _cadp_rows():
    with open(SUITE / "cadp_verdicts.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("scope", ["lane", "subgroup"])
def test_axb_threads_as_lanes_give_the_models_verdicts(scope):
    """Every test of the 483 as one workgroup whose lanes (or subgroups) are
    its threads, under (fair, fair, M) (or (fair, M, fair)): CADP's verdicts
    of M, and unfair fails every test; 483 x 11 = 5313 verdicts."""
    fair = find_model("fair")
    rows = _cadp_rows()
    columns = [c for c in rows[0] if c != "test"]
    queries = [Query(at_scope(find_model(c.split("/")[0]), scope, fair), c.split("/")[1]) for c in columns]
    queries.append(Query(at_scope(find_model("unfair"), scope, fair), "none"))
    agree = total = 0
    for row in rows:
        program = parse_program((SUITE / row["test"]).read_text(), row["test"])
        report = check_program(program, queries, witnesses=False, scope=scope)
        wanted = [row[c] for c in columns] + ["F"]
        for verdict, want in zip(report.verdicts, wanted):
            total += 1
            agree += ("P" if verdict.terminates else "F") == want
    assert (agree, total) == (5313, 5313)


def test_the_scope_matters():
    """The same model one scope up or down is another verdict: OBE for the
    workgroups of a one-workgroup dispatch is fair for the lanes."""
    row = next(r for r in _cadp_rows() if r["OBE/weak"] != r["fair/weak"])
    program = parse_program((SUITE / row["test"]).read_text(), row["test"])
    obe = find_model("OBE")
    fair = find_model("fair")
    at_lanes = check_program(program, [Query(at_scope(obe, "lane", fair), "weak")], scope="lane")
    at_top = check_program(program, [Query(at_scope(obe, "workgroup", fair), "weak")], scope="lane")
    assert at_lanes.verdicts[0].terminates == (row["OBE/weak"] == "P")
    assert at_top.verdicts[0].terminates == (row["fair/weak"] == "P")
    assert at_top.verdicts[0].model == "OBE"  # a plain scoped model keeps its plain name


def test_workgroup_scope_is_the_plain_model():
    """At section 8's reading (threads are workgroups) (M, x, y) is M."""
    row = _cadp_rows()[5]
    program = parse_program((SUITE / row["test"]).read_text(), row["test"])
    scoped = ScopedModel(find_model("LOBE"), find_model("unfair"), find_model("HSA"))
    report = check_program(program, [Query(scoped, "weak"), Query(scoped, "strong")])
    assert [v.model for v in report.verdicts] == ["LOBE/unfair/HSA"] * 2
    assert ["P" if v.terminates else "F" for v in report.verdicts] == [row["LOBE/weak"], row["LOBE/strong"]]


# --- kernels: (M, fair, fair) by the scoped checker is today's verdict ---------

FAIR_TWIN = replace(find_model("fair"), name="fair-twin")
"""fair under another name, so that (M, fair-twin, fair-twin) takes the scoped
path instead of section 10's shortcut to M."""

KERNELS = ["ticket_lock.comp", "workgroup_lock.comp", "barrier_divergence.comp", "mutual_wait.comp"]


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("size", [1, 2, None])
def test_kernel_verdicts_survive_fair_inner_scopes(name, size):
    from progress.front.header import LaunchSettings
    from progress.front.spirv.load import launch_system, load_kernel

    path = ROOT / "litmus" / "kernels" / name
    loaded = load_kernel(path.read_bytes(), name, "glsl", LaunchSettings(subgroup_size=size))
    system = launch_system(loaded, name, name)
    plain = [Query(find_model(m), f) for m in BUILTINS for f in ("weak", "strong")]
    scoped = [Query(ScopedModel(q.model, FAIR_TWIN, FAIR_TWIN), q.fairness) for q in plain]
    today = check_system(system, plain, witnesses=False).verdicts
    general = check_system(system, scoped, witnesses=True).verdicts
    assert [v.terminates for v in general] == [v.terminates for v in today]
    assert all(v.witness is not None for v in general if v.terminates is False)


# --- the brute-force oracle ---------------------------------------------------


class ExplicitSystem:
    """A System given by its successor table (a state without successors has finished)."""

    def __init__(self, succ, workgroup, subgroup):
        self.succ = succ
        self.groups = tuple(workgroup)
        self.hierarchy = Hierarchy(tuple(workgroup), tuple(subgroup))
        self.name = self.digest = "explicit"
        self.initial = 0

    def successors(self, state):
        return sorted(self.succ[state].items())

    def finished(self, state):
        return not self.succ[state]

    def cells(self, state):
        return (("s", state),)

    def positions(self, state):
        return (state,) * len(self.groups)

    def note(self, state, unit):
        from progress.core.system import StepNote

        return StepNote("here", "", "step")

    def held(self, state, unit):
        return ()

    def waits(self, state):
        return ()

    def unit_name(self, unit):
        return f"unit {unit}"


@st.composite
def systems(draw):
    shape = draw(st.lists(st.lists(st.integers(1, 2), min_size=1, max_size=2), min_size=1, max_size=2))
    workgroup, subgroup = [], []
    g = 0
    for w, subgroups in enumerate(shape):
        for lanes in subgroups:
            workgroup += [w] * lanes
            subgroup += [g] * lanes
            g += 1
    units = len(workgroup)
    n = draw(st.integers(2, 5))
    succ = []
    for _ in range(n - 1):  # the last state has finished: fair steps can leave a cycle for good
        enabled = draw(st.sets(st.integers(0, units - 1)))
        succ.append({u: draw(st.integers(0, n - 1)) for u in sorted(enabled)})
    succ.append({})
    models = tuple(draw(st.sampled_from(BUILTINS)) for _ in range(3))
    return succ, workgroup, subgroup, models


def test_a_fair_group_of_unfair_lanes_under_strong_fairness():
    """Workgroup 0 (units 0, 1, one subgroup) is fair, its lanes unfair; unit 2
    (workgroup 1) cycles 0 -> 1 -> 0 while workgroup 0 is enabled in state 0
    only. Weak: workgroup 0 is not fair all along the cycle, a witness.
    Strong: it is fair somewhere on it and never steps there, no witness."""
    succ = [{0: 2, 1: 2, 2: 1}, {2: 0}, {}]
    workgroup, subgroup = [0, 0, 1], [0, 0, 1]
    names = ("fair", "fair", "unfair")
    assert brute_scoped.witnesses(succ, workgroup, subgroup, names) == (True, False)
    model = ScopedModel(find_model("fair"), FAIR_TWIN, find_model("unfair"))
    system = ExplicitSystem(succ, workgroup, subgroup)
    assert [v.terminates for v in _check_explicit(system, model)] == [False, True]


def test_a_group_of_one_subgroup_passes_its_fairness_on():
    """Workgroup 0 is one subgroup of two lanes: under (fair, unfair, fair)
    the subgroup is fair (the only child of a fair group), so its lanes are
    individually fair. Lane 0 can leave the cycle 0 -u2-> 1 -u1-> 0 at state 0:
    strong fairness takes that step; weak fairness need not (lane 0 is
    enabled in state 0 only)."""
    succ = [{0: 2, 2: 1}, {1: 0}, {}]
    workgroup, subgroup = [0, 0, 1], [0, 0, 1]
    assert brute_scoped.witnesses(succ, workgroup, subgroup, ("fair", "unfair", "fair")) == (True, False)
    model = ScopedModel(find_model("fair"), find_model("unfair"), FAIR_TWIN)
    system = ExplicitSystem(succ, workgroup, subgroup)
    assert [v.terminates for v in _check_explicit(system, model)] == [False, True]


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(systems())
def test_scoped_verdicts_match_the_definition(case):
    succ, workgroup, subgroup, names = case
    try:
        weak, strong = brute_scoped.witnesses(succ, workgroup, subgroup, names, limit=12)
    except brute_scoped.TooBig:
        assume(False)
    twin = {"fair": FAIR_TWIN}
    model = ScopedModel(*(twin.get(n) or find_model(n) for n in names))
    system = ExplicitSystem(succ, workgroup, subgroup)
    system.subgroup_size = None
    report = _check_explicit(system, model)
    assert [v.terminates for v in report] == [not weak, not strong]


def _check_explicit(system, model):
    from progress.core.analyze import _decide_all
    from progress.core.lts import Budget, explore_system

    explored = explore_system(system, Budget())
    queries = [Query(model, "weak"), Query(model, "strong")]
    return _decide_all(explored, queries, Budget(), True, len(set(system.groups)), None, system.hierarchy)


# --- the --model forms ----------------------------------------------------------


def test_model_forms():
    obe, hsa, fair, unfair = (find_model(n) for n in ("OBE", "HSA", "fair", "unfair"))
    assert parse_models(["HSA,OBE"]) == [hsa, obe]
    assert parse_models(["OBE/HSA/fair"]) == [ScopedModel(obe, hsa, fair)]
    assert parse_models(["workgroup=OBE,subgroup=HSA,lane=fair"]) == [ScopedModel(obe, hsa, fair)]
    assert parse_models(["wg=obe, lane=unfair"]) == [ScopedModel(obe, fair, unfair)]
    assert parse_models(["[QF=OBE, SG=UNFAIR, DEFAULT=FAIR]"]) == [ScopedModel(obe, fair, unfair)]
    assert parse_models(["[QF=HSA, WG=OBE, DEFAULT=UNFAIR]"]) == [ScopedModel(hsa, obe, unfair)]
    assert parse_models(["default=unfair"]) == [ScopedModel(unfair, unfair, unfair)]
    for bad in ("HSA,wg=OBE", "wg=OBE,wg=HSA", "[QF=OBE", "OBE/HSA", "[XX=OBE]", "lane=nope"):
        with pytest.raises(UsageError):
            parse_models([bad])


def test_hierarchy_of_sizes():
    h = Hierarchy.of_sizes((0, 0, 0, 1, 1, 1), 2)
    assert h.subgroup == (0, 0, 1, 2, 2, 3)
    assert h.lanes == ((0, 1), (2,), (3, 4), (5,))
    assert Hierarchy.of_sizes((0, 0, 1, 1), None).subgroup == (0, 0, 1, 1)


# --- classify and show at a scope ------------------------------------------------


def _run(args, capsys) -> tuple[int, str]:
    from progress.cli import main

    with pytest.raises(SystemExit) as done:
        main(args)
    return done.value.code, capsys.readouterr().out


def test_classify_at_the_lane_scope_gives_the_workgroup_matrix(capsys):
    """Section 10's AXB special case through `classify --scope lane`: the verdict
    matrix of the 483 tests as lanes of one subgroup is the one with threads as
    workgroups (and so CADP's)."""
    base = ["classify", str(SUITE), "--matrix", "--format", "csv"]
    code, lanes = _run([*base, "--scope", "lane"], capsys)
    assert code == 0
    code, workgroups = _run(base, capsys)
    assert code == 0 and lanes == workgroups and lanes.count("\n") == 484


def test_show_draws_a_scoped_model(capsys):
    kernel = str(ROOT / "litmus" / "kernels" / "warp_spinlock.comp")
    code, out = _run(["show", kernel, "-m", "fair/fair/HSA", "--workgroups", "1"], capsys)
    assert code == 0 and "fair/fair/HSA weak: may not terminate" in out
    code, out = _run(["show", kernel, "-m", "[DEFAULT=FAIR, SG=OBE]", "--workgroups", "1"], capsys)
    assert code == 0 and "fair/fair/OBE weak: guaranteed to terminate" in out
    code, out = _run(["show", str(SUITE / "2t2i" / "0.axb"), "-m", "OBE", "--scope", "lane"], capsys)
    assert code == 0 and "scoped memory" in out
