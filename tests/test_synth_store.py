"""The run store: atomic unit commits, no duplicates, running totals, compact
rows streamed back in export order, parameters, resume checks, and files
that are not a store of this format refused."""

from __future__ import annotations

import random
import sqlite3
import tracemalloc

import pytest

from progress.errors import UsageError
from progress.synth import canonical
from progress.synth.driver import Settings, StopReason, open_run, synthesize
from progress.synth.space import Bounds, instruction_options
from progress.synth.store import (
    FoundTest,
    KeyCodec,
    Store,
    StoreError,
    UnitResult,
    pack_verdicts,
    unpack_verdicts,
)

LABELS = ("unfair", "fair/weak")
A = ((((0, 0, 0, False, 0),), ((0, 0, 1, True, 1),)), pack_verdicts("FP"))
B = ((((0, 1, 0, False, 0),), ((0, 0, 1, True, 1),)), pack_verdicts("FF"))
TEST_A, TEST_B = FoundTest(*A), FoundTest(*B)


def fresh(path, bounds: Bounds | None = None) -> Store:
    store = Store(path)
    open_run(store, Settings(bounds or Bounds(2, 2)), resume=False)
    return store


def random_candidate(bounds: Bounds, rng: random.Random):
    """A canonical candidate of `bounds` (constraint-4 instructions, any lengths)."""
    while True:
        lengths = [1] * bounds.threads
        for _ in range(bounds.instructions - bounds.threads):
            lengths[rng.randrange(bounds.threads)] += 1
        candidate = tuple(tuple(rng.choice(instruction_options(n, i, bounds)) for i in range(n)) for n in lengths)
        if canonical.is_canonical(candidate):
            return candidate


def test_commit_is_idempotent_and_keeps_running_totals(tmp_path):
    with fresh(tmp_path / "s.db") as store:
        assert store.commit(UnitResult(0, 10, (TEST_A, TEST_B), labels=LABELS)) == 2
        assert store.commit(UnitResult(0, 10, (TEST_A, TEST_B), labels=LABELS)) == 0
        assert store.commit(UnitResult(1, 5, (TEST_B,), complete=False, labels=LABELS)) == 0
        assert store.done_units() == {0}
        assert store.totals() == (10, 2)  # the unit committed twice counts once
        assert list(store.tests()) == [A, B]  # export order: A's first instruction compares with 0
        assert store.labels() == LABELS
        assert store.verdict_counts() == [("unfair", 0, 2), ("fair/weak", 1, 1)]
        counted = store.db.execute("SELECT COUNT(*), (SELECT SUM(judged) FROM units) FROM tests").fetchone()
        assert counted == (2, 10)


def test_commit_scans_nothing(tmp_path):
    """The totals are kept, not counted: no COUNT/SUM statement in a commit."""
    with fresh(tmp_path / "s.db") as store:
        statements: list[str] = []
        store.db.set_trace_callback(statements.append)
        store.commit(UnitResult(0, 10, (TEST_A, TEST_B), labels=LABELS))
        store.db.set_trace_callback(None)
        assert statements and not [s for s in statements if "COUNT" in s.upper() or "SUM(" in s.upper()]


def test_a_failed_commit_leaves_nothing(tmp_path, monkeypatch):
    with fresh(tmp_path / "s.db") as store:
        real = store.db

        class Exploding:
            def __getattr__(self, name):
                return getattr(real, name)

            def execute(self, sql, *args):
                if sql.startswith("INSERT OR IGNORE INTO units"):
                    raise KeyboardInterrupt
                return real.execute(sql, *args)

        store.db = Exploding()
        with pytest.raises(KeyboardInterrupt):
            store.commit(UnitResult(0, 10, (TEST_A,), labels=LABELS))
        store.db = real
        assert list(store.tests()) == [] and store.done_units() == set() and store.totals() == (0, 0)
        assert store.commit(UnitResult(0, 10, (TEST_A,), labels=LABELS)) == 1  # the store still works


def test_verdict_masks_round_trip():
    cells = ("P", "F", "?", "P", "F", "F", "P", "?", "P", "P", "F")
    assert unpack_verdicts(pack_verdicts(cells), len(cells)) == cells
    assert pack_verdicts("F" * 11) == 0


