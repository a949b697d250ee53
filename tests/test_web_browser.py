"""`progress serve` in a real browser: headless Chromium through Playwright,
WebGPU on SwiftShader (tests/browser.py). A missing browser fails the test.

A playground check with its picture (an .axb test, and a GLSL kernel typed
in); a 3-test run of the WebGPU runner end to end, its result in the
database and on the device page; a bad submission refused and shown as
refused; the runner's care for the user: it submits only when asked, with
a short browser name; it keeps a run across reloads, resumes one stopped,
keeps a refused or rate-limited submission to retry or download; it says
at once when there is no WebGPU; its rows link the tests and name the
models a failure violates. A test page's explorer on SwiftShader, its
counts filling in as the iterations end.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from progress.gpu.database import open_database
from tests.browser import BrowserMissing, launch, server
from tests.conftest import progress_command

SUITE = {
    # terminates at once: P under every heuristic, on any device
    "done.axb": "thread 0\n  AXB(x, 0, 1, true, 1)\n",
    # waits forever for x to leave 0: every iteration times out
    "spin.axb": "thread 0\n  AXB(x, 0, 0, false, 0)\n",
    # the paper's 2t2i/2: terminates under (weak) fair only; fails under rr and chunked on some devices
    "pair.axb": "thread 0\n  AXB(m0, 0, 0, true, 0)\nthread 1\n  AXB(m0, 0, 0, true, 1)\n",
}
# the paper's 3t3i/3: guaranteed under HSA, HSA+OBE, LOBE and fair (not OBE); on SwiftShader, chunked with
# 17 instances fails every iteration (tests/test_web_swiftshader.py)
SWIFT = "thread 0\n  AXB(m0, 0, 1, true, 1)\nthread 1\n  AXB(m0, 0, 0, true, 0)\nthread 2\n  AXB(m0, 1, 0, false, 0)\n"
ITERATIONS = 4
RAN = "['finished', 'error'].includes(document.getElementById('status').dataset.state)"
DONE = "['done', 'error', 'refused'].includes(document.getElementById('status').dataset.state)"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("web")
    (root / "small").mkdir()
    for name, text in SUITE.items():
        (root / "small" / name).write_text(text)
    (root / "swift").mkdir()
    (root / "swift" / "3t3i_3.axb").write_text(SWIFT)
    db = root / "results.db"
    suites = ["--suite", str(root / "small"), "--suite", str(root / "swift")]
    with server(progress_command(), [*suites, "--db", str(db)]) as url:
        yield url, db


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        try:
            chromium = launch(playwright)
        except BrowserMissing as missing:
            pytest.fail(str(missing))
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    # Playwright's waits evaluate strings, which the pages' CSP (script-src 'self') forbids
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


def test_playground_check_draws_the_lasso(served, page):
    url, _ = served
    page.goto(f"{url}/playground")
    page.fill("#test", SUITE["pair.axb"])
    page.click("#check")
    page.wait_for_selector("#picture svg")
    verdicts = page.locator("table.verdicts tbody tr")
    assert verdicts.count() == 11
    assert "test=" in page.url  # the test lives in the URL
    assert page.locator("#picture svg g.node").count() >= 3
    assert "back to step" in page.inner_text("#lasso")
    shared = page.url
    page.goto(f"{url}/playground")
    page.goto(shared)  # the link alone brings the same check back
    assert page.input_value("#test") == SUITE["pair.axb"]
    page.fill("#test", "thread 0\n  AXB(x, 0, 7, true, 1)\n")
    page.click("#check")
    assert page.inner_text("#error").startswith("test.axb:2:13: error: target 7 is out of range")


KERNEL = """\
// progress: --workgroups 3
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Lock { uint lock; };
void main() {
    while (atomicExchange(lock, 1u) != 0u) {
    }
    atomicExchange(lock, 0u);
}
"""


@pytest.mark.long
def test_playground_checks_a_typed_glsl_kernel(served, page):
    url, _ = served
    page.goto(f"{url}/playground")
    assert page.locator("#launch").is_hidden()  # AXB: no launch fields
    page.select_option("#lang", "glsl")
    assert page.locator("#launch").is_visible()  # play.js shows them for a kernel
    page.locator("#test").fill("")
    page.locator("#test").press_sequentially(KERNEL)  # typed, key by key
    page.fill("#workgroups", "2")  # overrides the header's 3
    page.click("#check")
    page.wait_for_selector("#picture svg")
    assert page.locator("table.verdicts tbody tr").count() == 11
    assert "launched with 2 workgroups of 1 invocation" in page.inner_text("#result")
    lasso = page.inner_text("#lasso")
    assert "kernel.comp:6" in lasso and "while (atomicExchange(lock, 1u) != 0u) {" in lasso
    assert "back to step" in lasso
    assert page.locator("#picture svg g.node").count() >= 4
    assert "lang=glsl" in page.url and "workgroups=2" in page.url  # the kernel lives in the URL
    shared = page.url
    page.goto(f"{url}/playground")
    page.goto(shared)
    assert page.input_value("#test") == KERNEL
    assert page.input_value("#lang") == "glsl" and page.input_value("#workgroups") == "2"
    page.fill("#test", KERNEL.replace("lock, 0u", "lock, 0.5"))
    page.click("#check")
    assert page.inner_text("#error").startswith("kernel.comp:8:")


def stored_runs(db):
    if not db.exists():
        return []
    with open_database(db) as database:
        return [(info, database.rows(info.id)) for info in database.runs()]


def run_suite(page, url: str, submit: bool = True, suite: str = "small", only: str = "", **fields: str) -> None:
    page.goto(f"{url}/suite/{suite}/run")
    page.wait_for_selector("#start:enabled")  # WebGPU found as the page loaded
    for heuristic in ("plain", "rr", "chunked"):
        if only and heuristic != only:
            page.uncheck(f"input[value={heuristic}]")
    page.fill("#iterations", str(ITERATIONS))
    page.fill("#deadline", "10")
    for name, value in fields.items():
        page.fill(f"#{name}", value)
    page.click("#start")
    page.wait_for_function("document.getElementById('status').dataset.state !== 'idle'")
    start = time.perf_counter()
    assert page.evaluate("1 + 1") == 2  # the tab answers while the suite runs
    assert time.perf_counter() - start < 15  # under a second when the machine is idle
    page.wait_for_function(RAN, timeout=120_000)
    if submit:
        page.click("#submit")  # nothing is sent before
        page.wait_for_function(DONE, timeout=60_000)


def test_a_three_test_run_end_to_end(served, page):
    url, db = served
    before = len(stored_runs(db))
    run_suite(page, url)
    assert page.get_attribute("#status", "data-state") == "done", page.inner_text("#status")
    assert "swiftshader" in page.inner_text("#adapter")
    shown = {
        row[0]: dict(zip(("plain", "rr", "chunked"), row[1:]))
        for row in page.eval_on_selector_all(
            "#log tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
        )
    }
    assert set(shown) == set(SUITE), shown
    assert shown["done.axb"] == {"plain": "P", "rr": "P", "chunked": "P"}
    failed = f"F ({ITERATIONS}/{ITERATIONS})"
    assert shown["spin.axb"] == {"plain": failed, "rr": failed, "chunked": failed}
    runs = stored_runs(db)
    assert len(runs) == before + 1
    info, rows = runs[-1]
    assert rows == shown
    assert info.backend == "webgpu" and "swiftshader" in info.device
    page.click("#device-link")
    page.wait_for_selector("table.conformance")
    main = page.inner_text("main")
    assert f"Run {info.id}: {info.name}" in main and "small, 3 tests" in main
    rows = page.eval_on_selector_all(
        "table.conformance tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )
    assert len(rows) == 10  # every model and fairness but unfair, which has no conformance test
    # where done.axb, which passed, is the only conformance test: no failure seen, but on a software
    # adapter, so never "consistent" as a full run on a GPU would be
    assert all(row[-1] == "(✓)" for row in rows if row[1] == "1")
    assert sum(1 for row in rows if row[1] == "1") == 8  # pair.axb conforms to fair only
    assert "software" in page.inner_text(f"#run-{info.id} h2")


@pytest.mark.long
def test_a_bad_submission_is_refused_and_shown(served, page):
    url, db = served
    before = len(stored_runs(db))

    def tamper(route):
        body = json.loads(route.request.post_data)
        body["results"]["spin.axb"]["rr"] = f"F ({ITERATIONS + 1}/{ITERATIONS})"
        route.continue_(post_data=json.dumps(body))

    page.route("**/api/suite/small/results", tamper)
    run_suite(page, url)
    assert page.get_attribute("#status", "data-state") == "refused", page.inner_text("#status")
    assert "impossible" in page.inner_text("#submitted")
    assert len(stored_runs(db)) == before


@pytest.mark.long
@pytest.mark.slow
def test_nothing_is_sent_unless_asked_and_the_browser_is_named_short(served, page):
    url, db = served
    before = len(stored_runs(db))
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.url.endswith("/results") else None)
    run_suite(page, url, submit=False)
    assert "software adapter" in page.inner_text("#estimate") and page.inner_text("#estimate").startswith("About")
    preview = page.inner_text("#submission")
    assert "browser: Chrome" in preview and "Mozilla" not in page.inner_text("#preview-json")
    page.wait_for_timeout(500)
    assert posted == [] and len(stored_runs(db)) == before  # finished, and nothing sent
    page.fill("#notes", "headless, on SwiftShader")
    page.click("#submit")
    page.wait_for_function(DONE)
    info, _ = stored_runs(db)[-1]
    settings = json.loads(info.settings)
    assert re.fullmatch(r"Chrome \d+ on Linux", settings["browser"]) and settings["notes"] == "headless, on SwiftShader"
    page.click("#device-link")
    assert "Mozilla" not in page.content() and "headless, on SwiftShader" in page.inner_text("main")


@pytest.mark.long
@pytest.mark.slow
def test_a_run_survives_a_reload_and_a_stop(served, page):
    url, db = served
    run_suite(page, url, submit=False)
    page.reload()
    page.wait_for_selector("#review")
    assert "A finished run of 3 tests" in page.inner_text("#saved")
    page.click("#saved-discard")
    page.fill("#iterations", "2")
    page.wait_for_selector("#start:enabled")
    page.click("#start")
    page.click("#stop")  # after the test in flight
    page.wait_for_function("document.getElementById('status').dataset.state === 'stopped'")
    done = int(re.search(r"after (\d+) of 3", page.inner_text("#status")).group(1))
    assert done < 3
    page.reload()
    assert f"{done} tests done" in page.inner_text("#saved")
    page.click("#resume")
    page.wait_for_function(RAN, timeout=120_000)
    assert page.get_attribute("#status", "data-state") == "finished"
    assert page.locator("#log tbody tr").count() == 3


@pytest.mark.long
@pytest.mark.slow
def test_a_rate_limited_submission_is_kept_to_retry_or_download(served, page):
    url, db = served
    before = len(stored_runs(db))
    answers = []

    def once_too_many(route):
        if not answers:
            answers.append(429)
            body = json.dumps({"ok": False, "error": "too many submissions: at most 6 a minute"})
            route.fulfill(status=429, headers={"Retry-After": "1"}, body=body, content_type="application/json")
        else:
            route.continue_()

    page.route("**/api/suite/small/results", once_too_many)
    run_suite(page, url, submit=False)
    page.click("#submit")
    page.wait_for_function("document.getElementById('status').dataset.state === 'refused'")
    assert "too many submissions" in page.inner_text("#submitted") and page.is_disabled("#submit")
    with page.expect_download() as saved:
        page.click("#download-json")
    kept = json.loads(Path(saved.value.path()).read_text())
    assert set(kept["results"]) == set(SUITE)
    page.wait_for_selector("#submit:enabled", timeout=10_000)  # after Retry-After
    page.click("#submit")
    page.wait_for_function(DONE)
    assert page.get_attribute("#status", "data-state") == "done" and len(stored_runs(db)) == before + 1


@pytest.mark.long
def test_no_webgpu_is_said_at_once(served, browser):
    url, _ = served
    context = browser.new_context(bypass_csp=True)
    context.add_init_script("Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined })")
    page = context.new_page()
    page.goto(f"{url}/suite/small/run")
    page.wait_for_function("document.getElementById('status').dataset.state === 'unsupported'")
    assert "This browser has no WebGPU" in page.inner_text("#adapter") and page.is_disabled("#start")
    page.goto(f"{url}/suite/small/test/done.axb")
    page.wait_for_selector("#webgpu.error")
    assert "no WebGPU" in page.inner_text("#webgpu") and page.is_disabled("#explore-start")
    context.close()


@pytest.mark.long
def test_the_runner_links_each_test_and_names_the_models_it_violates(served, page):
    url, _ = served
    run_suite(page, url, submit=False, suite="swift", only="chunked", iterations="3", instances="17", deadline="100")
    row = page.locator("#log tbody tr").first
    assert row.locator("a").get_attribute("href") == "/suite/swift/test/3t3i_3.axb"
    assert row.locator("td").nth(1).inner_text() == "F (3/3)"
    assert (
        row.locator("td").nth(2).inner_text() == "violates HSA/weak, HSA+OBE/weak, LOBE/weak, fair/weak, "
        "HSA/strong, HSA+OBE/strong, LOBE/strong, fair/strong"
    )
    assert "violates (1 of 1 conformance tests failed)" in page.inner_text("#summary")


RECORD_COUNTS = """() => {
    window.seen = [];
    const watch = { subtree: true, childList: true, characterData: true };
    new MutationObserver(() => {
        const done = document.querySelector('#explore-results .done');
        if (done && window.seen[window.seen.length - 1] !== done.textContent) window.seen.push(done.textContent);
    }).observe(document.getElementById('explore-results'), watch);
}"""
"""Records every count of iterations the explorer shows, in order."""


@pytest.mark.long
def test_the_explorer_runs_a_test_on_swiftshader_filling_in_the_counts(served, page):
    url, _ = served
    page.goto(f"{url}/suite/swift/test/3t3i_3.axb")
    page.wait_for_selector("#explore-start:enabled")
    page.select_option("#explore-preset", "stress")
    assert page.input_value("#explore-iterations") == "100"
    page.uncheck("#explore-settings input[value=plain]")
    page.uncheck("#explore-settings input[value=rr]")
    assert page.input_value("#explore-preset") == "custom"
    page.fill("#explore-iterations", "4")
    page.fill("#explore-instances", "17")
    page.fill("#explore-deadline", "50")
    page.evaluate(RECORD_COUNTS)
    page.click("#explore-start")
    page.wait_for_function(
        "['done', 'error'].includes(document.getElementById('explorer').dataset.state)", timeout=60_000
    )
    assert page.get_attribute("#explorer", "data-state") == "done", page.inner_text("#explore-meaning")
    assert page.evaluate("window.seen") == ["0 / 4", "1 / 4", "2 / 4", "3 / 4", "4 / 4"]  # live, one by one
    assert page.inner_text("#explore-results .cell") == "F (4/4)"
    assert page.inner_text("#explore-results .workgroups") == "51"  # 17 instances of 3 threads
    assert page.get_attribute("#explore-results .workgroups", "title") == "17 instances of 3 threads"
    assert "this device violates HSA/weak" in page.inner_text("#explore-meaning")
