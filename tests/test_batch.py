"""The batch classifier (progress/core/batch.py, progress/core/fastcheck.py) against
`check_program`, the brute-force oracle and the CADP verdicts.

The batch path must give exactly `check_program`'s verdicts: on the whole
published suite, on derandomized hypothesis programs (the strategies of
test_check_properties), under state bounds, and where it hands programs
back to `check_program` (untabulable plug-in memories, programs past CAP).
"""

from __future__ import annotations

import csv

import brute
import pytest
from conftest import long_twin
from hypothesis import given, settings
from hypothesis import strategies as st
from test_check_properties import SETTINGS, brute_verdicts, handshakes, mutants, programs, suite

from progress.core import batch
from progress.core.analyze import Query, check_program, queries_for
from progress.core.program import Instr, Program
from progress.core.registry import all_models
from progress.front.axb.parse import parse_program
from progress.models.base import Memory, ProgressModel

QUERIES = tuple(queries_for(all_models()))


def reference(program: Program, queries=QUERIES, max_states=None) -> tuple:
    report = check_program(program, list(queries), max_states=max_states, witnesses=False)
    return tuple(v.terminates for v in report.verdicts)


@pytest.fixture(scope="module")
def published():
    return suite()


@pytest.mark.long
def test_whole_suite_matches_check_program(published):
    stats = batch.Stats()
    got = batch.verdicts(published, QUERIES, stats=stats)
    assert stats.compiled == len(published) == 483 and stats.fallbacks == 0
    expected = [reference(p) for p in published]
    assert got == expected
    # the suite has every kind of verdict, so the comparison can fail
    assert {v for row in got for v in row} == {True, False}


