"""The suites' pages: the index, a suite's verdict matrix with Table 4 under
both rules and the filters, and a page per test. Pure: data in, HTML out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from urllib.parse import quote

from progress.core.classify import LATTICE, PAPER, Classification, fairness_split
from progress.web.html import attr, esc, link, page, result_cell, table, verdict_cell
from progress.web.suites import Suite, SuiteTest

RULE_TITLES = {PAPER: "the paper's rule (Table 4)", LATTICE: "the lattice rule"}


def suite_href(suite: Suite) -> str:
    return "/suite/" + quote(suite.name, safe="")


def test_href(suite: Suite, test: SuiteTest) -> str:
    return f"{suite_href(suite)}/test/{quote(test.key, safe='/')}"


def index_page(suites: Sequence[Suite], runs: int) -> str:
    rows = [
        [
            link(suite_href(s), s.name),
            str(len(s.tests)),
            f"<code>{esc(s.hash)}</code>",
            link(suite_href(s) + "/run", "run"),
        ]
        for s in suites
    ]
    body = (
        "<p>Suites this server was started with, checked under every progress model. "
        "Run one on this browser's GPU through WebGPU, or write a test in the "
        f"{link('/playground', 'playground')}. {runs} GPU run(s) in the results database "
        f"({link('/devices', 'devices')}).</p>" + table(["suite", "tests", "suite hash", "WebGPU"], rows)
    )
    return page("Suites", body)


def classification_table(result: Classification) -> str:
    rows = [[esc(r.model), esc(r.fairness), str(len(r.distinguishing)), str(len(r.conformance))] for r in result.rows]
    return table(["model", "fairness", "distinguishing", "conformance"], rows, "classification")


def _filter_form(suite: Suite, vector: str, edge: str) -> str:
    vectors = Counter(suite.vector(i) for i in range(len(suite.tests)))
    options = ["<option value=''>any verdict vector</option>"] + [
        f"<option value={attr(v)}{' selected' if v == vector else ''}>{esc(v)} ({n} tests)</option>"
        for v, n in sorted(vectors.items(), key=lambda item: (-item[1], item[0]))
    ]
    edges = ["<option value=''>any lattice edge</option>"] + [
        f"<option value={attr(e.label)}{' selected' if e.label == edge else ''}>"
        f"passes {esc(e.upper.label)}, fails {esc(e.lower.label)} ({len(suite.separated_by(e))})</option>"
        for e in suite.edges
    ]
    return (
        f"<form class=inline method=get action={attr(suite_href(suite))} id=filters>"
        f"<select name=vector id=vector>{''.join(options)}</select>"
        f"<select name=edge id=edge>{''.join(edges)}</select><button type=submit>Filter</button></form>"
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


def suite_page(suite: Suite, vector: str, edge: str) -> str:
    split = fairness_split(suite.matrix)
    chosen, problem = selected(suite, vector, edge)
    head = [c.label for c in suite.matrix.columns]
    rows = [
        [link(test_href(suite, suite.tests[i]), suite.tests[i].key)] + [verdict_cell(ch) for ch in suite.vector(i)]
        for i in chosen
    ]
    body = [
        f"<p>{len(suite.tests)} tests · suite hash <code>{esc(suite.hash)}</code> · "
        f"{split['weak']} weak, {split['strong']} strong, {split['neither']} neither · "
        f"{link(suite_href(suite) + '/run', 'run this suite on your GPU (WebGPU)')}</p>",
        "<div class=columns>",
    ]
    for rule in (PAPER, LATTICE):
        body.append(f"<div><h2>Distinguishing / conformance, {esc(RULE_TITLES[rule])}</h2>")
        body.append(classification_table(suite.classifications[rule]) + "</div>")
    body.append("</div><h2>Verdict matrix</h2>")
    body.append(
        "<p class=note>P guaranteed to terminate, F may not terminate, ? inconclusive; a vector lists the "
        "columns in this order. An edge keeps the tests that pass its upper point and fail its lower one.</p>"
    )
    body.append(_filter_form(suite, vector, edge))
    if problem:
        body.append(f"<p class=error>{esc(problem)}</p>")
    body.append(f"<p id=shown>{len(chosen)} of {len(suite.tests)} tests shown</p>")
    body.append(table(["test", *head], rows, "matrix"))
    return page(f"Suite {suite.name}", "".join(body))


def test_page(
    suite: Suite,
    test: SuiteTest,
    verdicts_html: str,
    view_html: str,
    runs: Sequence[tuple[str, str, int, dict[str, str]]],
) -> str:
    """`runs`: (device name, device href, run id, {heuristic: cell}) per GPU run of the test."""
    rows = [
        [link(href, device), str(run_id)] + [result_cell(cells.get(h, "-")) for h in ("plain", "rr", "chunked")]
        for device, href, run_id, cells in runs
    ]
    gpu = table(["device", "run", "plain", "rr", "chunked"], rows) if rows else "<p class=note>No GPU run yet.</p>"
    body = (
        f"<p>Suite {link(suite_href(suite), suite.name)} · canonical hash <code>{esc(test.hash)}</code> · "
        f"{link('/playground', 'open in the playground', {'test': test.text})}</p>"
        f"<div class=columns><div><h2>Test</h2><pre id=source>{esc(test.text)}</pre>"
        f"<h2>GPU results per device</h2>{gpu}</div><div><h2>Verdicts</h2>{verdicts_html}{view_html}</div></div>"
    )
    return page(f"Test {test.key}", body)


def runner_page(suite: Suite) -> str:
    """The WebGPU runner's controls; `runner.js` does the work."""
    checks = "".join(
        f"<label><input type=checkbox name=heuristic value={attr(h)} checked> {esc(h)}</label>"
        for h in ("plain", "rr", "chunked")
    )
    body = (
        f"<p>Runs suite {link(suite_href(suite), suite.name)} ({len(suite.tests)} tests) on this browser's GPU "
        "through WebGPU: each test's WGSL shader, the same as <code>progress run --backend wgpu</code>, "
        "under the chosen heuristics; every spin charges an iteration budget, so no launch runs past its "
        "deadline and the tab stays responsive. The result (adapter, P / F (k/N) per test and heuristic) "
        "goes to this server's results database.</p>"
        f"<form class=inline id=settings data-suite={attr(suite.name)} data-tests={attr(len(suite.tests))}>"
        f"{checks}<label>iterations <input id=iterations type=number min=1 max=1000 value=20></label>"
        "<label>deadline (ms) <input id=deadline type=number min=1 max=10000 value=50></label>"
        "<label>instances <input id=instances value=auto size=6></label>"
        f"<label>tests <input id=limit type=number min=1 max={len(suite.tests)} value={len(suite.tests)}></label>"
        "<button type=button id=start>Run</button></form>"
        "<div class=card id=adapter>Adapter: not asked yet.</div>"
        "<p id=status data-state=idle>Idle.</p><progress id=bar value=0 max=1></progress>"
        "<div id=submitted></div><div id=log></div>"
    )
    return page(f"Run {suite.name} on this GPU", body, scripts=("runner.js",))
