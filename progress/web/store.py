"""The server's results database: submitted runs and their cells, in SQLite.

Schema (version 1):

    runs(id, suite, suite_hash, device, adapter JSON, browser, settings JSON,
         calibration JSON, submitted (UTC, ISO 8601), digest UNIQUE)
    cells(run, test, heuristic, cell)     -- "P" or "F (k/N)"

A run is written in one transaction; `digest` (of the suite hash, device,
settings and cells) recognises a run submitted twice, which changes nothing.
Every connection is opened per call (the server's handlers run on threads).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from progress.errors import ProgressError
from progress.web.submit import Submission

VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    suite TEXT NOT NULL, suite_hash TEXT NOT NULL, device TEXT NOT NULL,
    adapter TEXT NOT NULL, browser TEXT NOT NULL, settings TEXT NOT NULL,
    calibration TEXT NOT NULL, submitted TEXT NOT NULL, digest TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS cells (
    run INTEGER NOT NULL REFERENCES runs(id), test TEXT NOT NULL,
    heuristic TEXT NOT NULL, cell TEXT NOT NULL, PRIMARY KEY (run, test, heuristic)
);
CREATE INDEX IF NOT EXISTS cells_by_test ON cells(test);
"""


class StoreError(ProgressError):
    """The database file cannot be used (not SQLite, another schema, unwritable)."""


@dataclass(frozen=True)
class Run:
    id: int
    suite: str
    suite_hash: str
    device: str
    adapter: dict[str, str]
    browser: str
    settings: dict
    submitted: str


class Store:
    def __init__(self, path: Path):
        self.path = path
        with self._connect() as db:
            db.executescript(SCHEMA)
            found = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if found is None:
                db.execute("INSERT INTO meta VALUES ('version', ?)", (str(VERSION),))
            elif found[0] != str(VERSION):
                raise StoreError(f"{path}: results database version {found[0]}, this server reads {VERSION}")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            db = sqlite3.connect(self.path, timeout=10.0)
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: cannot open the results database: {error}") from None
        try:
            with db:
                yield db
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: {error}") from None
        finally:
            db.close()

    def record(self, run: Submission) -> tuple[int, bool]:
        """(run id, True) for a new run; (the earlier id, False) for a repeat."""
        settings = _settings_dict(run)
        digest = _digest(run, settings)
        with self._connect() as db:
            found = db.execute("SELECT id FROM runs WHERE digest = ?", (digest,)).fetchone()
            if found is not None:
                return int(found[0]), False
            cursor = db.execute(
                "INSERT INTO runs (suite, suite_hash, device, adapter, browser, settings, calibration, submitted, "
                "digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run.suite,
                    run.suite_hash,
                    run.device,
                    json.dumps(run.adapter, sort_keys=True),
                    run.browser,
                    json.dumps(settings, sort_keys=True),
                    json.dumps(run.calibration, sort_keys=True),
                    datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    digest,
                ),
            )
            run_id = int(cursor.lastrowid or 0)
            db.executemany(
                "INSERT INTO cells VALUES (?, ?, ?, ?)",
                [(run_id, key, h, cell) for key, cells in run.results.items() for h, cell in cells.items()],
            )
            return run_id, True

    def runs(self) -> list[Run]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, suite, suite_hash, device, adapter, browser, settings, submitted FROM runs ORDER BY id"
            ).fetchall()
        return [Run(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], json.loads(r[6]), r[7]) for r in rows]

    def run(self, run_id: int) -> Run | None:
        return next((r for r in self.runs() if r.id == run_id), None)

    def cells(self, run_id: int) -> dict[str, dict[str, str]]:
        """{test: {heuristic: cell}} of one run, in the order submitted."""
        rows: dict[str, dict[str, str]] = {}
        with self._connect() as db:
            for test, heuristic, cell in db.execute(
                "SELECT test, heuristic, cell FROM cells WHERE run = ? ORDER BY rowid", (run_id,)
            ):
                rows.setdefault(test, {})[heuristic] = cell
        return rows

    def test_results(self, suite_hash: str, test: str) -> list[tuple[Run, dict[str, str]]]:
        """Every run of this suite that ran `test`, with its cells."""
        runs = {r.id: r for r in self.runs() if r.suite_hash == suite_hash}
        found: dict[int, dict[str, str]] = {}
        with self._connect() as db:
            for run_id, heuristic, cell in db.execute(
                "SELECT run, heuristic, cell FROM cells WHERE test = ? ORDER BY run, rowid", (test,)
            ):
                if run_id in runs:
                    found.setdefault(run_id, {})[heuristic] = cell
        return [(runs[i], cells) for i, cells in found.items()]


def _settings_dict(run: Submission) -> dict:
    s = run.settings
    return {
        "heuristics": list(s.heuristics),
        "iterations": s.iterations,
        "deadline_s": s.deadline_s,
        "instances": "auto" if s.instances is None else s.instances,
    }


def _digest(run: Submission, settings: dict) -> str:
    body = json.dumps([run.suite_hash, run.device, run.adapter, settings, run.results], sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()