@pytest.mark.parametrize("bounds", [Bounds(2, 4), Bounds(3, 5), Bounds(2, 6), Bounds(2, 4, 3, 3), Bounds(4, 5)])
def test_keys_round_trip_and_sort_in_export_order(bounds):
    rng = random.Random(bounds.label)
    codec = KeyCodec(bounds)
    candidates = list({random_candidate(bounds, rng) for _ in range(400)})
    for candidate in candidates:
        assert codec.unpack(codec.pack(candidate)) == candidate
    by_bytes = sorted(candidates, key=codec.pack)
    assert by_bytes == sorted(candidates, key=canonical.sort_key)
    codec.table = None  # the path for bounds too large for a lookup table
    assert all(codec.unpack(codec.pack(c)) == c for c in candidates[:50])


@pytest.mark.parametrize("bounds", [Bounds(2, 4), Bounds(3, 5), Bounds(2, 4, 3, 3)])
def test_fast_export_rendering_is_the_reference_rendering(bounds):
    from progress.synth import export

    rng = random.Random(bounds.label)
    labels = ("unfair", "fair/weak", "HSA/strong")
    tests = sorted({random_candidate(bounds, rng) for _ in range(300)}, key=canonical.sort_key)
    masks = [pack_verdicts(rng.choice("PF?") for _ in labels) for _ in tests]
    entries = list(export.entries(zip(tests, masks), labels, bounds))
    for number, ((path, text, row), candidate, mask) in enumerate(zip(entries, tests, masks)):
        cells = unpack_verdicts(mask, len(labels))
        name = f"synth_{bounds.label}_{number}"
        assert text == export.axb_text(candidate, cells, labels, name, bounds)
        in_csv_order = ",".join(cells[i] for i in export.csv_order(labels))  # the artifact's column order
        assert path == f"{bounds.label}/{number}.axb" and row == f"{path},{in_csv_order}"


def test_a_test_takes_tens_of_bytes(tmp_path):
    """Format 1 took 1,932 bytes per test on 2t4i (2.3 kB on 3t5i); here < 60."""
    bounds = Bounds(3, 5)
    rng = random.Random(5)
    with fresh(tmp_path / "s.db", bounds) as store:
        labels = tuple(f"v{i}" for i in range(11))
        store.commit(UnitResult(0, 1, (FoundTest(random_candidate(bounds, rng), 0),), labels=labels))
        before = store.size_bytes()
        tests = {random_candidate(bounds, rng) for _ in range(20000)}
        verdicts = [pack_verdicts(rng.choice("PF") for _ in labels) for _ in tests]
        for unit, start in enumerate(range(0, len(tests), 1000), start=1):
            chunk = list(zip(tests, verdicts))[start : start + 1000]
            store.commit(UnitResult(unit, 1000, tuple(FoundTest(c, v) for c, v in chunk), labels=labels))
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        per_test = (store.size_bytes() - before) / len(tests)
    assert per_test < 60, per_test


def test_tests_are_streamed(tmp_path):
    """Reading 20,000 tests back holds a few of them at a time, not all."""
    bounds = Bounds(3, 5)
    rng = random.Random(7)
    tests = sorted({random_candidate(bounds, rng) for _ in range(20000)}, key=canonical.sort_key)
    with fresh(tmp_path / "s.db", bounds) as store:
        store.commit(UnitResult(0, 1, tuple(FoundTest(c, 1) for c in tests), labels=("v",)))
    with Store(tmp_path / "s.db", readonly=True) as store:
        stream = store.tests()
        assert not isinstance(stream, list)
        tracemalloc.start()
        count = 0
        for (candidate, _), expected in zip(stream, tests):
            assert candidate == expected
            count += 1
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert count == len(tests)
    assert peak < 1_000_000, peak  # the tests themselves take several MB as Python objects


