"""A device run as data: its suite, its header, its cells, and the checks a run must pass.

A *suite* is a set of tests named by key (`2t2i/0.axb`), each with its
canonical hash and canonical AXB text (progress/core/canonical.py); its hash
names it. A *run* is one device's results on some tests of a suite: the
device, backend, driver, date, settings, and per test and heuristic a *cell*,
k failed iterations of N. `check_run` is every rule a run must meet before it
is stored (also the validation of a run submitted from elsewhere, through
`submitted_run`); `content_hash` recognises the same run imported twice.
Pure: no files, no database.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from progress.core.canonical import canonical_text, hash_of_text
from progress.core.program import Program
from progress.gpu.results import parse_cell

HEURISTIC_NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
"""A heuristic is named in lower case: plain, rr, chunked, or a variant such as plain-wg4-same-subgroup."""
MAX_ITERATIONS = 2**31 - 1
"""The most iterations a cell may count (the runner's C `int`)."""
MAX_TEXT = 200
"""The longest device, backend, driver, date or name accepted."""


@dataclass(frozen=True)
class SuiteTest:
    key: str
    hash: str
    text: str  # canonical AXB text


@dataclass(frozen=True)
class Suite:
    """Tests by key, in key order. `programs` (the programs as read, not
    stored) let an importer check a run's inputs digest."""

    name: str
    tests: tuple[SuiteTest, ...]
    programs: Mapping[str, Program] = field(default_factory=dict, compare=False, repr=False)

    @property
    def hash(self) -> str:
        digest = hashlib.sha256()
        for test in self.tests:
            digest.update(f"{test.key}\0{test.hash}\n".encode())
        return digest.hexdigest()[:32]

    def by_key(self) -> dict[str, SuiteTest]:
        return {test.key: test for test in self.tests}


def suite_of(name: str, tests: Iterable[tuple[str, Program]]) -> Suite:
    """The suite of these (key, program) pairs; a key given twice for different tests is a ValueError."""
    programs: dict[str, Program] = {}
    for key, program in tests:
        if key in programs and canonical_text(programs[key]) != canonical_text(program):
            raise ValueError(f"the key {key} names two different tests")
        programs[key] = program
    entries = []
    for key in sorted(programs):
        text = canonical_text(programs[key])
        entries.append(SuiteTest(key, hash_of_text(text), text))
    return Suite(name, tuple(entries), programs)


@dataclass(frozen=True)
class Cell:
    """Test `key` under `heuristic`: `failed` of `iterations` iterations failed."""

    key: str
    heuristic: str
    failed: int
    iterations: int

    @property
    def text(self) -> str:
        return "P" if self.failed == 0 else f"F ({self.failed}/{self.iterations})"


@dataclass(frozen=True)
class Run:
    """One device run. `cells` are in run order (test by test, heuristics in
    `heuristics` order); `settings` is JSON text (deadline, instances...)."""

    name: str
    device: str
    backend: str
    driver: str
    date: str
    variant: str
    heuristics: tuple[str, ...]
    iterations: int
    settings: str
    suite: Suite
    cells: tuple[Cell, ...]
    source: str = field(default="", compare=False)

    def keys(self) -> list[str]:
        return list(dict.fromkeys(cell.key for cell in self.cells))

    def rows(self) -> dict[str, dict[str, str]]:
        """{key: {heuristic: `P` or `F (k/N)`}}, as `results.parse_csv` gives them."""
        rows: dict[str, dict[str, str]] = {}
        for cell in self.cells:
            rows.setdefault(cell.key, {})[cell.heuristic] = cell.text
        return rows


def content_hash(run: Run) -> str:
    """What makes a run the same run: device, backend, driver, date, variant,
    settings and every cell with its test's canonical hash (not its name,
    the file it came from, nor which suite around it was named)."""
    hashes = run.suite.by_key()
    body = {
        "header": list(_header(run)[1:]),  # not the name: a label, which a second import may change
        "heuristics": list(run.heuristics),
        "iterations": run.iterations,
        "settings": json.loads(run.settings),
        "cells": sorted([c.key, hashes[c.key].hash, c.heuristic, c.failed, c.iterations] for c in run.cells),
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:32]


def check_run(run: Run) -> None:
    """ValueError with the reason unless: the header is short printable text,
    the heuristics are named and distinct, every cell is a test of the suite
    under one of the heuristics with 0 <= k <= N = the run's iterations, and
    every test has exactly one cell per heuristic."""
    for label, value in (("name", run.name), ("device", run.device), ("backend", run.backend)):
        if not value.strip():
            raise ValueError(f"the run has no {label}")
    for label, value in zip(("name", "device", "backend", "driver", "date", "variant"), _header(run)):
        if len(value) > MAX_TEXT or not value.isprintable():
            raise ValueError(f"the run's {label} is not a line of at most {MAX_TEXT} printable characters")
    if not run.heuristics or len(set(run.heuristics)) != len(run.heuristics):
        raise ValueError(f"the heuristics {', '.join(run.heuristics) or '(none)'} are not distinct names")
    for heuristic in run.heuristics:
        if not HEURISTIC_NAME.match(heuristic):
            raise ValueError(f"{heuristic!r} is not a heuristic name (lower case letters, digits and -)")
    if not 1 <= run.iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be from 1 to {MAX_ITERATIONS}, not {run.iterations}")
    if not run.cells:
        raise ValueError("the run has no results")
    tests = run.suite.by_key()
    seen: dict[str, set[str]] = {}
    for cell in run.cells:
        check_cell(cell, run, tests)
        heuristics = seen.setdefault(cell.key, set())
        if cell.heuristic in heuristics:
            raise ValueError(f"{cell.key} has two results under {cell.heuristic}")
        heuristics.add(cell.heuristic)
    for key, heuristics in seen.items():
        if len(heuristics) != len(run.heuristics):
            missing = [h for h in run.heuristics if h not in heuristics]
            raise ValueError(f"{key} has no result under {', '.join(missing)}")


def _header(run: Run) -> tuple[str, ...]:
    return (run.name, run.device, run.backend, run.driver, run.date, run.variant)


def check_cell(cell: Cell, run: Run, tests: Mapping[str, SuiteTest]) -> None:
    if cell.key not in tests:
        raise ValueError(f"{cell.key} is not a test of the suite {run.suite.name} ({run.suite.hash})")
    if cell.heuristic not in run.heuristics:
        raise ValueError(f"{cell.key}: {cell.heuristic} is not one of the run's heuristics")
    if cell.iterations != run.iterations:
        raise ValueError(f"{cell.key} {cell.heuristic}: {cell.iterations} iterations, the run has {run.iterations}")
    if not 0 <= cell.failed <= cell.iterations:
        raise ValueError(f"{cell.key} {cell.heuristic}: {cell.failed} of {cell.iterations} iterations cannot fail")


def submitted_run(suite: Suite, claimed_suite: str, header: Mapping[str, object], rows: Mapping[str, Any]) -> Run:
    """A run sent by someone else (a browser): `header` holds name, device,
    backend, driver, date, variant, heuristics, iterations and settings,
    `rows` {key: {heuristic: cell text}}. ValueError with the reason if the
    suite hash is not `suite`'s, a cell is malformed or impossible, or any
    rule of `check_run` fails."""
    if claimed_suite != suite.hash:
        raise ValueError(f"the run is of suite {claimed_suite!r}, not of {suite.name} ({suite.hash})")
    heuristics = header.get("heuristics")
    iterations = header.get("iterations")
    if not isinstance(heuristics, list) or not all(isinstance(h, str) for h in heuristics):
        raise ValueError("heuristics must be a list of names")
    if not isinstance(iterations, int) or isinstance(iterations, bool):
        raise ValueError("iterations must be a whole number")
    if not isinstance(rows, Mapping) or not all(isinstance(v, Mapping) for v in rows.values()):
        raise ValueError("results must map each test to {heuristic: cell}")
    cells = []
    for key, row in rows.items():
        for heuristic in heuristics:
            text = row.get(heuristic)
            if not isinstance(text, str):
                raise ValueError(f"{key} has no result under {heuristic}")
            try:
                parsed = parse_cell(text)
            except ValueError as error:
                raise ValueError(f"{key} {heuristic}: {error}") from None
            failed, total = parsed if parsed is not None else (0, iterations)
            cells.append(Cell(str(key), heuristic, failed, total))
        extra = set(row) - set(heuristics)
        if extra:
            raise ValueError(
                f"{key} has results under {', '.join(sorted(map(str, extra)))}, not a heuristic of the run"
            )
    settings = header.get("settings", {})
    if not isinstance(settings, dict) or len(json.dumps(settings)) > 10 * MAX_TEXT:
        raise ValueError("settings must be a small JSON object")
    run = Run(
        name=_text(header, "name"),
        device=_text(header, "device"),
        backend=_text(header, "backend"),
        driver=_text(header, "driver"),
        date=_text(header, "date"),
        variant=_text(header, "variant"),
        heuristics=tuple(heuristics),
        iterations=iterations,
        settings=json.dumps(settings, sort_keys=True),
        suite=suite,
        cells=tuple(cells),
        source="submitted",
    )
    check_run(run)
    return run


def _text(header: Mapping[str, object], name: str) -> str:
    value = header.get(name, "")
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text")
    return value


def inputs_digest(tests: Iterable[tuple[str, Program]]) -> str:
    """The `inputs` field `progress run` writes in its metadata: a digest of
    every key and program, in key order (equal to cli/run.py's `_fingerprint`,
    a test says so)."""
    digest = hashlib.sha256()
    for key, program in sorted(tests, key=lambda test: test[0]):
        digest.update(f"{key}\0{program.to_axb()}\0".encode())
    return digest.hexdigest()[:32]
