"""One SQLite file per run: its parameters, the work units done, the tests
found and their verdicts, in compact form.

Contracts:
- A unit's tests and the mark "unit done" are written in one transaction,
  so a run killed at any instant (even SIGKILL) leaves either all of a unit
  or none of it; tests are keyed by their canonical form, so work redone
  after a resume adds nothing twice.
- A commit costs the same however many tests the store holds: running
  totals live in a one-row table updated in the same transaction (no
  `COUNT(*)` scan), and the number of new tests comes from SQLite's change
  counter.
- A test is one row of a WITHOUT ROWID table: its key is the canonical
  candidate packed into a few bytes (`pack_key`) whose byte order is the
  export order (`canonical.sort_key`), and its verdicts are one integer,
  two bits per verdict (`pack_verdicts`), the labels stored once in
  `params`. Reading tests back (`tests()`) streams them in export order
  straight from the primary key: memory does not depend on their number.
- A file that is not a store of this format (not SQLite, damaged, another
  program's tables, an older format) raises `StoreError` (exit 2) with one
  line naming the cause; nothing is written to it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from progress.errors import UsageError

from .space import Bounds, Candidate

FORMAT = 2
"""Version of the store's layout (1: a text row per verdict, before issue 13)."""

TABLES = {
    "params": "CREATE TABLE params (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "units": "CREATE TABLE units (id INTEGER PRIMARY KEY, judged INTEGER NOT NULL, found INTEGER NOT NULL)",
    "tests": "CREATE TABLE tests (key BLOB PRIMARY KEY, verdicts INTEGER NOT NULL) WITHOUT ROWID",
    "totals": (
        "CREATE TABLE totals (id INTEGER PRIMARY KEY CHECK (id = 0), units INTEGER NOT NULL, "
        "judged INTEGER NOT NULL, tests INTEGER NOT NULL, updated REAL NOT NULL)"
    ),
}
COLUMNS = {
    "params": ["key", "value"],
    "units": ["id", "judged", "found"],
    "tests": ["key", "verdicts"],
    "totals": ["id", "units", "judged", "tests", "updated"],
}

CELLS = ("F", "P", "?")
"""Verdict cells by their 2-bit code."""


class StoreError(UsageError):
    """The file cannot be used as a run's store (exit 2)."""


@dataclass(frozen=True)
class FoundTest:
    """A test as a worker reports it: the canonical candidate and its verdicts
    packed by `pack_verdicts` in the order of the unit's labels."""

    candidate: Candidate
    verdicts: int


@dataclass(frozen=True)
class UnitResult:
    """What one work unit produced; `complete` is False when a deadline cut it short.

    `labels` name the verdicts (same for every unit of a run); the seconds
    are the worker's time judging candidates and classifying the tests found,
    for the progress line. A worker may send its tests already packed
    (`packed`: (`KeyCodec.pack` key, verdict mask) pairs, so the process
    that commits does no per-test Python work beyond the insert) instead of
    as `tests`; `found` counts both."""

    unit: int
    judged: int
    tests: tuple[FoundTest, ...]
    complete: bool = True
    labels: tuple[str, ...] = ()
    judging: float = 0.0
    classifying: float = 0.0
    packed: tuple[tuple[bytes, int], ...] = ()

    @property
    def found(self) -> int:
        return len(self.tests) + len(self.packed)


def packed(result: UnitResult, codec: KeyCodec) -> UnitResult:
    """`result` with its tests in the store's form (`UnitResult.packed`: packed
    keys and verdict masks): what worker processes send back, a short byte
    string and an integer per test to pickle instead of nested tuples, and
    nothing left for the driver to pack before it writes."""
    rows = tuple((codec.pack(test.candidate), test.verdicts) for test in result.tests)
    return replace(result, tests=(), packed=result.packed + rows)


@dataclass(frozen=True)
class Totals:
    """Running counts of a store (kept, never scanned)."""

    units: int
    judged: int
    tests: int
    updated: float  # time.time() of the last commit (0 before any)


def pack_verdicts(cells: Sequence[str]) -> int:
    """'P'/'F'/'?' per verdict -> one integer, verdict i in bits 2i and 2i+1."""
    mask = 0
    for index, cell in enumerate(cells):
        mask |= CELLS.index(cell) << (2 * index)
    return mask


def unpack_verdicts(mask: int, count: int) -> tuple[str, ...]:
    return tuple(CELLS[(mask >> (2 * index)) & 3] for index in range(count))


