"""`progress serve`'s pages in Chromium, as a new user finds them
(tests/browser.py: Debian's Chromium, headless, through Playwright; one
browser for the module).

The bugs of issue 31: a test under the size limit refused once the form
turned its LFs into CRLFs; an oversized test answered by a "Not found" page
that lost the text; the runs of one device indistinguishable on /devices.
Then the layout (no page scrolls sideways at 1280 or 390 px; the devices
table fits 1280 px; the editor and lasso boxes cut no text), the feedback
(a running indicator, no double submit, a "draw" that does not re-check,
the `# expect:` line compared), the docs served, one order of the verdicts,
and a real 404 page.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from progress.core.registry import all_models
from progress.front.axb.parse import parse_program
from progress.gpu import records
from progress.gpu.database import open_database
from progress.web.limits import Limits
from progress.web.suites import build_suite
from tests.browser import BrowserMissing, launch, server
from tests.conftest import REPO, progress_command

SUITE = {
    "done.axb": "thread 0\n  AXB(x, 0, 1, true, 1)\n",
    "spin.axb": "thread 0\n  AXB(x, 0, 0, false, 0)\n",
    "pair.axb": "thread 0\n  AXB(m0, 0, 0, true, 0)\nthread 1\n  AXB(m0, 0, 0, true, 1)\n",
}
LIMIT = Limits().max_test_bytes
TAS = (REPO / "litmus" / "kernels" / "tas_spinlock.comp").read_text()
MUTEX = """\
test mutex
thread 0
  AXB(m, 1, 0, true, 1)
  AXB(m, 0, end, true, 0)
thread 1
  AXB(m, 1, 0, true, 1)
  AXB(m, 0, 2, true, 0)
"""
RUNS = [
    # two runs of one device, as the paper's four "Quadro RTX 4000" runs are
    ("rtx4k", "2026-01-05T10:00:00.000Z", {"done.axb": "P", "spin.axb": "F (4/4)", "pair.axb": "P"}),
    ("rtx4k-coop", "2026-01-06T10:00:00.000Z", {"done.axb": "F (1/4)", "spin.axb": "F (4/4)", "pair.axb": "P"}),
]


def long_test(size: int) -> str:
    """The mutex padded with comment lines to `size` bytes (LF line ends)."""
    line = "# " + "x" * 29 + "\n"  # 32 bytes a line: a CRLF form adds one byte per line
    padding = (size - len(MUTEX)) // len(line)
    text = line * padding + MUTEX
    return "#" * (size - len(text) - 1) + "\n" + text if size > len(text) else text


SERVER_PATH = "/srv/progress/results/quadro"


def store_runs(db, root) -> None:
    entries = [(key, text, parse_program(text, key)) for key, text in SUITE.items()]
    suite = build_suite("small", entries, all_models(), 10_000)
    runs = []
    for name, date, cells in RUNS:
        header = {
            "name": name,
            "device": "Quadro RTX 4000",
            "backend": "CUDA",
            "driver": "",
            "date": date,
            "variant": "inter-workgroup",
            "heuristics": ["plain"],
            "iterations": 4,
            "settings": {"deadline_s": 0.05, "calibration": {"loop_cap": None}},
        }
        rows = {key: {"plain": cell} for key, cell in cells.items()}
        run = records.submitted_run(suite.record, suite.hash, header, rows)
        runs.append(dataclasses.replace(run, source=f"{SERVER_PATH}/{name}.csv"))  # as `results import` keeps it
    with open_database(db, writable=True) as database:
        database.import_runs(runs)


LONG = "separating/lattice/HSA+OBE-strong--HSA+OBE-weak-and-a-name-as-long-as-litmus-has.axb"
"""A test whose key is as long as litmus/'s (their suite page scrolled sideways at 1280 px)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages")
    (root / "small").mkdir()
    for name, text in SUITE.items():
        (root / "small" / name).write_text(text)
    long = root / "litmus" / LONG
    long.parent.mkdir(parents=True)
    long.write_text(SUITE["pair.axb"])
    db = root / "results.db"
    store_runs(db, root)
    suites = ["--suite", str(root / "small"), "--suite", str(root / "litmus")]
    with server(progress_command(), [*suites, "--db", str(db)]) as url:
        yield url


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
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


