"""The pages' data as files: a suite's verdicts and counts (the CLI's own
renderings, `report.tables`, as `progress classify --format csv|json`
writes them), the devices' conformance (`gpu.device_tables.as_json`, as
`progress devices --format json`, and a CSV of the same), a run's results,
the summary by vendor and browser. Pure.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from progress.core.classify import LATTICE, PAPER
from progress.gpu.conform import ModelConformance
from progress.gpu.device_tables import as_json
from progress.gpu.devices import DeviceRow, RunResults
from progress.models.base import ProgressModel
from progress.report.tables import classification_csv, matrix_csv, matrix_json
from progress.web.points import in_order, point_label
from progress.web.runs import RunView, by_vendor_and_browser, tally
from progress.web.suites import Suite

MEDIA = {"csv": "text/csv; charset=utf-8", "json": "application/json"}
SUITE_FILES = ("matrix.csv", "matrix.json", "classification-paper.csv", "classification-lattice.csv")


def suite_file(suite: Suite, name: str, models: Sequence[ProgressModel]) -> tuple[str, str] | None:
    """A suite's file `name` (one of SUITE_FILES) and its media type, or None."""
    if name == "matrix.csv":
        return matrix_csv(suite.matrix), MEDIA["csv"]
    if name == "matrix.json":
        return matrix_json(suite.matrix), MEDIA["json"]
    rules = {"classification-paper.csv": PAPER, "classification-lattice.csv": LATTICE}
    if name in rules:
        return classification_csv(suite.classifications[rules[name]]), MEDIA["csv"]
    return None


def _csv(rows: Sequence[Sequence[object]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def devices_file(runs: Sequence[RunView], models: Sequence[ProgressModel], fmt: str) -> str:
    """Every run's conformance per model: JSON as `progress devices --format
    json` (plus the facts the pages show), or a CSV row per run."""
    if fmt == "json":
        rows = [DeviceRow(r.info, r.models) for r in runs]
        data = as_json(rows, [RunResults(r.info, r.rows, {}) for r in runs])
        for entry, run in zip(data["runs"], runs):
            entry.update(suite=run.suite, software=run.software, partial=run.partial, browser=run.browser)
        return json.dumps(data, indent=2, sort_keys=True) + "\n"
    points = [] if not runs else in_order(runs[0].models, lambda m: (m.model, m.fairness), models)
    head = [
        "run",
        "name",
        "device",
        "backend",
        "suite",
        "tests",
        "software",
        *(point_label(p.model, p.fairness) for p in points),
    ]
    body = []
    for run in runs:
        verdicts = {(m.model, m.fairness): _verdict(m) for m in run.models}
        facts = [run.info.id, run.info.name, run.info.device, run.info.backend, run.suite, len(run.rows), run.software]
        body.append([*facts, *(verdicts.get((p.model, p.fairness), "") for p in points)])
    return _csv([head, *body])


def _verdict(item: ModelConformance) -> str:
    if item.violates:
        return f"violates ({len({t for tests in item.failed.values() for t in tests})})"
    return "consistent" if item.conformance else "untested"


def run_file(run: RunView, fmt: str) -> str:
    """A run's results: `test,plain,rr,chunked` rows, or JSON with the run's facts."""
    heuristics = list(run.info.heuristics)
    if fmt == "csv":
        return _csv(
            [
                ["test", *heuristics],
                *([key, *(cells.get(h, "") for h in heuristics)] for key, cells in run.rows.items()),
            ]
        )
    data = {
        "id": run.info.id,
        "name": run.info.name,
        "device": run.info.device,
        "backend": run.info.backend,
        "date": run.info.date,
        "suite": run.suite,
        "iterations": run.info.iterations,
        "heuristics": heuristics,
        "software": run.software,
        "browser": run.browser,
        "results": run.rows,
    }
    return json.dumps(data, indent=2) + "\n"


def summary_file(runs: Sequence[RunView], models: Sequence[ProgressModel], fmt: str) -> str:
    """The summary by vendor and browser: per group and model, runs violating it of runs judging it."""
    points = [] if not runs else in_order(runs[0].models, lambda m: (m.model, m.fairness), models)
    groups: list[dict[str, Any]] = []
    for (vendor, browser), members in by_vendor_and_browser(runs).items():
        counts = {}
        for p in points:
            count = tally(members, (p.model, p.fairness))
            counts[point_label(p.model, p.fairness)] = {"violating": count.violating, "runs": count.judged}
        devices = sorted({r.info.device for r in members})
        groups.append(
            {"vendor": vendor, "browser": browser, "runs": len(members), "devices": devices, "models": counts}
        )
    if fmt == "json":
        return json.dumps({"groups": groups}, indent=2) + "\n"
    labels = [point_label(p.model, p.fairness) for p in points]
    rows = []
    for g in groups:
        cells = [f"{g['models'][label]['violating']}/{g['models'][label]['runs']}" for label in labels]
        rows.append([g["vendor"], g["browser"], g["runs"], "; ".join(g["devices"]), *cells])
    return _csv([["vendor", "browser", "runs", "devices", *labels], *rows])