class KeyCodec:
    """Canonical candidates of one bounds <-> short byte strings whose
    bytewise order is `canonical.sort_key` order (thread lengths, then the
    instructions): one byte per thread length, then each instruction as a
    fixed-width big-endian number in mixed radix (loc, cmp, target, xchg, val)."""

    def __init__(self, bounds: Bounds):
        if bounds.instructions > 255:
            raise ValueError("at most 255 instructions per thread")
        self.threads = bounds.threads
        self.radices = (bounds.locations, bounds.values, bounds.instructions + 1, 2, bounds.values)
        top = 1
        for radix in self.radices:
            top *= radix
        self.width = max(1, (top - 1).bit_length() + 7 >> 3)
        self.table = [self._instruction(number) for number in range(top)] if top <= 1 << 16 else None

    def _instruction(self, number: int):
        L, V, R, _, _ = self.radices
        number, val = divmod(number, V)
        number, xchg = divmod(number, 2)
        number, target = divmod(number, R)
        loc, cmp = divmod(number, V)
        return (loc, cmp, target, bool(xchg), val)

    def pack(self, candidate: Candidate) -> bytes:
        out = bytearray(len(code) for code in candidate)
        L, V, R, _, _ = self.radices
        for code in candidate:
            for loc, cmp, target, xchg, val in code:
                number = (((loc * V + cmp) * R + target) * 2 + int(xchg)) * V + val
                out += number.to_bytes(self.width, "big")
        return bytes(out)

    def unpack(self, blob: bytes) -> Candidate:
        lengths = blob[: self.threads]
        at = self.threads
        width, table = self.width, self.table
        codes = []
        for n in lengths:
            if width == 1 and table is not None:
                code = tuple(table[number] for number in blob[at : at + n])
                at += n
            else:
                numbers = [int.from_bytes(blob[i : i + width], "big") for i in range(at, at + n * width, width)]
                at += n * width
                code = tuple(table[x] if table is not None else self._instruction(x) for x in numbers)
            codes.append(code)
        return tuple(codes)