# -- the bugs -----------------------------------------------------------------


@pytest.mark.long
def test_a_test_under_the_limit_is_checked_from_the_form(served, page):
    text = long_test(16_083)
    assert len(text.encode()) == 16_083 and text.count("\n") > LIMIT - 16_083  # CRLF would take it past the limit
    page.goto(f"{served}/playground")
    page.fill("#test", text)
    page.click("#check")
    page.wait_for_selector("table.verdicts")
    assert page.locator("table.verdicts tbody tr").count() == 11
    assert page.locator(".error").count() == 0
    assert page.input_value("#test") == text


@pytest.mark.long
def test_an_oversized_test_is_refused_in_the_playground_keeping_the_text(served, page):
    text = long_test(LIMIT + 500)
    page.goto(f"{served}/playground")
    page.fill("#test", text)
    page.click("#check")
    page.wait_for_selector("#error")
    assert page.title().startswith("Playground")
    assert f"{LIMIT + 500} bytes" in page.inner_text("#error") and str(LIMIT) in page.inner_text("#error")
    assert page.input_value("#test") == text


def test_a_device_page_shows_no_server_path_nor_raw_json(served, page):
    page.goto(f"{served}/device/" + quote("Quadro RTX 4000"))
    shown = page.inner_text("main")
    assert SERVER_PATH not in page.content() and "rtx4k-coop.csv" in shown  # the file's name only
    assert "{" not in shown, shown[shown.index("{") - 80 :]
    assert re.search(r"deadline\s+50 ms", shown)  # the settings in words


def test_the_runs_of_one_device_are_told_apart_on_devices(served, page):
    page.goto(f"{served}/devices")
    rows = page.locator("table.devices tbody tr")
    assert rows.count() == 2
    texts = [rows.nth(i).locator("td").first.inner_text() for i in range(2)]
    for (name, _, _), shown in zip(RUNS, texts):
        assert "Quadro RTX 4000" in shown and name in shown, texts


# -- the layout -----------------------------------------------------------------

PAGES = [
    "/",
    "/playground?" + urlencode({"test": MUTEX + "# " + "a very long comment " * 12 + "\n", "view": "HSA/weak"}),
    "/suite/small",
    "/suite/litmus",
    "/suite/small/test/pair.axb",
    "/suite/litmus/test/" + LONG,
    "/suite/small/run",
    "/devices",
    "/device/" + quote("Quadro RTX 4000"),
    "/summary",
    "/glossary",
    "/docs/web",
    "/no/such/page",
]


@pytest.mark.parametrize("width", [1280, 390])
def test_no_page_scrolls_sideways(served, browser, width):
    context = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 900})
    page = context.new_page()
    wide = []
    for address in PAGES:
        page.goto(served + address)
        if page.evaluate("document.documentElement.scrollWidth > window.innerWidth"):
            wide.append(address)
    context.close()
    assert wide == []


def test_the_devices_table_fits_1280_px(served, page):
    page.goto(f"{served}/devices")
    table = page.locator("table.devices")
    fits = "t => t.scrollWidth <= t.parentElement.clientWidth && t.getBoundingClientRect().right <= innerWidth"
    assert table.evaluate(fits)
    assert page.locator("table.devices thead th", has_text="fair").count() == 2  # fair/weak and fair/strong shown
    lines = page.eval_on_selector_all(
        "table.devices td.who > a:first-child", "as => as.map(a => a.getClientRects().length)"
    )
    assert lines and max(lines) <= 2  # a device's name on at most two lines


@pytest.mark.long
def test_the_editor_and_the_lasso_cut_no_text(served, page):
    spin = "    while (atomicExchange(lock, 1u) != 0u) {"
    long_line = spin + "  // " + "this comment goes on and on " * 6
    text = TAS.replace(spin, long_line)
    page.goto(f"{served}/playground?" + urlencode({"lang": "glsl", "test": text, "view": "HSA/weak"}))
    overflow = "e => e.scrollWidth - e.clientWidth"
    assert page.locator("#test").evaluate(overflow) <= 0  # the editor wraps
    assert page.locator("#lasso").evaluate(overflow) <= 0  # the lasso wraps
    assert " ".join(long_line.split()) in " ".join(page.inner_text("#lasso").split())  # all of it, wrapped


