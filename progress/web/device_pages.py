"""The devices' pages: every run's conformance side by side (as `progress
devices`), a page per device (each run's facts, its conformance per model,
the tests behind every violation), and the runs summed up by vendor and
browser. Pure: data in, HTML out.

A run's cell for a model says "violates (k)" when k of the model's
conformance tests failed; "consistent" only for a run of the whole suite
on hardware; on a software adapter or part of the suite, "no failure seen"
in grey; "untested" when the run held none of the model's conformance tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from progress.gpu.conform import ModelConformance
from progress.gpu.devices import scope_of
from progress.gpu.results import summary as failures_by_heuristic
from progress.models.base import ProgressModel
from progress.web.glossary import model_term, term
from progress.web.html import attr, esc, link, page, table
from progress.web.points import in_order, point_label
from progress.web.runs import RunView, by_vendor_and_browser, tally

LIST_LIMIT = 40
JUDGED = ("plain", "rr", "chunked")
"""The heuristics that judge models (gpu.devices.INTER_WORKGROUP): one column each."""


def device_href(device: str) -> str:
    return "/device/" + quote(device, safe="")


def run_anchor(run: RunView) -> str:
    return f"run-{run.info.id}"


def cell(item: ModelConformance, run: RunView) -> str:
    """One run's verdict on one model, as the module's docstring says."""
    label = point_label(item.model, item.fairness)
    if item.violates:
        count = len({t for tests in item.failed.values() for t in tests})
        title = f"violates {label}: {count} of its {len(item.conformance)} conformance tests failed"
        return f"<span class=violates title={attr(title)}>✗ {count}</span>"
    if not item.conformance:
        return f"<span class=untested title={attr('no conformance test of ' + label + ' in this run')}>–</span>"
    if run.weak_evidence:
        why = "a software adapter" if run.software else f"{len(run.rows)} of the suite's {run.size} tests"
        title = f"no failure seen on {len(item.conformance)} conformance tests of {label}, on {why}"
        return f"<span class=unproven title={attr(title)}>(✓)</span>"
    title = f"consistent with {label}: none of its {len(item.conformance)} conformance tests failed"
    return f"<span class=consistent title={attr(title)}>✓</span>"


def tags(run: RunView) -> str:
    found = []
    if scope_of(run.info) == "lane":
        why = "the test's threads ran as lanes of one subgroup: each model M is judged as (fair, fair, M)"
        found.append(f"<span class=tag title={attr(why)}>{term('lane scope', 'lanes')}</span>")
    if run.software:
        found.append(f"<span class=tag>{term('software adapter', 'software')}</span>")
    if run.partial:
        found.append(f"<span class=tag>{len(run.rows)} of {run.size} tests</span>")
    return " ".join(found)


def _run_cell(run: RunView, highlight: str | None) -> str:
    device = run.info.device
    name = f"<b>{esc(device)}</b>" if device == highlight else link(device_href(device), device)
    href = device_href(device) + "#" + run_anchor(run)
    variant = run.info.variant if run.info.variant != "inter-workgroup" else ""
    facts = [run.info.backend, variant, run.info.date[:10] if run.info.date else "", f"{run.info.iterations} it."]
    line = " · ".join(esc(f) for f in facts if f)
    return (
        f"{name}<br><a class=run href={attr(href)}>run {run.info.id}: {esc(run.info.name)}</a><br>"
        f"<span class=muted>{line}</span> {tags(run)}"
    )


def _failures(run: RunView) -> list[str]:
    """Tests that failed (some iteration) under each judging heuristic; - where the run has none."""
    present = tuple(h for h in JUDGED if h in run.info.heuristics)
    counts = failures_by_heuristic(present, run.rows)
    return [str(counts[h]) if h in counts else "-" for h in JUDGED]


def point_heads(
    points: Sequence[ModelConformance], lead: Sequence[str], group: tuple[str, Sequence[str]] | None = None
) -> str:
    """A two-row header: the `lead` columns, a `group` (its title, its columns)
    if given, then the models grouped under weak and strong."""
    weak = [p for p in points if p.fairness == "weak"]
    strong = [p for p in points if p.fairness == "strong"]
    top = "".join(f"<th rowspan=2{' class=who' if i == 0 else ''}>{h}</th>" for i, h in enumerate(lead))
    inner = ""
    if group is not None:
        top += f"<th colspan={len(group[1])} class='group aside'>{group[0]}</th>"
        inner = "".join(f"<th class=aside>{h}</th>" for h in group[1])
    top += f"<th colspan={len(weak)} class=group>{term('weak')}</th>" if weak else ""
    top += f"<th colspan={len(strong)} class=group>{term('strong')}</th>" if strong else ""
    second = "".join(f"<th>{term(p.model)}</th>" for p in weak + strong)
    return f"<thead><tr>{top}</tr><tr>{inner}{second}</tr></thead>"


def _judged(runs: Sequence[RunView], models: Sequence[ProgressModel]) -> list[ModelConformance]:
    """The (model, fairness) points of the runs' verdicts, weak then strong, in the pages' order."""
    found = in_order(runs[0].models, lambda m: (m.model, m.fairness), models)
    return [p for p in found if p.fairness == "weak"] + [p for p in found if p.fairness == "strong"]


def matrix(runs: Sequence[RunView], models: Sequence[ProgressModel], highlight: str | None = None) -> str:
    """Runs x (model, fairness), grouped under weak and strong; tests failed per heuristic."""
    if not runs:
        return "<p class=note>No runs in the results database yet.</p>"
    points = _judged(runs, models)
    head = point_heads(points, ["device and run", "tests"], ("tests failed under", [term(h) for h in JUDGED]))
    body = []
    for run in runs:
        cells = {(m.model, m.fairness): cell(m, run) for m in run.models}
        tests = f"{esc(run.tests)}<br><span class=muted>{esc(run.suite)}</span>"
        aside = "".join(f"<td class=aside>{c}</td>" for c in _failures(run))
        verdicts = "".join(f"<td>{cells.get((p.model, p.fairness), '-')}</td>" for p in points)
        marked = " class=highlight" if run.info.device == highlight else ""
        body.append(f"<tr{marked}><td class=who>{_run_cell(run, highlight)}</td><td>{tests}</td>{aside}{verdicts}</tr>")
    return f"<div class=fit><table class=devices>{head}<tbody>{''.join(body)}</tbody></table></div>"


LEGEND = (
    "<p class=legend><span class=consistent>✓</span> {consistent}: no conformance test of the model failed · "
    "<span class=violates>✗ k</span> {violates}: k of them failed · <span class=unproven>(✓)</span> no failure "
    "seen, but on a {software} or on part of the suite, which says little · <span class=untested>–</span> the "
    "run held none of its conformance tests. Hover a cell for its numbers.</p>"
)


def legend() -> str:
    return LEGEND.format(consistent=term("consistent"), violates=term("violates"), software=term("software adapter"))


def devices_page(runs: Sequence[RunView], models: Sequence[ProgressModel]) -> str:
    lead = (
        "Every run in this server's results database on a suite it serves, judged against each "
        f"{term('progress model')}: a model is violated when one of its {term('conformance')} tests failed "
        f"on the device under {term('plain')}, {term('rr')} or {term('chunked')}. Finitely many runs can "
        "refute a model, never prove it."
    )
    files = f"{link('/devices.csv', 'CSV')} · {link('/devices.json', 'JSON')}"
    downloads = f"Download: {files} · the runs {link('/summary', 'by vendor and browser')}"
    return page("Devices", f"<p class=muted>{downloads}</p>{legend()}{matrix(runs, models)}", lead=lead)


def _facts(run: RunView) -> list[tuple[str, str]]:
    info, settings = run.info, run.settings
    facts = [
        ("suite", f"{run.suite}, {run.tests} tests"),
        ("backend", info.backend),
        ("driver", info.driver),
        ("date", info.date),
        ("launch", info.variant),
        ("heuristics", ", ".join(info.heuristics)),
        ("iterations", str(info.iterations)),
        ("browser", run.browser),
        ("vendor", run.vendor),
        ("kind", "software adapter" if run.software else "hardware"),
    ]
    deadline = settings.get("deadline_s")
    if isinstance(deadline, int | float):
        facts.append(("deadline", f"{deadline * 1000:g} ms"))
    instances = settings.get("instances")
    if isinstance(instances, int | str):
        facts.append(("instances", str(instances)))
    if info.source:
        facts.append(("imported from", info.source.replace("\\", "/").rsplit("/", 1)[-1]))
    if run.notes:
        facts.append(("notes", run.notes))
    return [(k, v) for k, v in facts if v]


def _run_section(run: RunView, models: Sequence[ProgressModel]) -> str:
    """A run's facts beside its conformance per model, then the tests behind every violation."""
    info = run.info
    ordered = in_order(run.models, lambda m: (m.model, m.fairness), models)
    rows = [
        [model_term(item.model, item.fairness), str(len(item.conformance))]
        + [str(len(item.failed.get(h, ()))) for h in info.heuristics]
        + [cell(item, run)]
        for item in ordered
    ]
    heads = ["model / fairness", "conformance tests", *(f"failed: {h}" for h in info.heuristics), ""]
    facts = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in _facts(run))
    downloads = f"{link(f'/run/{info.id}.csv', 'CSV')} · {link(f'/run/{info.id}.json', 'JSON')}"
    out = [
        f"<section class=run id={attr(run_anchor(run))}><h2>Run {info.id}: {esc(info.name)} {tags(run)}</h2>",
        f"<div class=columns><div><dl class=facts>{facts}</dl><p class=muted>Its results: {downloads}</p></div>",
        f"{table(heads, rows, 'conformance')}</div>",
        _violations(run, ordered),
    ]
    return "".join(out) + "</section>"


