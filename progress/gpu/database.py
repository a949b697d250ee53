"""The results database: device runs in one SQLite file (the only module that touches it).

Schema version 1 (docs/devices.md): `tests` (canonical hash -> canonical
AXB text), `suites` and `suite_tests` (a suite's keys and their tests),
`runs` (device, backend, driver, date, variant, heuristics, iterations,
settings, source, and the content hash that recognises the same run
imported again) and `cells` (per run, test and heuristic: k failed of N
iterations, in run order). The file is marked by SQLite's application_id
and user_version; any other SQLite file is refused, never written.

`import_runs` stores runs in one transaction: all of them or, on any
error, none; a run already there (same content hash) is not stored again
and a file holding only such runs is left byte for byte as it was. A file
with no write permission bits, or one SQLite cannot write, is refused.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from progress.core.program import Program
from progress.errors import InputError
from progress.gpu.importers import run_of
from progress.gpu.records import Cell, Run, Suite, SuiteTest, content_hash, suite_of

APPLICATION_ID = 0x50524752  # "PRGR"
SCHEMA_VERSION = 1
DEFAULT_PATH = Path("progress-results.db")
"""In the current directory, beside the `results.csv` that `progress run` writes by default."""
SQLITE_MAGIC = b"SQLite format 3\x00"

SCHEMA = """
CREATE TABLE tests (hash TEXT PRIMARY KEY, axb TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE suites (id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE suite_tests (
    suite INTEGER NOT NULL REFERENCES suites(id), key TEXT NOT NULL, test TEXT NOT NULL REFERENCES tests(hash),
    PRIMARY KEY (suite, key)) WITHOUT ROWID;
CREATE TABLE runs (
    id INTEGER PRIMARY KEY, content_hash TEXT NOT NULL UNIQUE, suite INTEGER NOT NULL REFERENCES suites(id),
    name TEXT NOT NULL, device TEXT NOT NULL, backend TEXT NOT NULL, driver TEXT NOT NULL, date TEXT NOT NULL,
    variant TEXT NOT NULL, heuristics TEXT NOT NULL, iterations INTEGER NOT NULL, settings TEXT NOT NULL,
    source TEXT NOT NULL);
CREATE TABLE cells (
    run INTEGER NOT NULL REFERENCES runs(id), position INTEGER NOT NULL, key TEXT NOT NULL,
    heuristic TEXT NOT NULL, failed INTEGER NOT NULL, iterations INTEGER NOT NULL,
    PRIMARY KEY (run, key, heuristic)) WITHOUT ROWID;
"""


class DatabaseError(InputError):
    """The results database cannot be used as asked (exit 2), naming the file."""


@dataclass(frozen=True)
class RunInfo:
    """A stored run's header (its cells come from `ResultsDB.rows`)."""

    id: int
    name: str
    device: str
    backend: str
    driver: str
    date: str
    variant: str
    heuristics: tuple[str, ...]
    iterations: int
    settings: str
    source: str
    suite_hash: str
    suite_name: str
    tests: int
    content_hash: str


class ResultsDB:
    """An open results database; use `open_database`. A context manager."""

    def __init__(self, path: Path, connection: sqlite3.Connection, writable: bool, created: bool = False):
        self.path, self._db, self.writable, self._created = path, connection, writable, created

    def __enter__(self) -> ResultsDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def import_runs(self, runs: Sequence[Run]) -> list[tuple[int, bool]]:
        """Store the runs in one transaction; per run (its id, whether it is new)."""
        if not self.writable:
            raise DatabaseError(f"{self.path} was opened read-only")
        with self._errors():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if not self._has_schema():
                    self._create()
                done = [self._store(run) for run in runs]
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                self._forget_created()
                raise
        return done

    def _forget_created(self) -> None:
        """A file this import created and left empty is removed (nothing half-written)."""
        if self._created and self.path.stat().st_size == 0:
            self.path.unlink()

    def import_run(self, run: Run) -> int:
        return self.import_runs([run])[0][0]

    def runs(self) -> list[RunInfo]:
        with self._errors():
            if not self._has_schema():
                return []
            return [self._info(row) for row in self._db.execute(_RUNS + " ORDER BY runs.id")]

    def run(self, ident: str | int) -> RunInfo:
        """The run with this id, or the one run with this name."""
        found = self.runs()
        matches = [info for info in found if str(info.id) == str(ident)] or [i for i in found if i.name == ident]
        if len(matches) != 1:
            names = ", ".join(f"{info.id} {info.name}" for info in found) or "none"
            what = "no run" if not matches else "more than one run named"
            raise DatabaseError(f"{self.path} has {what} {ident!r} (runs: {names})")
        return matches[0]

    def cells(self, run_id: int) -> list[Cell]:
        with self._errors():
            rows = self._db.execute(
                "SELECT key, heuristic, failed, iterations FROM cells WHERE run = ? ORDER BY position", (run_id,)
            )
            return [Cell(*row) for row in rows]

    def rows(self, run_id: int) -> dict[str, dict[str, str]]:
        """{key: {heuristic: `P` or `F (k/N)`}} in run order, as the run's CSV holds them."""
        rows: dict[str, dict[str, str]] = {}
        for cell in self.cells(run_id):
            rows.setdefault(cell.key, {})[cell.heuristic] = cell.text
        return rows

    def programs(self, run_id: int) -> dict[str, str]:
        """{key: canonical AXB text} of the run's tests."""
        with self._errors():
            rows = self._db.execute(
                "SELECT DISTINCT c.key, t.axb FROM cells c JOIN runs r ON r.id = c.run "
                "JOIN suite_tests s ON s.suite = r.suite AND s.key = c.key JOIN tests t ON t.hash = s.test "
                "WHERE c.run = ?",
                (run_id,),
            )
            return dict(rows.fetchall())

    def suite(self, suite_hash: str) -> Suite | None:
        """The stored suite with this hash (for validating a submitted run), or None."""
        with self._errors():
            found = self._db.execute("SELECT id, name FROM suites WHERE hash = ?", (suite_hash,)).fetchone()
            if found is None:
                return None
            rows = self._db.execute(
                "SELECT s.key, t.hash, t.axb FROM suite_tests s JOIN tests t ON t.hash = s.test "
                "WHERE s.suite = ? ORDER BY s.key",
                (found[0],),
            )
            return Suite(found[1], tuple(SuiteTest(*row) for row in rows))

    def dump(self) -> str:
        """Every row of every table, as SQL text (to compare two states of the file)."""
        with self._errors():
            return "\n".join(self._db.iterdump())

    def _store(self, run: Run) -> tuple[int, bool]:
        digest = content_hash(run)
        known = self._db.execute("SELECT id FROM runs WHERE content_hash = ?", (digest,)).fetchone()
        if known is not None:
            return known[0], False
        suite_id = self._suite_id(run.suite)
        cursor = self._db.execute(
            "INSERT INTO runs (content_hash, suite, name, device, backend, driver, date, variant, heuristics, "
            "iterations, settings, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (digest, suite_id, run.name, run.device, run.backend, run.driver, run.date, run.variant)
            + (json.dumps(list(run.heuristics)), run.iterations, run.settings, run.source),
        )
        run_id = int(cursor.lastrowid or 0)
        self._db.executemany(
            "INSERT INTO cells VALUES (?, ?, ?, ?, ?, ?)",
            ((run_id, n, c.key, c.heuristic, c.failed, c.iterations) for n, c in enumerate(run.cells)),
        )
        return run_id, True

    def _suite_id(self, suite: Suite) -> int:
        found = self._db.execute("SELECT id FROM suites WHERE hash = ?", (suite.hash,)).fetchone()
        if found is not None:
            return int(found[0])
        self._db.executemany("INSERT OR IGNORE INTO tests VALUES (?, ?)", ((t.hash, t.text) for t in suite.tests))
        cursor = self._db.execute("INSERT INTO suites (hash, name) VALUES (?, ?)", (suite.hash, suite.name))
        suite_id = int(cursor.lastrowid or 0)
        self._db.executemany(
            "INSERT INTO suite_tests VALUES (?, ?, ?)", ((suite_id, t.key, t.hash) for t in suite.tests)
        )
        return suite_id

    def _has_schema(self) -> bool:
        return bool(self._db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID)

    def _create(self) -> None:
        for statement in SCHEMA.split(";"):
            if statement.strip():
                self._db.execute(statement)
        self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _info(self, row: tuple[Any, ...]) -> RunInfo:
        values = list(row)
        values[7] = tuple(json.loads(values[7]))
        return RunInfo(*values)

    def _errors(self) -> _translated:
        return _translated(self.path)


_RUNS = (
    "SELECT runs.id, runs.name, device, backend, driver, date, variant, heuristics, iterations, settings, source, "
    "suites.hash, suites.name, (SELECT COUNT(DISTINCT key) FROM cells WHERE cells.run = runs.id), content_hash "
    "FROM runs JOIN suites ON suites.id = runs.suite"
)


class _translated:
    """sqlite3 errors as DatabaseErrors naming the file."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, traceback: object) -> None:
        if isinstance(error, sqlite3.Error):
            raise DatabaseError(f"{self.path}: {_reason(error)}") from None


def _reason(error: sqlite3.Error) -> str:
    text = str(error)
    if "readonly" in text or "read-only" in text:
        return "the database is read-only"
    if "malformed" in text or "not a database" in text:
        return f"not a usable results database ({text}): damaged or truncated?"
    return text


def open_database(path: Path | str, writable: bool = False) -> ResultsDB:
    """Open a results database. Reading needs an existing one; writing
    creates it if missing. Refused (DatabaseError): not a regular file, not
    SQLite, another application's SQLite file, a newer schema, damage, and
    for writing a file without write permission (even for root)."""
    path = Path(path)
    exists = path.exists() or path.is_symlink()
    if not exists and not writable:
        raise DatabaseError(f"no results database {path}: import results first (progress results import ...)")
    if exists:
        _check_file(path, writable)
    elif not os.access(path.parent if str(path.parent) else Path("."), os.W_OK):
        raise DatabaseError(f"cannot create {path}: its directory is not writable")
    with _translated(path):
        if writable:
            connection = sqlite3.connect(path, isolation_level=None)
        else:
            connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, isolation_level=None)
        try:
            _check_schema(path, connection, fresh=not exists or path.stat().st_size == 0)
        except BaseException:
            connection.close()
            raise
    return ResultsDB(path, connection, writable, created=not exists)


def _check_file(path: Path, writable: bool) -> None:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise DatabaseError(f"{path} is not a regular file")
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise DatabaseError(f"cannot read {path}: {error.strerror or error}") from None
    if head and head != SQLITE_MAGIC:
        raise DatabaseError(f"{path} is not a SQLite file, so not a results database")
    if writable and (not info.st_mode & 0o222 or not os.access(path, os.W_OK)):
        raise DatabaseError(f"{path} is read-only (mode {stat.S_IMODE(info.st_mode):04o}): nothing was written")
    if writable and not os.access(path.parent if str(path.parent) else Path("."), os.W_OK):
        raise DatabaseError(f"cannot write {path}: its directory is not writable (SQLite needs its journal there)")


def _check_schema(path: Path, connection: sqlite3.Connection, fresh: bool) -> None:
    application = connection.execute("PRAGMA application_id").fetchone()[0]
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    tables = connection.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
    if application == 0 and tables == 0 and (fresh or version == 0):
        return  # an empty SQLite file: the first import creates the schema
    if application != APPLICATION_ID:
        raise DatabaseError(f"{path} is a SQLite file of another application, not a progress results database")
    if version != SCHEMA_VERSION:
        raise DatabaseError(f"{path} has results schema {version}; this progress reads schema {SCHEMA_VERSION}")
    problem = connection.execute("PRAGMA quick_check").fetchone()[0]
    if problem != "ok":
        raise DatabaseError(f"{path} is damaged: {problem}")


def usable_database(path: Path | str | None) -> Path | None:
    """`path` (None stays None) after checking that a run can be recorded
    there, before the run starts: a DatabaseError now, not after the run."""
    if path is None:
        return None
    path = Path(path)
    existed = path.exists() or path.is_symlink()
    open_database(path, writable=True).close()
    if not existed and path.exists() and path.stat().st_size == 0:
        path.unlink()  # the check left an empty file: nothing is there until a run is recorded
    return path


def record_run(
    path: Path | str,
    meta: Mapping[str, Any],
    rows: Mapping[str, Mapping[str, str]],
    tests: Iterable[tuple[str, Program]],
    source: str,
) -> tuple[int, bool]:
    """`progress run --db`: store the run just made (its metadata, its rows and
    the tests it ran, as a suite) in the database at `path`; (id, new)."""
    tests = list(tests)
    run = run_of(meta, rows, suite_of("run inputs", tests), source)
    with open_database(path, writable=True) as database:
        return database.import_runs([run])[0]
