"""Progress models: the contract, entry-point registration, and a third-party model end to end."""

from __future__ import annotations

import itertools
import subprocess
from importlib.metadata import EntryPoint, entry_points

import brute
import pytest
from conftest import progress_command

import progress.core.registry as registry
from progress.core.analyze import check_program, queries_for
from progress.core.contract import check_model_contract
from progress.front.axb.parse import parse_program
from progress.models.base import NONE, Memory, ProgressModel, lowest

BUILT_INS = ("unfair", "fair", "HSA", "OBE", "HSA+OBE", "LOBE")


def _lowest_two(enabled: int, memory, n: int) -> int:
    first = lowest(enabled)
    return first | lowest(enabled & ~first)


LOWEST_TWO = ProgressModel(
    name="lowest-two",
    definition="F = the two lowest-id enabled threads",
    fair=_lowest_two,
    memory=NONE,
    below=("HSA",),
    rank=50,
)
"""A third-party-style model: a scheduler that keeps the two oldest workgroups running."""

# Thread 0 waits for a flag that thread 1 sets: HSA starves thread 1, the toy model does not.
PAIR = """test pair
thread 0
  AXB(x, 0, 0, false, 0)
thread 1
  AXB(x, 0, end, true, 1)
"""

# Thread 1 waits for a flag that thread 2 sets; thread 0 waits for thread 1: the toy model starves thread 2.
CHAIN = """test chain
thread 0
  AXB(x, 0, 0, false, 0)
thread 1
  AXB(y, 0, 0, false, 0)
  AXB(x, 0, end, true, 1)
thread 2
  AXB(y, 0, end, true, 1)
"""

# The same chain with the ids reversed: thread 2 waits for thread 1, which waits for thread 0.
REVERSED_CHAIN = """test reversed_chain
thread 0
  AXB(y, 0, end, true, 1)
thread 1
  AXB(y, 0, 0, false, 0)
  AXB(x, 0, end, true, 1)
thread 2
  AXB(x, 0, 0, false, 0)
"""


@pytest.fixture
def fresh_registry():
    registry.all_models.cache_clear()
    yield
    registry.all_models.cache_clear()


@pytest.mark.parametrize("model", registry.all_models(), ids=lambda m: m.name)
def test_registered_models_meet_the_contract(model):
    check_model_contract(model)


def test_built_ins_come_from_the_entry_point_group():
    points = {p.name: p for p in entry_points(group=registry.GROUP)}
    assert set(BUILT_INS) <= set(points)
    models = {m.name: m for m in registry.all_models()}
    for name in BUILT_INS:
        assert points[name].load() is models[name]
        assert points[name].value.startswith("progress.models.")
    assert [m.name for m in registry.all_models()][:6] == list(BUILT_INS)


def test_third_party_model_meets_the_contract():
    check_model_contract(LOWEST_TWO)


def _broken(**changes) -> ProgressModel:
    fields = dict(name="broken", definition="a broken model", fair=lambda e, m, n: e, memory=NONE, below=())
    fields.update(changes)
    return ProgressModel(**fields)


def _flaky():
    counter = itertools.count()
    return lambda enabled, memory, n: enabled if next(counter) % 2 else 0


def _counting():
    counter = itertools.count()
    return lambda memory, thread: next(counter) % 3


def _mutating_fair(enabled, memory, n):
    memory.append(1)
    return enabled & 1


BROKEN = [
    ("F not a subset of enabled", _broken(fair=lambda e, m, n: e | 1), "not enabled"),
    ("F not empty with nothing enabled", _broken(fair=lambda e, m, n: 1), "not enabled"),
    ("F not an int", _broken(fair=lambda e, m, n: {0}), "not an int"),
    ("F a bool", _broken(fair=lambda e, m, n: False), "not an int"),
    ("fair not deterministic", _broken(fair=_flaky()), "not deterministic"),
    (
        "unhashable initial memory",
        _broken(fair=_mutating_fair, memory=Memory("l", lambda n: [], lambda m, t: m)),
        "unhashable",
    ),
    (
        "after not deterministic",
        _broken(memory=Memory("n", lambda n: 0, _counting()), fair=lambda e, m, n: 0),
        "not deterministic",
    ),
    ("after unhashable", _broken(memory=Memory("s", lambda n: 0, lambda m, t: {t})), "unhashable"),
    ("unknown below", _broken(below=("SuperFair",)), "not a registered model"),
    ("below itself", _broken(name="fair", below=("fair",)), "below itself"),
    ("unfair with a fair set", _broken(has_fairness=False), "has_fairness=False"),
    ("no definition", _broken(definition=""), "definition"),
]


