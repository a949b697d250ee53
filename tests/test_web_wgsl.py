"""WGSL in the playground (issue 31): checked on the server, through the
same naga reader as `progress check` (docs/web.md says why not in the
page). In-process through Starlette's TestClient (the notes, the lasso as
the CLI prints it, naga's errors at line:col, the tools' limits) and in
headless Chromium through Playwright (the language switch, a typed kernel,
an example, a naga error, the file picker)."""

from __future__ import annotations

import subprocess

import pytest
from starlette.testclient import TestClient

from progress.core.registry import all_models
from progress.web.app import create_app
from progress.web.limits import Limits
from progress.web.site import Site
from tests.browser import BrowserMissing, launch, server
from tests.conftest import progress_command

SPIN = """\
// progress: --workgroups 3
@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;

@compute @workgroup_size(1)
fn main() {
    while (atomicExchange(&lock, 1u) != 0u) {
    }
    atomicExchange(&lock, 0u);
}
"""


def check(client: TestClient, text: str, **params):
    return client.post("/api/check", params={"lang": "wgsl", **params}, content=text.encode())


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(Site({}, tmp_path / "r.db", all_models(), Limits())))


def test_a_wgsl_kernel_is_checked_as_the_cli_checks_it(client, tmp_path):
    body = check(client, SPIN, workgroups="2", view="HSA/weak").json()
    assert body["language"] == "wgsl" and body["launch"] == "2 workgroups of 1 invocation"
    assert any("naga's loop bound" in note and "removed from 1 loop" in note for note in body["notes"])
    lasso = next(r["lasso"] for r in body["results"] if (r["model"], r["fairness"]) == ("HSA", "weak"))
    (tmp_path / "kernel.wgsl").write_text(SPIN)
    done = subprocess.run(
        [*progress_command(), "check", "kernel.wgsl", "--workgroups", "2", "--model", "HSA", "--weak"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    printed = [line for line in done.stdout.splitlines()[1:] if line.startswith("    ")]
    assert [line.removeprefix("    ") for line in printed] == lasso.splitlines()
    assert "kernel.wgsl:6  while (atomicExchange(&lock, 1u) != 0u) {" in lasso


def test_naga_errors_are_at_line_and_column(client):
    answer = check(client, SPIN.replace("atomicExchange(&lock, 0u)", "atomicExchange(lock, 0u)"))
    assert answer.status_code == 400
    body = answer.json()
    assert (body["line"], body["column"]) == (8, 20)
    assert body["rendered"].startswith("kernel.wgsl:8:20: error: naga: atomic variables cannot be accessed")


def test_naga_runs_within_the_playgrounds_tool_limits(tmp_path):
    slow = TestClient(create_app(Site({}, tmp_path / "r.db", all_models(), Limits(tool_timeout_s=0.001))))
    answer = check(slow, SPIN + "// not cached\n")
    assert answer.status_code == 400 and "naga did not finish within 0.001 s" in answer.json()["rendered"]


@pytest.fixture(scope="module")
def served():
    with server(progress_command(), []) as url:
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


@pytest.mark.long
def test_the_playground_checks_typed_wgsl(served, page):
    page.goto(f"{served}/playground")
    assert "WGSL" in page.locator("#lang option").all_inner_texts()
    assert ".wgsl" in page.get_attribute("#upload", "accept").split(",")
    page.select_option("#lang", "wgsl")
    assert page.locator("#launch").is_visible()
    page.locator("#test").fill("")
    page.locator("#test").press_sequentially(SPIN)  # typed, key by key
    page.fill("#workgroups", "2")
    page.click("#check")
    page.wait_for_selector("#picture svg")
    assert page.locator("table.verdicts tbody tr").count() == 11
    result = page.inner_text("#result")
    assert "launched with 2 workgroups of 1 invocation" in result
    assert "naga's loop bound" in result and "checked as the WGSL says" in result
    lasso = page.inner_text("#lasso")
    assert "kernel.wgsl:6" in lasso and "while (atomicExchange(&lock, 1u) != 0u) {" in lasso
    assert "lang=wgsl" in page.url and "workgroups=2" in page.url
    page.fill("#test", SPIN.replace("1u) != 0u", "1i) != 0u"))
    page.click("#check")
    page.wait_for_selector("#error")
    assert page.inner_text("#error").startswith("kernel.wgsl:6:")
    assert "naga:" in page.inner_text("#error")


def test_a_wgsl_example_meets_its_expect_line(served, page):
    page.goto(f"{served}/playground?example=wgsl_spec_ticket_lock")
    assert page.input_value("#lang") == "wgsl"
    page.click("#check")
    page.wait_for_selector("table.verdicts")
    result = page.inner_text("#result")
    assert "all 11 expected verdicts hold" in result
    assert "ROUNDS = 2u (--spec)" in result and "WORKGROUP = 2u (--local-size)" in result