class Store:
    """A run's database; use as a context manager or call `close()`.

    `readonly=True` opens an existing store without writing to it (for
    `--status` while another process runs)."""

    def __init__(self, path: str | Path, readonly: bool = False):
        self.path = str(path)
        self.readonly = readonly
        self._codec: KeyCodec | None = None
        try:
            if readonly:
                if not Path(path).is_file():
                    raise StoreError(f"{path}: no such run")
                self.db = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
            else:
                self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise StoreError(f"cannot open {path} as a run's store: {error}") from None
        try:
            self._check_layout()
        except BaseException:
            self.db.close()
            raise

    def _check_layout(self) -> None:
        """Create the tables in an empty file; refuse anything else that is not this format."""
        try:
            found = dict(self.db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
            if not found and not self.readonly:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                with self._transaction():
                    for sql in TABLES.values():
                        self.db.execute(sql)
                    self.db.execute("INSERT INTO totals VALUES (0, 0, 0, 0, 0)")
                    self.db.execute("INSERT INTO params VALUES ('store_format', ?)", (json.dumps(FORMAT),))
                return
            if "verdicts" in found and "tests" in found and "store_format" not in self._raw_params(found):
                raise StoreError(
                    f"{self.path} was written by an older progress (store format 1, a text row per verdict); "
                    "it cannot be resumed or exported by this version: run the synthesis again"
                )
            for table, columns in COLUMNS.items():
                if table not in found or self._columns(table) != columns:
                    raise StoreError(f"{self.path} is not a synth run's store (table {table!r} missing or different)")
            stored = self.params().get("store_format")
            if stored != FORMAT:
                raise StoreError(f"{self.path} has store format {stored!r}; this version reads format {FORMAT}")
            if self.db.execute("SELECT COUNT(*) FROM totals WHERE id = 0").fetchone()[0] != 1:
                raise StoreError(f"{self.path} is damaged: its running totals are missing")
            if not self.readonly:
                self.db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is not a usable SQLite store: {error}") from None

    def _raw_params(self, found: dict) -> dict:
        if "params" not in found or self._columns("params") != COLUMNS["params"]:
            return {}
        return dict(self.db.execute("SELECT key, value FROM params").fetchall())

    def _columns(self, table: str) -> list[str]:
        return [row[1] for row in self.db.execute(f"PRAGMA table_info({table})")]

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    # parameters

    def params(self) -> dict:
        """Every parameter, JSON-decoded; a value that is not JSON is a StoreError."""
        values = {}
        for key, value in self._rows("SELECT key, value FROM params"):
            try:
                values[key] = json.loads(value)
            except (TypeError, ValueError):
                raise StoreError(f"{self.path} is damaged: parameter {key!r} is not JSON") from None
        return values

    def set_params(self, values: dict) -> None:
        with self._transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO params VALUES (?, ?)",
                [(k, json.dumps(v, sort_keys=True)) for k, v in values.items()],
            )

    def delete_params(self, *keys: str) -> None:
        with self._transaction():
            self.db.executemany("DELETE FROM params WHERE key = ?", [(k,) for k in keys])

    # progress

    def done_units(self) -> set[int]:
        return {row[0] for row in self._rows("SELECT id FROM units")}

    def running_totals(self) -> Totals:
        row = self._rows("SELECT units, judged, tests, updated FROM totals WHERE id = 0")[0]
        return Totals(*row)

    def totals(self) -> tuple[int, int]:
        """(candidates judged in finished units, tests stored)."""
        t = self.running_totals()
        return t.judged, t.tests

    def count_tests(self) -> int:
        return self.running_totals().tests

    def commit(self, result: UnitResult) -> int:
        """Store a unit's tests (and mark it done if complete) atomically; the number of new tests.

        Costs O(tests of the unit * log(tests stored)): no scan."""
        with self._transaction():
            if result.found:
                self._check_labels(result.labels)
            codec = self.codec()
            before = self.db.total_changes
            self.db.executemany(
                "INSERT OR IGNORE INTO tests VALUES (?, ?)",
                [(codec.pack(test.candidate), test.verdicts) for test in result.tests],
            )
            if result.packed:
                self.db.executemany("INSERT OR IGNORE INTO tests VALUES (?, ?)", result.packed)
            new = self.db.total_changes - before
            done = 0
            if result.complete:
                before = self.db.total_changes
                self.db.execute(
                    "INSERT OR IGNORE INTO units VALUES (?, ?, ?)", (result.unit, result.judged, result.found)
                )
                done = self.db.total_changes - before
            self.db.execute(
                "UPDATE totals SET units = units + ?, judged = judged + ?, tests = tests + ?, updated = ? WHERE id = 0",
                (done, result.judged if done else 0, new, time.time()),
            )
        return new

    def _check_labels(self, labels: tuple[str, ...]) -> None:
        stored = self.params().get("labels")
        if stored is None:
            self.db.execute("INSERT INTO params VALUES ('labels', ?)", (json.dumps(list(labels)),))
        elif tuple(stored) != tuple(labels):
            raise StoreError(f"{self.path} holds verdicts {stored}, not {list(labels)}: another set of models")

    # reading tests back

    def labels(self) -> tuple[str, ...]:
        """The verdicts' names, in bit order (empty before the first test)."""
        return tuple(self.params().get("labels", ()))

    def codec(self) -> KeyCodec:
        if self._codec is None:
            p = self.params()
            try:
                bounds = Bounds(p["threads"], p["instructions"], p["locations"], p["values"])
                self._codec = KeyCodec(bounds)
            except (KeyError, TypeError, ValueError):
                raise StoreError(f"{self.path} is damaged: its bounds are missing or not numbers") from None
        return self._codec

    def tests(self) -> Iterator[tuple[Candidate, int]]:
        """Every stored test as (canonical candidate, verdict mask), in export
        order (`canonical.sort_key`), streamed: constant memory."""
        codec = self.codec()
        try:
            for blob, mask in self.db.execute("SELECT key, verdicts FROM tests ORDER BY key"):
                yield codec.unpack(blob), mask
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is damaged: {error}") from None

    def packed_tests(self) -> Iterator[tuple[bytes, int]]:
        """`tests` as stored: (KeyCodec key, verdict mask), in export order, streamed."""
        try:
            yield from self.db.execute("SELECT key, verdicts FROM tests ORDER BY key")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is damaged: {error}") from None

    def verdict_counts(self) -> list[tuple[str, int, int]]:
        """(label, tests that pass, tests that fail) per verdict, aggregated by SQLite."""
        labels = self.labels()
        passes = [0] * len(labels)
        fails = [0] * len(labels)
        for mask, count in self._rows("SELECT verdicts, COUNT(*) FROM tests GROUP BY verdicts"):
            for index, cell in enumerate(unpack_verdicts(mask, len(labels))):
                if cell == "P":
                    passes[index] += count
                elif cell == "F":
                    fails[index] += count
        return list(zip(labels, passes, fails))

    def size_bytes(self) -> int:
        """Bytes used by the database's pages (the file, not counting the WAL)."""
        count = self._rows("PRAGMA page_count")[0][0]
        size = self._rows("PRAGMA page_size")[0][0]
        return count * size

    # plumbing

    def _rows(self, sql: str, args: tuple = ()) -> list:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path} is damaged: {error}") from None

    def _transaction(self):
        return _Transaction(self)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (KeyboardInterrupt
    included); a transaction left open by an interrupt is rolled back first."""

    def __init__(self, store: Store):
        self.store = store

    def __enter__(self):
        db = self.store.db
        try:
            if db.in_transaction:
                db.execute("ROLLBACK")
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"cannot write to {self.store.path}: {error}") from None

    def __exit__(self, kind, value, traceback):
        db = self.store.db
        try:
            db.execute("ROLLBACK" if kind else "COMMIT")
        except sqlite3.DatabaseError as error:
            if kind is None:
                raise StoreError(f"cannot write to {self.store.path}: {error}") from None
