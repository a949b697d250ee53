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

import pytest

from progress.core.registry import all_models
from progress.front.axb.parse import parse_program
from progress.gpu import records
from progress.gpu.database import open_database
from progress.web.limits import Limits
from progress.web.suites import build_suite
from tests.browser import BrowserMissing, launch, server
from tests.conftest import progress_command

SUITE = {
    "done.axb": "thread 0\n  AXB(x, 0, 1, true, 1)\n",
    "spin.axb": "thread 0\n  AXB(x, 0, 0, false, 0)\n",
    "pair.axb": "thread 0\n  AXB(m0, 0, 0, true, 0)\nthread 1\n  AXB(m0, 0, 0, true, 1)\n",
}
LIMIT = Limits().max_test_bytes
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
            "settings": {},
        }
        rows = {key: {"plain": cell} for key, cell in cells.items()}
        runs.append(records.submitted_run(suite.record, suite.hash, header, rows))
    with open_database(db, writable=True) as database:
        database.import_runs(runs)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages")
    (root / "small").mkdir()
    for name, text in SUITE.items():
        (root / "small" / name).write_text(text)
    db = root / "results.db"
    store_runs(db, root)
    with server(progress_command(), ["--suite", str(root / "small"), "--db", str(db)]) as url:
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


def test_an_oversized_test_is_refused_in_the_playground_keeping_the_text(served, page):
    text = long_test(LIMIT + 500)
    page.goto(f"{served}/playground")
    page.fill("#test", text)
    page.click("#check")
    page.wait_for_selector("#error")
    assert page.title().startswith("Playground")
    assert f"{LIMIT + 500} bytes" in page.inner_text("#error") and str(LIMIT) in page.inner_text("#error")
    assert page.input_value("#test") == text


def test_the_runs_of_one_device_are_told_apart_on_devices(served, page):
    page.goto(f"{served}/devices")
    rows = page.locator("table.devices tbody tr")
    assert rows.count() == 2
    texts = [rows.nth(i).locator("td").first.inner_text() for i in range(2)]
    for (name, _, _), shown in zip(RUNS, texts):
        assert "Quadro RTX 4000" in shown and name in shown, texts