@pytest.mark.long
def test_the_picture_zooms_and_is_downloaded_whole(served, page):
    page.goto(f"{served}/playground?" + urlencode({"example": "ticket_lock", "view": "LOBE/weak"}))  # 128 states
    svg = page.locator("#picture svg")
    box = page.locator("#picture")
    width = svg.evaluate("s => s.getBoundingClientRect().width")
    page.click("#picture-tools button[data-zoom=in]")
    assert svg.evaluate("s => s.getBoundingClientRect().width") > width
    page.click("#picture-tools button[data-zoom=fit]")
    assert svg.evaluate("s => s.getBoundingClientRect().width") <= box.evaluate("b => b.clientWidth")
    assert box.evaluate("b => b.scrollHeight <= b.clientHeight + 1")  # fitted, nothing cut at the bottom
    full = page.request.get(served + page.get_attribute("#full-size", "href"))
    assert (
        full.ok
        and full.headers["content-type"].startswith("image/svg+xml")
        and full.text().count('class="node"') == 128 + 1
    )  # and the start
    with page.expect_download() as saved:
        page.click("#download-dot")
    dot = Path(saved.value.path()).read_text()
    assert dot.startswith("digraph lts {") and dot.count(" [label=") >= 128
    assert saved.value.suggested_filename == "kernel-LOBE-weak.dot"


# -- feedback -------------------------------------------------------------------


@pytest.mark.long
def test_a_check_shows_it_runs_and_a_double_click_checks_once(served, page):
    posts = []
    release = []

    def slow(route):  # hold the check until the indicator has been seen
        posts.append(route.request.post_data)
        release.append(route)

    page.goto(f"{served}/playground")
    page.route("**/playground", lambda route: slow(route) if route.request.method == "POST" else route.continue_())
    page.fill("#test", SUITE["pair.axb"])
    page.dblclick("#check")
    page.wait_for_function("document.getElementById('running').hidden === false")
    assert page.is_disabled("#check") and "Checking" in page.inner_text("#running")
    page.click("#check", force=True)  # a third click while it runs
    page.wait_for_timeout(300)
    assert len(posts) == 1
    release[0].continue_()
    page.wait_for_selector("table.verdicts")
    assert page.is_hidden("#running") and page.is_enabled("#check")
    assert "test=" in page.url  # the address is the check's link


@pytest.mark.long
def test_draw_fetches_one_verdict_not_the_whole_check(served, page):
    page.goto(f"{served}/playground?" + urlencode({"test": MUTEX}))
    asked = []
    page.on("request", lambda r: asked.append(r.url.split("?")[0]) if "/static/" not in r.url else None)
    page.click("table.verdicts a.draw:not(.current) >> nth=0")  # unfair, first in the table
    page.wait_for_function("document.getElementById('view').dataset.view === 'unfair'")
    page.wait_for_selector("#view #picture svg")
    assert page.inner_text("table.verdicts a.draw.current") == "drawn below"
    assert asked == [f"{served}/playground/view"]
    assert "view=unfair" in page.url


