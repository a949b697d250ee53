"""The devices' pages: every run's conformance side by side (like `progress
devices`), and a page per device with its runs, their conformance per model
and fairness, and the tests behind every violation. Pure: data in, HTML out."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from progress.gpu.conform import ModelConformance
from progress.gpu.database import RunInfo
from progress.gpu.results import summary
from progress.web.html import esc, link, page, table

LIST_LIMIT = 40


@dataclass(frozen=True)
class RunView:
    """A stored run, the server's suite it is of, its rows, and its
    conformance per (model, fairness) in `progress devices`' column order."""

    info: RunInfo
    suite: str
    rows: dict[str, dict[str, str]]  # the tests of the run that `suite` holds
    models: tuple[ModelConformance, ...]
    ran: int  # tests the run ran in all

    @property
    def tests(self) -> str:
        return str(len(self.rows)) if self.ran == len(self.rows) else f"{len(self.rows)} of {self.ran}"


def device_href(device: str) -> str:
    return "/device/" + quote(device, safe="")


def _point(item: ModelConformance) -> str:
    return f"{item.model}/{item.fairness}"


def _verdict(item: ModelConformance) -> str:
    if item.violates:
        count = len({t for tests in item.failed.values() for t in tests})
        return f"<span class=violates>violates&nbsp;({count})</span>"
    return "<span class=consistent>consistent</span>"


JUDGED = ("plain", "rr", "chunked")
"""The heuristics that judge models (gpu.devices.INTER_WORKGROUP): one column each."""


def _failures(run: RunView) -> list[str]:
    """Tests that failed (some iteration) under each judging heuristic; - where the run has none."""
    present = tuple(h for h in JUDGED if h in run.info.heuristics)
    counts = summary(present, run.rows)
    return [str(counts[h]) if h in counts else "-" for h in JUDGED]


def matrix(runs: Sequence[RunView], highlight: str | None = None) -> str:
    """Runs x (model, fairness): consistent with, or violates (how many tests failed)."""
    if not runs:
        return "<p class=note>No runs in the results database yet.</p>"
    points = [_point(item) for item in runs[0].models]
    rows = []
    for run in runs:
        device = run.info.device
        name = f"<b>{esc(device)}</b>" if device == highlight else link(device_href(device), device)
        cells = {_point(item): _verdict(item) for item in run.models}
        tests = f"{esc(run.tests)} <span class=muted>{esc(run.suite)}</span>"
        head = [name, str(run.info.id), esc(run.info.backend), tests, *_failures(run)]
        rows.append(head + [cells.get(p, "-") for p in points])
    heads = ["device", "run", "backend", "tests", *(f"{h} F" for h in JUDGED), *points]
    return "<div class=wide>" + table(heads, rows, "devices") + "</div>"


def devices_page(runs: Sequence[RunView]) -> str:
    body = (
        "<p>Every run in the server's results database on a suite it serves: whether the device's results are "
        "consistent with each progress model (no conformance test of the model failed under plain, rr or "
        "chunked), or violate it (how many of its conformance tests failed). Finitely many runs can refute a "
        "model, never prove it.</p>" + matrix(runs)
    )
    return page("Devices", body)


def _settings(info: RunInfo) -> dict[str, object]:
    try:
        found = json.loads(info.settings)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _run_section(run: RunView) -> str:
    info, settings = run.info, _settings(run.info)
    facts = [
        ("backend", info.backend),
        ("driver", info.driver),
        ("date", info.date),
        ("source", info.source),
        ("heuristics", ", ".join(info.heuristics)),
        ("iterations", info.iterations),
    ] + [(k, v if isinstance(v, str | int | float) else json.dumps(v, sort_keys=True)) for k, v in settings.items()]
    rows = [
        [esc(item.model), esc(item.fairness), str(len(item.conformance))]
        + [str(len(item.failed.get(h, ()))) for h in info.heuristics]
        + [_verdict(item)]
        for item in run.models
    ]
    out = [
        f"<h2>Run {info.id} ({esc(info.name)}): suite {esc(run.suite)}, {esc(run.tests)} tests</h2>",
        table(["field", "value"], [[esc(k), esc(v)] for k, v in facts if v not in ("", None)], "run"),
        table(["model", "fairness", "conformance tests", *info.heuristics, "verdict"], rows, "conformance"),
    ]
    lists = []
    for item in run.models:
        for h, tests in item.failed.items():
            if tests:
                shown = ", ".join(tests[:LIST_LIMIT])
                more = f" (+{len(tests) - LIST_LIMIT} more)" if len(tests) > LIST_LIMIT else ""
                lists.append(f"<p class=note>{esc(_point(item))} failed under {esc(h)}: {esc(shown)}{esc(more)}</p>")
    if lists:
        out.append(f"<details><summary>The tests behind every violation</summary>{''.join(lists)}</details>")
    return "".join(out)


def device_page(device: str, runs: Sequence[RunView], others: Sequence[RunView]) -> str:
    """`runs` are this device's; `others` every run on the same suites, for comparison."""
    body = [_run_section(run) for run in runs]
    body.append("<h2>Next to the other devices on the same suites</h2>")
    body.append(matrix(others, highlight=device))
    return page(f"Device {device}", "".join(body))


def not_found(what: str) -> str:
    return page("Not found", f"<p class=error>{esc(what)}</p><p>{link('/', 'back to the suites')}</p>")
