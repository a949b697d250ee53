"""A result submitted by the browser runner, validated before it is stored.

The body is JSON:

    {"suite": NAME, "suite_hash": HEX32, "date": "2026-12-01T20:50:00.000Z" (the run's start, UTC),
     "adapter": {"vendor": .., "architecture": .., "device": .., "description": ..},
     "browser": "Chrome 124 on Linux",   # a user agent is cut down to that before it is stored
     "notes": "...",                # optional: at most 500 characters
     "settings": {"heuristics": [..], "iterations": N, "deadline_s": S, "instances": "auto" | M},
     "calibration": {..},           # optional: what the runner measured, kept as metadata
     "results": {TEST_KEY: {HEURISTIC: "P" | "F (k/N)", ...}, ...}}

Refused, with the reason: not JSON or not that shape, an unknown suite, a
suite hash other than the server's (another or an edited suite), a test that
is not in the suite, a row without a cell per heuristic (or with others), a
cell that is neither `P` nor `F (k/N)`, an impossible count (k = 0, k > N,
or N other than the iterations run). `to_run` then makes it the results
database's `Run` through `records.submitted_run`, which checks it again by
the rules of every stored run. Pure: bytes in, a Run or Refused out.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from progress.errors import ProgressError
from progress.gpu import records
from progress.gpu.heuristics import HEURISTICS
from progress.gpu.results import parse_cell
from progress.gpu.runner import MAX_INSTANCES, MAX_ITERATIONS, Settings, check_settings
from progress.web.runs import browser_summary
from progress.web.suites import Suite

ADAPTER_FIELDS = ("vendor", "architecture", "device", "description")
MAX_TEXT = records.MAX_TEXT
"""The longest adapter field or browser string kept."""
MAX_NOTES = 500
"""The longest notes a submission may carry (line ends allowed)."""
MAX_SETTINGS = 10 * records.MAX_TEXT
"""The database keeps a run's settings (here with the browser and calibration) as at most this much JSON."""
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")
BACKEND = "webgpu"


class Refused(ProgressError):
    """A submission the server will not store; the message says why (HTTP 400)."""


@dataclass(frozen=True)
class Submission:
    suite: str
    suite_hash: str
    date: str
    adapter: dict[str, str]
    browser: str
    """The browser's family, version and system (`runs.browser_summary`): never a whole user agent."""
    settings: Settings
    calibration: dict[str, Any]
    results: dict[str, dict[str, str]]
    notes: str = ""

    @property
    def device(self) -> str:
        """The device's name as its page shows it: vendor, architecture, device."""
        parts = [self.adapter[f] for f in ("vendor", "architecture", "device") if self.adapter.get(f)]
        return (" ".join(parts) or "unknown adapter")[:MAX_TEXT]


def parse_submission(body: bytes, suites: Mapping[str, Suite], address: str) -> Submission:
    """The validated submission to suite `address` (the URL's), or Refused
    naming the first problem found."""
    data = _json(body)
    named = _text(data, "suite")
    if named != address:
        raise Refused(f"results of suite {named!r} were sent to suite {address}'s address")
    suite = suites.get(named)
    if suite is None:
        raise Refused(f"unknown suite {data['suite']!r}; this server holds {', '.join(sorted(suites)) or 'none'}")
    claimed = _text(data, "suite_hash")
    if claimed != suite.hash:
        raise Refused(
            f"suite hash {claimed!r} is not suite {suite.name}'s ({suite.hash}): "
            "the results are of another or an edited suite"
        )
    date = _text(data, "date")
    if not DATE.match(date):
        raise Refused(f"date: expected the run's start as UTC ISO 8601 (2026-12-01T20:50:00.000Z), not {date!r}")
    settings = _settings(data.get("settings"))
    results = _results(data.get("results"), suite, settings)
    adapter = data.get("adapter")
    if not isinstance(adapter, dict):
        raise Refused("adapter: expected an object with vendor, architecture, device, description")
    calibration = data.get("calibration", {})
    if not isinstance(calibration, dict):
        raise Refused("calibration: expected an object")
    return Submission(
        suite.name,
        suite.hash,
        date,
        {f: _short(adapter.get(f, ""), f"adapter.{f}") for f in ADAPTER_FIELDS},
        browser_summary(_short(data.get("browser", ""), "browser")),
        settings,
        calibration,
        results,
        _notes(data.get("notes", "")),
    )