@pytest.mark.parametrize("model, words", [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_contract_catches_broken_models(model, words):
    with pytest.raises(AssertionError, match=words):
        check_model_contract(model)


def test_contract_catches_mutation_of_a_hashable_memory():
    class Box:
        def __init__(self):
            self.items = []

        def __eq__(self, other):
            return isinstance(other, Box) and self.items == other.items

        def __hash__(self):
            return 0

    def grab(enabled, memory, n):
        memory.items.append(n)
        return 0

    model = _broken(fair=grab, memory=Memory("box", lambda n: Box(), lambda m, t: m))
    with pytest.raises(AssertionError, match="mutated"):
        check_model_contract(model)


def _verdicts(model, text):
    report = check_program(parse_program(text), queries_for([model]))
    return {v.fairness: v.terminates for v in report.verdicts}


def test_third_party_model_end_to_end(monkeypatch):
    """Passed straight to check_program, and agreeing with the brute-force oracle."""
    hsa, fair = registry.find_model("HSA"), registry.find_model("fair")
    assert _verdicts(hsa, PAIR) == {"weak": False, "strong": False}
    assert _verdicts(LOWEST_TWO, PAIR) == {"weak": True, "strong": True}
    assert _verdicts(LOWEST_TWO, CHAIN) == {"weak": False, "strong": False}
    assert _verdicts(fair, CHAIN) == {"weak": True, "strong": True}
    assert _verdicts(LOWEST_TWO, REVERSED_CHAIN) == {"weak": True, "strong": True}
    monkeypatch.setitem(brute.MODELS, "lowest-two", (False, lambda enabled, started: set(sorted(enabled)[:2])))
    for p in map(parse_program, (PAIR, CHAIN, REVERSED_CHAIN)):
        report = check_program(p, queries_for([LOWEST_TWO]))
        lts = brute.explore(p, "lowest-two")
        for verdict in report.verdicts:
            assert verdict.terminates == brute.decide(lts, verdict.fairness)
            if verdict.witness is not None:
                assert brute.lasso_problems(p, "lowest-two", verdict.fairness, verdict.witness) == []


def test_third_party_model_is_discovered_through_entry_points(monkeypatch, fresh_registry):
    real = entry_points

    def with_plugin(group):
        found = list(real(group=group))
        if group == registry.GROUP:
            found.append(EntryPoint("lowest-two", "test_models_contract:LOWEST_TWO", group))
        return found

    monkeypatch.setattr(registry, "entry_points", with_plugin)
    registry.all_models.cache_clear()
    names = [m.name for m in registry.all_models()]
    assert names == list(BUILT_INS) + ["lowest-two"]
    model = registry.find_model("LOWEST-TWO")
    check_model_contract(model)
    assert _verdicts(model, PAIR) == {"weak": True, "strong": True}


def test_registry_rejects_bad_entry_points(monkeypatch, fresh_registry):
    monkeypatch.setattr(
        registry, "entry_points", lambda group: [EntryPoint("oops", "progress.models.base:NONE", group)]
    )
    with pytest.raises(Exception, match="not a ProgressModel"):
        registry.all_models()


def test_models_cli_lists_every_model():
    run = subprocess.run(progress_command() + ["models"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    listed, scopes = run.stdout.split("\n\n")
    lines = listed.splitlines()
    assert [line.split()[0] for line in lines] == list(BUILT_INS)
    assert [line.split()[0] for line in scopes.splitlines()[1:4]] == ["workgroup", "subgroup", "lane"]
    for line, model in zip(lines, registry.all_models()):
        assert model.definition in line
        assert ("above: " + (", ".join(model.below) or "-")) in line