def test_parameters_and_resume_checks(tmp_path):
    settings = Settings(Bounds(2, 2))
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(UsageError, match="holds no run"):
            open_run(store, settings, resume=True)
        open_run(store, settings, resume=False)
        assert store.params()["threads"] == 2 and store.params()["engine"] == "compiled"  # the default
        with pytest.raises(UsageError, match="already holds a run"):
            open_run(store, settings, resume=False)
        with pytest.raises(UsageError, match="engine=compiled \\(not z3\\)"):
            open_run(store, Settings(Bounds(2, 2), engine="z3"), resume=True)
        outcome = synthesize(store, settings)
        assert outcome.stop is StopReason.EXHAUSTED and outcome.params["stop"] == "exhausted"
        assert "owner" not in outcome.params
        assert outcome.progress.found == 8 and outcome.progress.judged == 24
        again = synthesize(store, settings)  # nothing left to do: nothing added
        assert again.stop is StopReason.EXHAUSTED and store.count_tests() == 8


def test_a_running_run_cannot_be_resumed_twice(tmp_path):
    import subprocess
    import sys

    settings = Settings(Bounds(2, 2))
    with fresh(tmp_path / "s.db") as store:  # owned by this process, which runs
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            store.set_params({"owner": {"pid": sleeper.pid, "host": __import__("socket").gethostname(), "since": 0}})
            with pytest.raises(UsageError, match=f"being searched by process {sleeper.pid}"):
                open_run(store, settings, resume=True)
        finally:
            sleeper.kill()
            sleeper.wait()
        open_run(store, settings, resume=True)  # its owner is dead: resumable


def test_unknown_engine(tmp_path):
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(UsageError, match="unknown engine"):
            synthesize(store, Settings(Bounds(2, 2), engine="sat"))


def test_labels_of_another_run_are_refused(tmp_path):
    with fresh(tmp_path / "s.db") as store:
        store.commit(UnitResult(0, 1, (TEST_A,), labels=LABELS))
        with pytest.raises(StoreError, match="another set of models"):
            store.commit(UnitResult(1, 1, (TEST_B,), labels=("HSA/weak", "fair/weak")))


# Files that are not a store of this format.


def hostile(path, kind: str) -> None:
    if kind == "text":
        path.write_text("hello, this is not a database\n" * 50)
    elif kind == "empty-sqlite-header":
        path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 20)
    elif kind == "foreign":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE params (name TEXT, size INTEGER)")
            db.execute("INSERT INTO params VALUES ('a', 1)")
    elif kind == "format-1":
        with sqlite3.connect(path) as db:
            db.executescript(
                "CREATE TABLE params (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                "CREATE TABLE units (id INTEGER PRIMARY KEY, judged INTEGER NOT NULL, found INTEGER NOT NULL);"
                "CREATE TABLE tests (key TEXT PRIMARY KEY, hash TEXT NOT NULL, unit INTEGER NOT NULL);"
                "CREATE TABLE verdicts (key TEXT, label TEXT, verdict TEXT, PRIMARY KEY (key, label));"
                "INSERT INTO params VALUES ('threads', '2');"
            )
    elif kind == "not-json":
        with fresh(path) as store:
            store.db.execute("UPDATE params SET value = '{not json' WHERE key = 'threads'")
    elif kind == "garbage-inside":
        with fresh(path, Bounds(2, 3)) as store:
            synthesize(store, Settings(Bounds(2, 3)))
        data = bytearray(path.read_bytes())
        assert len(data) > 8192
        data[4096:] = bytes((i * 37) % 251 for i in range(len(data) - 4096))
        path.write_bytes(bytes(data))
    else:
        raise AssertionError(kind)


HOSTILE = ["text", "empty-sqlite-header", "foreign", "format-1", "not-json", "garbage-inside"]


@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_files_are_refused(tmp_path, kind):
    path = tmp_path / "s.db"
    hostile(path, kind)
    before = path.read_bytes()
    with pytest.raises(StoreError) as error:
        with Store(path) as store:
            open_run(store, Settings(Bounds(2, 3)), resume=True)
            store.params()
            list(store.tests())
    assert "\n" not in str(error.value) and str(path) in str(error.value)
    if kind == "format-1":
        assert "older progress" in str(error.value)
    if kind != "garbage-inside":
        assert path.read_bytes() == before  # nothing written to a file that is not ours