@pytest.mark.long
def test_the_expect_line_is_compared_as_the_cli_does(served, page, tmp_path):
    text = MUTEX.replace("test mutex\n", "test mutex\n# expect: unfair F | HSA/weak P | OBE/weak P\n")
    page.goto(f"{served}/playground")
    page.fill("#test", text)
    page.click("#check")
    page.wait_for_selector("#expect")
    (tmp_path / "test.axb").write_text(text)
    done = subprocess.run(
        [*progress_command(), "check", "test.axb", "--expect-header"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 1
    shown = page.inner_text("#expect pre").splitlines()
    assert shown == ["mutex: HSA weak: expected guaranteed to terminate, got may not terminate"]
    assert shown == [line for line in done.stdout.splitlines() if line.startswith("mutex: HSA weak: expected")]
    assert "mismatch" in page.get_attribute("#expect", "class")


@pytest.mark.long
def test_distinct_kernel_states_are_drawn_with_distinct_labels(served, page):
    page.goto(f"{served}/playground?" + urlencode({"lang": "glsl", "test": TAS, "view": "HSA/weak"}))
    labels = page.eval_on_selector_all(
        "#picture g.node",
        "gs => gs.map(g => [...g.querySelectorAll('text')].slice(1).map(t => t.textContent).join('|'))",
    )
    states = [label for label in labels if label]  # the start point has no text
    assert len(states) == 16 and len(set(states)) == 16


def test_walking_the_lasso_lights_its_steps(served, page):
    page.goto(f"{served}/playground?" + urlencode({"test": MUTEX, "view": "HSA/weak"}))
    page.click("#stepper button[data-move=next]")
    page.click("#stepper button[data-move=next]")
    assert page.get_attribute("#lasso .step.current", "data-step") == "1"
    lit = page.eval_on_selector_all("#picture .current", "es => es.map(e => e.id)")
    assert "s_C" in lit and any(name.startswith("e_C_0_C") for name in lit)  # thread 0 spins at C
    assert "in the loop" in page.inner_text("#step-caption")
    page.click("#stepper button[data-move=next]")  # past the end: around the loop again
    assert page.get_attribute("#lasso .step.current", "data-step") == "1"


# -- words ----------------------------------------------------------------------

TERMS = [
    "HSA",
    "OBE",
    "HSA+OBE",
    "LOBE",
    "weak",
    "strong",
    "conformance",
    "distinguishing",
    "the paper's rule",
    "the lattice rule",
    "plain",
    "rr",
    "chunked",
    "F={0}",
]


@pytest.mark.long
def test_the_words_are_defined_and_linked(served, page):
    page.goto(f"{served}/glossary")
    defined = page.eval_on_selector_all("dl.glossary dt", "ds => ds.map(d => d.textContent)")
    assert set(TERMS) <= set(defined)
    for address in ("/playground?example=mutex", "/suite/small", "/devices", "/suite/small/run"):
        page.goto(served + address)
        linked = page.eval_on_selector_all("a.term", "as => as.map(a => [a.textContent, a.title, a.hash])")
        assert linked and all(title and anchor.startswith("#") for _, title, anchor in linked), address
    page.goto(f"{served}/playground")
    page.click("text=the language")
    assert page.url.endswith("/docs/axb") and page.locator("article.doc h2").count() > 2
    links = page.eval_on_selector_all("article.doc a[href]", "as => as.map(a => a.getAttribute('href'))")
    assert not [href for href in links if ".md" in href and "://" not in href]  # links between docs are pages
    page.goto(f"{served}/docs/web")
    page.click("article.doc a[href='devices']")
    assert page.url.endswith("/docs/devices") and page.inner_text("p.lead") == "docs/devices.md"


def orders(page) -> list[list[str]]:
    """The verdicts' order in every verdict or classification table of the page."""
    return page.eval_on_selector_all(
        "table.verdicts, table.classification",
        "tables => tables.map(t => [...t.tBodies[0].rows].map(r => r.cells[0].textContent))",
    )


def header_points(page, klass: str) -> list[str]:
    """A matrix's (model, fairness) columns from its two header rows."""
    return page.eval_on_selector(
        f"table.{klass} thead",
        """head => {
            const fair = (c) => c.classList.contains('group') && c.textContent.match(/weak|strong/);
            const groups = [...head.rows[0].cells].filter(fair);
            const models = [...head.rows[1].cells].filter(c => !c.classList.contains('aside')).map(c => c.textContent);
            const out = []; let i = 0;
            for (const g of groups) for (let k = 0; k < g.colSpan; k++) out.push(models[i++] + '/' + g.textContent);
            return out;
        }""",
    )


def test_every_page_lists_the_verdicts_in_one_order(served, page):
    lattice = ["unfair"] + [f"{m}/{f}" for f in ("weak", "strong") for m in ("HSA", "OBE", "HSA+OBE", "LOBE", "fair")]
    page.goto(f"{served}/playground?example=mutex")
    seen = orders(page)
    page.goto(f"{served}/suite/small")
    seen += orders(page) + [header_points(page, "matrix")]
    page.goto(f"{served}/devices")
    seen += [header_points(page, "devices")]
    page.goto(f"{served}/device/" + quote("Quadro RTX 4000"))
    seen += [
        page.eval_on_selector_all(
            "table.conformance >> nth=0 >> tbody tr td:first-child", "ts => ts.map(t => t.textContent)"
        )
    ]
    page.goto(f"{served}/summary")
    seen += [header_points(page, "summary")]
    assert len(seen) == 7  # the verdicts, two classifications, the suite, devices and summary matrices, a run
    for order in seen:
        assert order == [p for p in lattice if p in order], order


def test_the_verdict_filter_reads_as_words(served, page):
    page.goto(f"{served}/suite/small")
    options = page.eval_on_selector_all("#vector option", "os => os.map(o => o.textContent)")[1:]
    assert options and all(option.startswith("passes ") for option in options)
    assert not any(re.search(r"\b[PF?]{11}\b", option) for option in options)
    page.select_option("#vector", label=next(o for o in options if o.startswith("passes weak: fair;")))
    page.click("#filters button")
    assert page.inner_text("#shown") == "1 of 3 tests shown"  # pair.axb
    assert page.locator("table.matrix tbody tr").count() == 1


@pytest.mark.long
def test_an_inconclusive_check_names_the_bound_to_change(served, page):
    wide = "".join(f"thread {i}\n  AXB(x, 0, 1, true, 1)\n  AXB(y, 0, 2, true, 1)\n" for i in range(40))
    page.goto(f"{served}/playground")
    page.fill("#test", wide)
    page.click("#check")
    said = page.inner_text("#inconclusive")
    bound = Limits().max_state_cells // 42
    assert f"stopped at {bound:,} states" in said and "--max-states" in said and "42" in said
    assert "exit 3" not in page.inner_text("#result")


# -- what herd's and GPUHarbor's users expect --------------------------------------


@pytest.mark.long
def test_a_suite_test_is_loaded_into_the_editor(served, page):
    page.goto(f"{served}/playground")
    page.select_option("#load-suite", "small")
    page.fill("#load-key", "pair.axb")
    page.click("#load button")
    assert page.input_value("#test") == SUITE["pair.axb"]
    assert page.locator("table.verdicts tbody tr").count() == 11


@pytest.mark.long
def test_files_go_in_and_out(served, page, tmp_path):
    kernel = tmp_path / "spin.comp"
    kernel.write_text(TAS)
    page.goto(f"{served}/playground")
    page.set_input_files("#upload", str(kernel))
    page.wait_for_function("document.getElementById('test').value.includes('atomicExchange')")
    assert page.input_value("#lang") == "glsl" and page.is_visible("#launch")
    with page.expect_download() as saved:
        page.click("#save")
    assert saved.value.suggested_filename == "test.comp" and Path(saved.value.path()).read_text() == TAS
    page.click("#check")
    page.wait_for_selector("table.verdicts")
    with page.expect_download() as saved:
        page.click("#download-verdicts")
    body = json.loads(Path(saved.value.path()).read_text())
    assert len(body["results"]) == 11 and body["language"] == "glsl"


def test_a_test_page_explains_the_test(served, page):
    page.goto(f"{served}/suite/small/test/pair.axb")
    explained = page.inner_text("#explain")
    assert "Thread 0: (0) swaps 0 into m0, again and again while the old value was 0" in explained
    assert "Thread 1: (0) swaps 1 into m0" in explained
    assert "May not terminate under: unfair, HSA/weak" in page.inner_text("main")
    assert page.get_attribute("text=open it in the playground", "href") == "/playground?suite=small&key=pair.axb"


@pytest.mark.long
def test_an_unknown_address_gets_a_real_page(served, page):
    answer = page.goto(f"{served}/no/such/page")
    assert answer.status == 404 and page.title().startswith("Page not found")
    assert "/no/such/page" in page.inner_text("main") and page.locator("header nav a").count() >= 5
    answer = page.goto(f"{served}/suite/small/test/nope.axb")
    assert answer.status == 404 and "no such test" in page.inner_text("#missing")