def _violations(run: RunView, ordered: Sequence[ModelConformance]) -> str:
    lists = []
    for item in ordered:
        for h, tests in item.failed.items():
            if tests:
                shown = ", ".join(link(f"/suite/{quote(run.suite)}/test/{quote(t)}", t) for t in tests[:LIST_LIMIT])
                more = f" (+{len(tests) - LIST_LIMIT} more)" if len(tests) > LIST_LIMIT else ""
                point = esc(point_label(item.model, item.fairness))
                lists.append(f"<p class=note>{point} failed under {esc(h)}: {shown}{esc(more)}</p>")
    if not lists:
        return ""
    return f"<details><summary>The tests behind every violation</summary>{''.join(lists)}</details>"


def device_page(
    device: str, runs: Sequence[RunView], others: Sequence[RunView], models: Sequence[ProgressModel]
) -> str:
    """`runs` are this device's; `others` every run on the same suites, for comparison."""
    body = [legend()]
    body += [_run_section(run, models) for run in runs]
    body.append("<h2>Next to the other devices on the same suites</h2>")
    body.append(matrix(others, models, highlight=device))
    lead = f"{len(runs)} run(s) of this device in the results database."
    return page(f"Device {device}", "".join(body), lead=lead)


def summary_page(runs: Sequence[RunView], models: Sequence[ProgressModel]) -> str:
    """The runs by vendor and browser: how many, and how many violate each model."""
    if not runs:
        return page("Summary by vendor and browser", "<p class=note>No runs in the results database yet.</p>")
    points = _judged(runs, models)
    head = point_heads(points, ["vendor", "browser", "runs", "devices"])
    body = []
    for (vendor, browser), members in by_vendor_and_browser(runs).items():
        devices = sorted({r.info.device for r in members})
        backends = ", ".join(sorted({r.info.backend.lower(): r.info.backend for r in members}.values(), key=str.lower))
        cells = []
        for p in points:
            count = tally(members, (p.model, p.fairness))
            title = f"{count.violating} of {count.judged} runs violate {point_label(p.model, p.fairness)}"
            kind = "violates" if count.violating else "unproven" if count.weak else "consistent"
            shown = f"{count.violating}/{count.judged}"
            cells.append(f"<span class={kind} title={attr(title)}>{shown}</span>" if count.judged else "–")
        listed = "<br>".join(link(device_href(d), d) for d in devices)
        runs_cell = f"{len(members)}<br><span class=muted>{esc(backends)}</span>"
        row = [esc(browser), runs_cell, listed, *cells]
        body.append(f"<tr><td class=who>{esc(vendor)}</td>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    lead = (
        "The stored runs grouped by the GPU's vendor and the browser that ran them (native: a program of its "
        "own, through CUDA, Vulkan or Metal). A cell counts the runs that violate the model out of those that "
        "held any of its conformance tests; grey when all of those ran on a software adapter or on part of "
        "the suite."
    )
    downloads = f"<p class=muted>Download: {link('/summary.csv', 'CSV')} · {link('/summary.json', 'JSON')}</p>"
    rows = "".join(body)
    return page(
        "Summary by vendor and browser",
        f"{downloads}<div class=fit><table class='devices summary'>{head}<tbody>{rows}</tbody></table></div>",
        lead=lead,
    )
