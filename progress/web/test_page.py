"""A suite test's page: the test explained, its verdicts (one drawn, its
lasso walkable), its results on every stored GPU run, and an explorer that
runs it on the visitor's GPU with the counts filling in live (`explore.js`).
Pure: data in, HTML out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from progress.models.base import ProgressModel
from progress.web.explain import program_words, verdict_words
from progress.web.glossary import term
from progress.web.html import attr, esc, link, page, result_cell
from progress.web.runner_page import presets_form
from progress.web.suite_pages import suite_href, test_href, test_links
from progress.web.suites import Suite, TestView
from progress.web.verdict_view import verdict_table, view_section


@dataclass(frozen=True)
class TestRun:
    """One stored run's cells for the test: the device, the run's name and page, its cells by heuristic."""

    device: str
    run: str
    href: str
    cells: dict[str, str]
    software: bool


def _listing(words: Sequence[str]) -> str:
    return ", ".join(esc(w) for w in words) if words else "none"


def _explained(view: TestView, models: Sequence[ProgressModel]) -> str:
    passes, fails = verdict_words(view.test.report, models)
    sentences = "".join(f"<li>{esc(s)}</li>" for s in program_words(view.test.program))
    return (
        f"<h2>What it does</h2><ul class=explain id=explain>{sentences}</ul>"
        f"<p>{term('guaranteed to terminate', 'Guaranteed to terminate')} under: <b>{_listing(passes)}</b>.<br>"
        f"{term('may not terminate', 'May not terminate')} under: {_listing(fails)}.</p>"
        f"<p>So it is a {term('conformance')} test of {_listing(passes)}: a GPU on which it fails under any "
        f"heuristic does not implement those models (it <em>violates</em> them).</p>"
    )


def _gpu_results(runs: Sequence[TestRun]) -> str:
    if not runs:
        return "<h2>On GPUs</h2><p class=note>No stored run holds this test yet.</p>"
    rows = [
        [
            f"{link(r.href, r.device)}<br><span class=muted>{esc(r.run)}</span>"
            + (" <span class=tag>software</span>" if r.software else ""),
            *(
                result_cell(r.cells[h]) if h in r.cells else "<span class=muted>-</span>"
                for h in ("plain", "rr", "chunked")
            ),
        ]
        for r in runs
    ]
    heads = "<tr><th>device, run</th>" + "".join(f"<th>{term(h)}</th>" for h in ("plain", "rr", "chunked")) + "</tr>"
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return (
        "<h2>On GPUs</h2><p class=note>P: every iteration ended; F (k/N): k of N iterations did not end by "
        f"the deadline.</p><div class=fit><table class=gpu><thead>{heads}</thead><tbody>{body}</tbody></table></div>"
    )


def _explorer(suite: Suite, view: TestView, passes: Sequence[str]) -> str:
    test = view.test
    data = {
        "suite": suite.name,
        "key": test.key,
        "threads": len(test.program.threads),
        "conforms": list(passes),
    }
    return (
        f"<section id=explorer class=card data-test={attr(json.dumps(data))}>"
        "<h2>Run this test on your GPU</h2>"
        "<p>Runs this test's WebGPU shader (the one <code>progress run --backend wgpu</code> runs) on this "
        "browser's GPU: each iteration is one launch, and the counts fill in as they end. Nothing is sent "
        "anywhere.</p><p id=webgpu class=note>This needs JavaScript and WebGPU.</p>"
        f"{presets_form('explore-', len(test.program.threads))}"
        "<div id=explore-results></div><p id=explore-meaning></p></section>"
    )


def test_page(suite: Suite, view: TestView, models: Sequence[ProgressModel], runs: Sequence[TestRun]) -> str:
    test = view.test
    links = test_links(suite, test)
    passes, _ = verdict_words(test.report, models)
    drawing = view.drawing
    lead = (
        f"A test of suite {link(suite_href(suite), suite.name)} · canonical hash <code>{esc(test.hash)}</code> · "
        f"{link('/playground', 'open it in the playground', {'suite': suite.name, 'key': test.key})} · "
        f"<a href={attr(test_href(suite, test) + '.axb')} download>download it</a>"
    )
    left = (
        f"<h2>The test</h2><pre id=source>{esc(test.text)}</pre>{_explained(view, models)}"
        f"{_gpu_results(runs)}{_explorer(suite, view, passes)}"
    )
    right = (
        f"<h2>Verdicts</h2>{verdict_table(test.report, view.view, links, models)}"
        f"{view_section(view.report, view.view, view.svg, drawing.note, drawing.steps, links)}"
    )
    body = f"<div class=columns><div>{left}</div><div>{right}</div></div>"
    return page(f"Test {test.key}", body, ("view.js", "gpu.js", "explore.js"), lead=lead)
