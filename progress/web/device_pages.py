"""The devices' pages: every run's conformance side by side (like `progress
devices`), and a page per device with its runs, their conformance per model
and fairness, and the tests behind every violation. Pure: data in, HTML out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from progress.gpu.conform import ModelConformance
from progress.gpu.results import summary
from progress.web.html import esc, link, page, table

LIST_LIMIT = 40


@dataclass(frozen=True)
class RunView:
    """One stored run with what its pages show: `report` from `gpu.conform`
    over the tests of the run that the suite holds."""

    id: int
    device: str
    suite: str
    source: str
    adapter: dict[str, str]
    settings: dict
    submitted: str
    heuristics: tuple[str, ...]
    rows: dict[str, dict[str, str]]
    report: list[ModelConformance]


def device_href(device: str) -> str:
    return "/device/" + quote(device, safe="")


def _point(item: ModelConformance) -> str:
    return item.model if item.fairness == "none" else f"{item.model}/{item.fairness}"


def _verdict(item: ModelConformance) -> str:
    if item.violates:
        count = len({t for tests in item.failed.values() for t in tests})
        return f"<span class=violates>violates ({count})</span>"
    return "<span class=consistent>consistent</span>"


def matrix(runs: Sequence[RunView], highlight: str | None = None) -> str:
    """Runs x (model, fairness): consistent with, or violates (tests failing)."""
    if not runs:
        return "<p class=note>No runs in the results database yet.</p>"
    points = [_point(item) for item in runs[0].report]
    rows = []
    for run in runs:
        name = f"<b>{esc(run.device)}</b>" if run.device == highlight else esc(run.device)
        cells = {_point(item): _verdict(item) for item in run.report}
        failures = summary(run.heuristics, run.rows)
        rows.append(
            [
                link(device_href(run.device), run.device) if run.device != highlight else name,
                str(run.id),
                esc(run.suite),
                esc(run.source),
                str(len(run.rows)),
            ]
            + [esc(" / ".join(f"{h} {failures[h]}" for h in run.heuristics))]
            + [cells.get(p, "-") for p in points]
        )
    return table(["device", "run", "suite", "source", "tests", "failed per heuristic", *points], rows, "devices")


def devices_page(runs: Sequence[RunView]) -> str:
    body = (
        "<p>Every run in the server's results database: whether the device's results are consistent with each "
        "progress model (no conformance test of the model failed under any heuristic), or violate it "
        "(how many of its conformance tests failed). Finitely many runs can refute a model, never prove it.</p>"
        + matrix(runs)
    )
    return page("Devices", body)


def _run_section(run: RunView) -> str:
    settings = run.settings
    head = (
        f"<h2>Run {run.id}: suite {esc(run.suite)}, {len(run.rows)} tests</h2>"
        f"<p class=muted>{esc(run.source)} · submitted {esc(run.submitted)} · heuristics "
        f"{esc(', '.join(run.heuristics))} · {esc(settings.get('iterations'))} iterations · deadline "
        f"{esc(settings.get('deadline_s'))} s · instances {esc(settings.get('instances'))}</p>"
    )
    rows = [
        [esc(item.model), esc(item.fairness), str(len(item.conformance))]
        + [str(len(item.failed[h])) for h in run.heuristics]
        + [_verdict(item)]
        for item in run.report
    ]
    out = [head, table(["model", "fairness", "conformance tests", *run.heuristics, "verdict"], rows, "conformance")]
    for item in run.report:
        for h in run.heuristics:
            if item.failed[h]:
                shown = ", ".join(item.failed[h][:LIST_LIMIT])
                more = f" (+{len(item.failed[h]) - LIST_LIMIT} more)" if len(item.failed[h]) > LIST_LIMIT else ""
                out.append(f"<p class=note>{esc(_point(item))} failed under {esc(h)}: {esc(shown)}{esc(more)}</p>")
    return "".join(out)


def device_page(device: str, runs: Sequence[RunView], others: Sequence[RunView]) -> str:
    """`runs` are this device's; `others` every run on the same suites, for comparison."""
    adapter = runs[0].adapter if runs else {}
    info = table(["field", "value"], [[esc(k), esc(v)] for k, v in adapter.items() if v]) if adapter else ""
    body = [info]
    body += [_run_section(run) for run in runs]
    body.append("<h2>Next to the other devices on the same suites</h2>")
    body.append(matrix(others, highlight=device))
    return page(f"Device {device}", "".join(body))


def not_found(what: str) -> str:
    return page("Not found", f"<p class=error>{esc(what)}</p><p>{link('/', 'back to the suites')}</p>")
