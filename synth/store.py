"""One SQLite file per run: its parameters, the work units done, the tests
found and their verdicts.

A unit's tests, their verdicts and the mark "unit done" are written in one
transaction, so a run killed at any instant (even SIGKILL) leaves either all
of a unit or none of it; tests are keyed by their canonical form, so work
redone after a resume adds nothing twice.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS params (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS units (id INTEGER PRIMARY KEY, judged INTEGER NOT NULL, found INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tests (key TEXT PRIMARY KEY, hash TEXT NOT NULL, unit INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT NOT NULL REFERENCES tests(key), label TEXT NOT NULL, verdict TEXT NOT NULL,
    PRIMARY KEY (key, label));
"""


@dataclass(frozen=True)
class FoundTest:
    """A test as stored: canonical key, canonical hash, verdicts ((label, 'P'|'F'|'?'), ...)."""

    key: str
    hash: str
    verdicts: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class UnitResult:
    """What one work unit produced; `complete` is False when a deadline cut it short."""

    unit: int
    judged: int
    tests: tuple[FoundTest, ...]
    complete: bool = True


class Store:
    """A run's database; use as a context manager or call `close()`."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def params(self) -> dict:
        return {k: json.loads(v) for k, v in self.db.execute("SELECT key, value FROM params")}

    def set_params(self, values: dict) -> None:
        with self._transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO params VALUES (?, ?)",
                [(k, json.dumps(v, sort_keys=True)) for k, v in values.items()],
            )

    def done_units(self) -> set[int]:
        return {row[0] for row in self.db.execute("SELECT id FROM units")}

    def totals(self) -> tuple[int, int]:
        """(candidates judged in finished units, tests stored)."""
        judged = self.db.execute("SELECT COALESCE(SUM(judged), 0) FROM units").fetchone()[0]
        return judged, self.db.execute("SELECT COUNT(*) FROM tests").fetchone()[0]

    def commit(self, result: UnitResult) -> int:
        """Store a unit's tests (and mark it done if complete) atomically; the number of new tests."""
        with self._transaction():
            before = self.count_tests()
            for test in result.tests:
                self.db.execute("INSERT OR IGNORE INTO tests VALUES (?, ?, ?)", (test.key, test.hash, result.unit))
                self.db.executemany(
                    "INSERT OR IGNORE INTO verdicts VALUES (?, ?, ?)",
                    [(test.key, label, verdict) for label, verdict in test.verdicts],
                )
            new = self.count_tests() - before
            if result.complete:
                self.db.execute(
                    "INSERT OR IGNORE INTO units VALUES (?, ?, ?)", (result.unit, result.judged, len(result.tests))
                )
        return new

    def tests(self) -> list[FoundTest]:
        """Every stored test with its verdicts, in key order."""
        verdicts: dict[str, list[tuple[str, str]]] = {}
        for key, label, verdict in self.db.execute("SELECT key, label, verdict FROM verdicts ORDER BY rowid"):
            verdicts.setdefault(key, []).append((label, verdict))
        return [
            FoundTest(key, digest, tuple(verdicts.get(key, ())))
            for key, digest in self.db.execute("SELECT key, hash FROM tests ORDER BY key")
        ]

    def count_tests(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM tests").fetchone()[0]

    def _transaction(self):
        return _Transaction(self.db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, value, traceback):
        self.db.execute("ROLLBACK" if kind else "COMMIT")
