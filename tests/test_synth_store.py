"""The run store: atomic unit commits, no duplicates, parameters, resume checks."""

from __future__ import annotations

import pytest

from progress.errors import UsageError
from progress.synth.driver import Settings, StopReason, open_run, synthesize
from progress.synth.space import Bounds
from progress.synth.store import FoundTest, Store, UnitResult

TEST_A = FoundTest("[[[0,0,0,0,0]],[[0,0,1,1,1]]]", "aaaa", (("unfair", "F"), ("fair/weak", "P")))
TEST_B = FoundTest("[[[0,1,0,0,0]],[[0,0,1,1,1]]]", "bbbb", (("unfair", "F"), ("fair/weak", "F")))


def test_commit_is_idempotent(tmp_path):
    with Store(tmp_path / "s.db") as store:
        assert store.commit(UnitResult(0, 10, (TEST_A, TEST_B))) == 2
        assert store.commit(UnitResult(0, 10, (TEST_A, TEST_B))) == 0
        assert store.commit(UnitResult(1, 5, (TEST_B,), complete=False)) == 0
        assert store.done_units() == {0}
        assert store.totals() == (10, 2)
        assert store.tests() == [TEST_A, TEST_B]


def test_a_failed_commit_leaves_nothing(tmp_path):
    class Exploding:
        def __init__(self, db):
            self.db = db

        def execute(self, *args):
            return self.db.execute(*args)

        def executemany(self, *args):
            raise KeyboardInterrupt

        @property
        def total_changes(self):
            return self.db.total_changes

    with Store(tmp_path / "s.db") as store:
        real = store.db
        store.db = Exploding(real)
        with pytest.raises(KeyboardInterrupt):
            store.commit(UnitResult(0, 10, (TEST_A,)))
        store.db = real
        assert store.tests() == [] and store.done_units() == set()


def test_parameters_and_resume_checks(tmp_path):
    settings = Settings(Bounds(2, 2))
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(UsageError, match="holds no run"):
            open_run(store, settings, resume=True)
        open_run(store, settings, resume=False)
        assert store.params()["threads"] == 2 and store.params()["engine"] == "enum"
        with pytest.raises(UsageError, match="already holds a run"):
            open_run(store, settings, resume=False)
        with pytest.raises(UsageError, match="engine=enum \\(not z3\\)"):
            open_run(store, Settings(Bounds(2, 2), engine="z3"), resume=True)
        outcome = synthesize(store, settings)
        assert outcome.stop is StopReason.EXHAUSTED and outcome.params["stop"] == "exhausted"
        assert outcome.progress.found == 8 and outcome.progress.judged == 24
        again = synthesize(store, settings)  # nothing left to do: nothing added
        assert again.stop is StopReason.EXHAUSTED and store.count_tests() == 8


def test_unknown_engine(tmp_path):
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(UsageError, match="unknown engine"):
            synthesize(store, Settings(Bounds(2, 2), engine="sat"))