def _json(body: bytes) -> dict[str, Any]:
    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            twice = next(k for k in keys if keys.count(k) > 1)
            raise Refused(f"the key {twice!r} appears twice in one object")
        return dict(pairs)

    try:
        data = json.loads(body.decode("utf-8"), object_pairs_hook=unique, parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise Refused("the body is not UTF-8") from None
    except json.JSONDecodeError as error:
        raise Refused(f"not JSON: {error.msg} at line {error.lineno} column {error.colno}") from None
    if not isinstance(data, dict):
        raise Refused("expected a JSON object")
    return data


def _no_constant(name: str) -> None:
    raise Refused(f"not JSON: {name} is not a number")


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise Refused(f"{key}: expected a string")
    return value


def _short(value: object, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT or not value.isprintable():
        raise Refused(f"{where}: expected a line of at most {MAX_TEXT} printable characters")
    return value


def _notes(value: object) -> str:
    if not isinstance(value, str) or len(value) > MAX_NOTES or not value.replace("\n", "").isprintable():
        raise Refused(f"notes: expected at most {MAX_NOTES} printable characters (line ends allowed)")
    return value.strip()


def _settings(raw: object) -> Settings:
    if not isinstance(raw, dict):
        raise Refused("settings: expected an object with heuristics, iterations, deadline_s, instances")
    heuristics = raw.get("heuristics")
    if not isinstance(heuristics, list) or not heuristics or any(h not in HEURISTICS for h in heuristics):
        raise Refused(f"settings.heuristics: expected a non-empty list of {', '.join(HEURISTICS)}")
    if len(set(heuristics)) != len(heuristics) or tuple(heuristics) != tuple(h for h in HEURISTICS if h in heuristics):
        raise Refused(f"settings.heuristics: each at most once, in the order {', '.join(HEURISTICS)}")
    iterations, deadline, instances = raw.get("iterations"), raw.get("deadline_s"), raw.get("instances", "auto")
    if not isinstance(iterations, int) or not _integer(iterations, 1, MAX_ITERATIONS):
        raise Refused(f"settings.iterations: expected an integer from 1 to {MAX_ITERATIONS}")
    if isinstance(deadline, bool) or not isinstance(deadline, int | float) or not math.isfinite(deadline):
        raise Refused("settings.deadline_s: expected a number of seconds")
    if instances != "auto" and not _integer(instances, 1, MAX_INSTANCES):
        raise Refused(f'settings.instances: expected "auto" or an integer from 1 to {MAX_INSTANCES}')
    settings = Settings(tuple(heuristics), iterations, float(deadline), None if instances == "auto" else instances)
    try:
        check_settings(settings)
    except ValueError as error:
        raise Refused(f"settings: {error}") from None
    return settings


def _integer(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _results(raw: object, suite: Suite, settings: Settings) -> dict[str, dict[str, str]]:
    if not isinstance(raw, dict) or not raw:
        raise Refused("results: expected a non-empty object, test key -> {heuristic: cell}")
    wanted = set(settings.heuristics)
    results = {}
    for key, cells in raw.items():
        if suite.test(key) is None:
            raise Refused(f"results: test {key!r} is not in suite {suite.name}")
        if not isinstance(cells, dict) or set(cells) != wanted:
            raise Refused(f"results[{key!r}]: expected one cell for each of {', '.join(settings.heuristics)}")
        for heuristic in settings.heuristics:
            _check_cell(key, heuristic, cells[heuristic], settings.iterations)
        results[key] = {h: cells[h] for h in settings.heuristics}
    order = {t.key: i for i, t in enumerate(suite.tests)}
    return dict(sorted(results.items(), key=lambda item: order[item[0]]))


def _check_cell(key: str, heuristic: str, value: object, iterations: int) -> None:
    where = f"results[{key!r}][{heuristic!r}]"
    if not isinstance(value, str):
        raise Refused(f"{where}: expected P or F (k/N), not {value!r}")
    try:
        counts = parse_cell(value)
    except ValueError as error:
        raise Refused(f"{where}: {error}") from None
    if value != value.strip():
        raise Refused(f"{where}: {value!r} has spaces around it")
    if counts is None:
        return
    failed, total = counts
    if total != iterations:
        raise Refused(f"{where}: {value} counts {total} iterations, but {iterations} ran")
    if not 1 <= failed <= total:
        raise Refused(f"{where}: {value} is impossible: k failed iterations are from 1 to N")


def to_run(submission: Submission, suite: Suite) -> records.Run:
    """The results database's Run of a validated submission (checked again by
    `records.submitted_run`); Refused if it breaks a rule of stored runs."""
    s = submission.settings
    settings = {
        "deadline_s": s.deadline_s,
        "instances": "auto" if s.instances is None else s.instances,
        "browser": submission.browser,
        "adapter": {k: v for k, v in submission.adapter.items() if v},
        "calibration": submission.calibration,
    }
    if submission.notes:
        settings["notes"] = submission.notes
    if len(json.dumps(settings, sort_keys=True)) > MAX_SETTINGS:
        raise Refused(
            f"settings, browser, adapter, calibration and notes together exceed {MAX_SETTINGS} characters of JSON"
        )
    header = {
        "name": f"{submission.device} {BACKEND} {submission.date}",
        "device": submission.device,
        "backend": BACKEND,
        "driver": submission.adapter.get("description", ""),
        "date": submission.date,
        "variant": "inter-workgroup",
        "heuristics": list(s.heuristics),
        "iterations": s.iterations,
        "settings": settings,
    }
    try:
        return records.submitted_run(suite.record, submission.suite_hash, header, submission.results)
    except ValueError as error:
        raise Refused(str(error)) from None