@pytest.mark.long
def test_whole_suite_matches_cadp(oopsla_dir):
    with open(oopsla_dir / "cadp_verdicts.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    programs_ = [parse_program((oopsla_dir / row["test"]).read_text(), row["test"]) for row in rows]
    got = batch.verdicts(programs_, QUERIES)
    labels = [q.model.name if q.fairness == "none" else f"{q.model.name}/{q.fairness}" for q in QUERIES]
    wrong = [
        (row["test"], label, row[label], value)
        for row, values in zip(rows, got)
        for label, value in zip(labels, values)
        if label in row and (row[label] == "P") != value
    ]
    assert len(rows) == 483 and wrong == []


@pytest.mark.parametrize("bound", [1, 5, 12, 40, 200])
def test_state_bounds_give_the_same_inconclusive_verdicts(published, bound):
    got = batch.verdicts(published, QUERIES, max_states=bound)
    expected = [reference(p, max_states=bound) for p in published]
    assert got == expected
    if bound <= 12:
        assert any(None in row for row in got)


def test_any_query_order_and_subset(published):
    """Queries come back in the order asked, strong without weak included."""
    picked = (QUERIES[4], QUERIES[2], QUERIES[0], QUERIES[9])
    assert batch.verdicts(published[:60], picked) == [reference(p, picked) for p in published[:60]]


def _generated_programs_match_check_program(program):
    """The examples test_check_properties draws (same strategies, derandomized),
    where check_program is compared with the brute-force oracle."""
    assert batch.verdicts([program], QUERIES)[0] == reference(program)


test_generated_programs_match_check_program, test_generated_programs_match_check_program_in_full = long_twin(
    _generated_programs_match_check_program, (st.one_of(programs(), mutants(), handshakes()),), 75, 300, **SETTINGS
)


@settings(max_examples=60, **SETTINGS)
@given(st.one_of(handshakes(), programs(max_threads=3)))
def test_generated_programs_match_brute_force(program):
    expected = brute_verdicts(program)
    got = batch.verdicts([program], QUERIES)[0]
    assert got == tuple(expected[(q.model.name, q.fairness)] for q in QUERIES)


@settings(max_examples=40, **SETTINGS)
@given(st.lists(st.one_of(programs(), mutants(), handshakes()), min_size=2, max_size=12))
def test_a_batch_is_the_verdicts_of_its_members(programs_):
    """Mixed thread counts in one call, each program decided on its own."""
    assert batch.verdicts(programs_, QUERIES) == [reference(p) for p in programs_]


def _history_model() -> ProgressModel:
    """A plug-in whose memory (the last five threads to step) has more values
    than the batch path tabulates: its programs go to check_program."""
    history = Memory("last five", lambda n: (), lambda seen, t: (seen + (t,))[-5:])
    return ProgressModel(
        name="not-last",
        definition="F = enabled threads other than the last to step",
        fair=lambda enabled, seen, n: enabled & ~(1 << seen[-1]) if seen else enabled,
        memory=history,
        below=(),
    )


def test_an_untabulable_memory_falls_back_to_check_program(published):
    model = _history_model()
    queries = tuple(queries_for([model, *all_models()]))
    stats = batch.Stats()
    some = [p for p in published if len(p.threads) == 3][:25]
    assert batch.verdicts(some, queries, stats=stats) == [reference(p, queries) for p in some]
    assert stats.fallbacks == len(some) and stats.compiled == 0


def test_a_model_with_a_small_plugin_memory_is_compiled(published):
    """A plug-in memory the built-ins do not use (the last thread to step) is tabulated."""
    last = Memory("last", lambda n: -1, lambda seen, t: t)
    model = ProgressModel(
        name="not-last",
        definition="F = enabled threads other than the last to step",
        fair=lambda enabled, seen, n: enabled & ~(1 << seen) if seen >= 0 else enabled,
        memory=last,
    )
    queries = tuple(queries_for([model, *all_models()]))
    stats = batch.Stats()
    got = batch.verdicts(published, queries, stats=stats)
    assert got == [reference(p, queries) for p in published]
    assert stats.fallbacks == 0
    assert {row[0] for row in got} == {True, False} or {row[1] for row in got} == {True, False}


def test_programs_past_the_cap_fall_back(published, monkeypatch):
    monkeypatch.setattr(batch, "CAP", 20)
    stats = batch.Stats()
    got = batch.verdicts(published, QUERIES, stats=stats)
    assert got == [reference(p) for p in published]
    assert 0 < stats.fallbacks < len(published)
    stats = batch.Stats()
    bounded = batch.verdicts(published, QUERIES, max_states=30, stats=stats)
    assert bounded == [reference(p, max_states=30) for p in published]


def test_large_values_and_init_only_locations():
    """Values up to 2**31-1 are packed as indices; a location only in init is ignored."""
    big = 2**31 - 1
    program = Program(
        "big",
        (
            (Instr("x", big, 0, True, 5), Instr("y", 0, 2, True, big)),
            (Instr("x", 5, 0, True, big),),
        ),
        (("unused", 7), ("x", big)),
    )
    assert batch.verdicts([program], QUERIES) == [reference(program)]


def test_the_oracle_agrees_on_a_known_livelock():
    program = parse_program("thread 0\n AXB(m, 1, 0, true, 0)\nthread 1\n AXB(m, 0, 0, true, 1)\n")
    got = dict(zip([(q.model.name, q.fairness) for q in QUERIES], batch.verdicts([program], QUERIES)[0]))
    assert got[("fair", "weak")] is False and got[("fair", "strong")] is True
    assert brute.verdicts(program)[("fair", "strong")] is True


def test_tables_are_the_models_own_definitions():
    queries = (Query(next(m for m in all_models() if m.name == "LOBE"), "weak"),)
    table = batch.tables(queries, 3)
    assert table is not None
    # STARTED: initial 0 first, then every bitmask; F read back equals fair()
    lobe = queries[0].model
    values = batch._memory_values(lobe.memory, 3)[0]
    assert sorted(values) == list(range(8)) and values[0] == 0
    for enabled in range(8):
        for m, started in enumerate(values):
            assert table.fair[0, enabled, m] == lobe.fair(enabled, started, 3)


def test_plain_parts_give_the_same_verdicts(oopsla_dir, monkeypatch):
    """The CLI's path: quick_parts (no Program), check_program built from parts past the cap."""
    from progress.core.canonical import canonical_hash, hash_of_text, text_of_parts
    from progress.front.axb.quickparse import quick_parts

    files = sorted(oopsla_dir.rglob("*.axb"))
    texts = [(f.read_text(), str(f)) for f in files]
    parts = [quick_parts(text, path)[1:] for text, path in texts]
    programs = [parse_program(text, path) for text, path in texts]
    expected = [reference(p) for p in programs]
    assert batch.verdicts_of_parts(parts, QUERIES) == expected
    monkeypatch.setattr(batch, "CAP", 20)
    stats = batch.Stats()
    assert batch.verdicts_of_parts(parts, QUERIES, stats=stats) == expected
    assert stats.fallbacks > 0
    assert [hash_of_text(text_of_parts(*p)) for p in parts] == [canonical_hash(p) for p in programs]
