"""The front page and a suite's page: its verdict matrix, its distinguishing
and conformance counts under both rules, the filters, the downloads. Pure:
data in, HTML out. Every table lists the verdicts in the pages' order
(`points`); a verdict vector too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from urllib.parse import quote

from progress.core.classify import LATTICE, PAPER, Classification, Column, fairness_split
from progress.models.base import ProgressModel
from progress.web.glossary import model_term, term
from progress.web.html import attr, esc, link, page, table, verdict_cell
from progress.web.points import in_order
from progress.web.suites import Suite, SuiteTest
from progress.web.verdict_view import Links

RULES = {PAPER: "the paper's rule", LATTICE: "the lattice rule"}


def suite_href(suite: Suite) -> str:
    return "/suite/" + quote(suite.name, safe="")


def test_href(suite: Suite, test: SuiteTest) -> str:
    return f"{suite_href(suite)}/test/{quote(test.key, safe='/')}"


def test_links(suite: Suite, test: SuiteTest) -> Links:
    href = test_href(suite, test)
    return Links(href, href + "/view", href + "/picture", {})


def _suites_table(suites: Sequence[Suite]) -> str:
    rows = []
    for s in suites:
        split = fairness_split(s.matrix)
        counts = (
            f"{len(s.tests)} tests: {split['weak']} terminate under weak fair scheduling, {split['strong']} only "
            f"under strong, {split['neither']} under neither"
        )
        about = f"<br>{esc(s.description)}" if s.description else ""
        rows.append(
            [
                f"<b>{link(suite_href(s), s.name)}</b><br>{esc(counts)}<span class=muted>{about}</span>",
                link(suite_href(s) + "/run", "run it on your GPU"),
            ]
        )
    return table(["suite", "WebGPU"], rows, "suites")


def index_page(suites: Sequence[Suite], runs: int, devices: int) -> str:
    """The front page: what the tool does, where to start, the suites."""
    lead = (
        "Will a concurrent test, or a GPU compute kernel, terminate when a GPU schedules it? "
        f"It depends on what the scheduler guarantees: its {term('progress model')}. Here every test is "
        "checked under each model, with the run that never ends when there is one, and run on GPUs, "
        "yours included, to see which models a device keeps."
    )
    cards = [
        "<div class=card><h2>Check a test</h2><p>Write a test or a GPU kernel, or start from an example, "
        "and see its verdict under every model. <a href=/playground>Open the playground</a>.</p></div>",
        f"<div class=card><h2>GPU results</h2><p>{runs} run(s) of {devices} device(s), checked against "
        "every model: <a href=/devices>the devices</a>, <a href=/summary>by vendor and browser</a>.</p></div>",
        "<div class=card><h2>Learn the words</h2><p><a href=/glossary>The glossary</a> (HSA, OBE, weak and "
        "strong, conformance...), <a href=/docs/tutorial>the tutorial</a>, <a href=/docs>all the "
        "documentation</a>.</p></div>",
    ]
    if suites:
        listing = (
            "<h2>Suites</h2><p>Each suite's tests were checked under every model when the server started; "
            "its page has the verdicts, the tests that tell models apart, and a runner for your GPU.</p>"
            + _suites_table(suites)
        )
    else:
        listing = (
            "<h2>Suites</h2><p class=note id=no-suites>This server was started without suites. "
            "<code>progress serve --suite DIR</code> serves a folder of <code>.axb</code> tests.</p>"
        )
    return page("GPU forward progress", f"<div class=cards>{''.join(cards)}</div>{listing}", lead=lead)


def classification_table(result: Classification, models: Sequence[ProgressModel]) -> str:
    rows = [
        [model_term(r.model, r.fairness), str(len(r.distinguishing)), str(len(r.conformance))]
        for r in in_order(result.rows, lambda r: (r.model, r.fairness), models)
    ]
    return table(["model / fairness", "distinguishing", "conformance"], rows, "classification")


def vector_words(vector: str, points: Sequence[Column]) -> str:
    """A verdict vector read out: `passes weak: LOBE, fair; strong: every model`."""
    parts = []
    for fairness in ("none", "weak", "strong"):
        cells = [(c.model, v) for c, v in zip(points, vector) if c.fairness == fairness]
        passing = [model for model, v in cells if v == "P"]
        unknown = [model for model, v in cells if v == "?"]
        if fairness == "none":
            parts += [model for model in passing]
            continue
        if cells:
            said = "every model" if len(passing) == len(cells) else ", ".join(passing) or "none"
            parts.append(f"{fairness}: {said}" + (f" (? {', '.join(unknown)})" if unknown else ""))
    return "passes " + "; ".join(parts)


def _filter_form(suite: Suite, vector: str, edge: str) -> str:
    vectors = Counter(suite.vector(i) for i in range(len(suite.tests)))
    options = ["<option value=''>any verdicts</option>"] + [
        f"<option value={attr(v)}{' selected' if v == vector else ''}>"
        f"{esc(vector_words(v, suite.points))} ({n} tests)</option>"
        for v, n in sorted(vectors.items(), key=lambda item: (-item[1], item[0]))
    ]
    edges = ["<option value=''>any lattice edge</option>"] + [
        f"<option value={attr(e.label)}{' selected' if e.label == edge else ''}>"
        f"passes {esc(e.upper.label)}, fails {esc(e.lower.label)} ({len(suite.separated_by(e))})</option>"
        for e in suite.edges
    ]
    return (
        f"<form class='inline filters' method=get action={attr(suite_href(suite))} id=filters>"
        f"<label>{term('verdict vector', 'Verdicts')} <select name=vector id=vector>{''.join(options)}</select></label>"
        f"<label>{term('lattice edge', 'Lattice edge')} <select name=edge id=edge>{''.join(edges)}</select></label>"
        "<button type=submit>Filter</button></form>"
    )


def selected(suite: Suite, vector: str, edge: str) -> tuple[list[int], str | None]:
    """The test indexes the filters keep, and a complaint about a bad filter."""
    chosen = list(range(len(suite.tests)))
    problem = None
    if vector:
        chosen = [i for i in chosen if suite.vector(i) == vector]
    if edge:
        found = suite.edge(edge)
        if found is None:
            problem = f"no lattice edge {edge!r}"
        else:
            keep = set(suite.separated_by(found))
            chosen = [i for i in chosen if i in keep]
    return chosen, problem


def matrix_table(suite: Suite, chosen: Sequence[int]) -> str:
    """Tests x verdicts: unfair, then the models under weak and under strong fairness."""
    groups = [(f, [c for c in suite.points if c.fairness == f]) for f in ("weak", "strong")]
    unfair = [c for c in suite.points if c.fairness == "none"]
    top = "<th rowspan=2>test</th>" + "".join(f"<th rowspan=2>{term(c.model)}</th>" for c in unfair)
    top += "".join(f"<th colspan={len(cols)} class=group>{term(f)}</th>" for f, cols in groups if cols)
    second = "".join(f"<th>{term(c.model)}</th>" for _, cols in groups for c in cols)
    rows = "".join(
        f"<tr><td>{link(test_href(suite, suite.tests[i]), suite.tests[i].key)}</td>"
        + "".join(f"<td>{verdict_cell(ch)}</td>" for ch in suite.vector(i))
        + "</tr>"
        for i in chosen
    )
    head = f"<thead><tr>{top}</tr><tr>{second}</tr></thead>"
    return f"<div class=fit><table class=matrix>{head}<tbody>{rows}</tbody></table></div>"


def suite_page(suite: Suite, vector: str, edge: str, models: Sequence[ProgressModel]) -> str:
    split = fairness_split(suite.matrix)
    chosen, problem = selected(suite, vector, edge)
    href = suite_href(suite)
    downloads = " · ".join(
        [
            link(href + "/matrix.csv", "verdicts (CSV)"),
            link(href + "/matrix.json", "verdicts (JSON)"),
            link(href + "/classification-paper.csv", "counts by the paper's rule (CSV)"),
            link(href + "/classification-lattice.csv", "by the lattice rule (CSV)"),
        ]
    )
    lead = (
        f"{len(suite.tests)} tests: {split['weak']} terminate under {term('weak')} fair scheduling, "
        f"{split['strong']} only under {term('strong')}, {split['neither']} under neither. "
        f"{esc(suite.description)} {link(href + '/run', 'Run this suite on your GPU')}."
    )
    body = [
        f"<p class=muted>suite hash <code>{esc(suite.hash)}</code> · download: {downloads}</p>",
        f"<h2>{term('distinguishing', 'Distinguishing')} and {term('conformance')} tests</h2>",
        "<p>A conformance test of a model terminates under it; a distinguishing one fails every model "
        f"below it too. Two ways to count: {term('the paper' + chr(39) + 's rule')} (the OOPSLA'21 paper's "
        f"Table 4) and {term('the lattice rule')}.</p><div class=columns>",
    ]
    for rule in (PAPER, LATTICE):
        body.append(f"<div><h3>{esc(RULES[rule][0].upper() + RULES[rule][1:])}</h3>")
        body.append(classification_table(suite.classifications[rule], models) + "</div>")
    body.append("</div><h2>Every test's verdicts</h2>")
    body.append(
        "<p class=note><span class=pass>P</span> guaranteed to terminate, <span class=fail>F</span> may not "
        "terminate, <span class=unknown>?</span> inconclusive. An edge keeps the tests that pass its upper "
        "point and fail its lower one.</p>"
    )
    body.append(_filter_form(suite, vector, edge))
    if problem:
        body.append(f"<p class=error>{esc(problem)}</p>")
    body.append(f"<p id=shown>{len(chosen)} of {len(suite.tests)} tests shown</p>")
    body.append(matrix_table(suite, chosen))
    return page(f"Suite {suite.name}", "".join(body), lead=lead)
