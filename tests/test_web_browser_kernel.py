"""The kernel run page in Debian's Chromium, WebGPU on SwiftShader (tests/browser.py):
a kernel picked, run N iterations under every launch shape the browser can do, and
the joined report shown as `progress run` prints it. The deliberately deadlocking
kernel times out in every iteration under every shape while the page keeps answering;
a kernel with a barrier runs without the occupied shape; a kernel whose barrier WGSL
refuses, and a kernel that does not compile, are said so. A missing Chromium fails.
"""

from __future__ import annotations

import sys
import time

import pytest

from tests.browser import BrowserMissing, launch, server

FINISHED = "#kernel-run[data-state=done], #kernel-run[data-state=error], #kernel-run[data-state=stopped]"


@pytest.fixture(scope="module")
def site():
    from playwright.sync_api import sync_playwright

    with server([sys.executable, "-m", "progress"], []) as url, sync_playwright() as playwright:
        try:
            chromium = launch(playwright)
        except BrowserMissing as missing:
            pytest.fail(str(missing))
        yield url, chromium
        chromium.close()


def open_example(site, example: str, iterations: int, deadline_ms: int = 20):
    url, chromium = site
    page = chromium.new_page()
    page.goto(f"{url}/kernel/run?example={example}")
    page.wait_for_selector("#kernel-start:enabled", timeout=30_000)
    page.fill("#kernel-iterations", str(iterations))
    page.fill("#kernel-deadline", str(deadline_ms))
    return page


@pytest.mark.long
def test_the_deadlock_times_out_every_iteration_and_the_page_keeps_answering(site):
    page = open_example(site, "mutual_wait", iterations=6)
    page.click("#kernel-start")
    seen, slowest = set(), 0.0
    while page.get_attribute("#kernel-run", "data-state") == "running":
        start = time.monotonic()
        seen.add(
            page.evaluate("() => [...document.querySelectorAll('#kernel-shapes .done')].map(e => e.textContent).join()")
        )
        slowest = max(slowest, time.monotonic() - start)
        page.wait_for_timeout(20)
    page.wait_for_selector(FINISHED, timeout=120_000)
    assert page.get_attribute("#kernel-run", "data-state") == "done", page.text_content("#kernel-status")
    report = page.text_content("#kernel-report")
    for shape in ("alone", "reverse", "interleave"):
        assert (
            f"  {shape}: F (6/6) (6x first at loop kernel.comp:17 `while (atomicAdd(flags[1u - me], 0u) == 0u) {{`)"
            in report
        )
    assert "  occupied, 1 occupiers: F (6/6)" in report
    assert "violations: none" in report
    assert slowest < 1.0  # every launch is awaited: the page answered while the kernel spun
    assert any("/ 6" in s and s.count("6 / 6") < 4 for s in seen)  # the counts filled in as launches ended
    run = page.evaluate("() => window.kernelRun.run")
    assert run["backend"] == "webgpu" and run["software"] is True and run["kernels"][0]["kernel"] == "mutual_wait.comp"
    page.close()


def test_a_terminating_kernel_ends_with_the_checkers_outputs(site):
    page = open_example(site, "ticket_lock", iterations=3)
    page.uncheck("#kernel-settings input[value=occupied]")
    page.click("#kernel-start")
    page.wait_for_selector(FINISHED, timeout=120_000)
    report = page.text_content("#kernel-report")
    assert "  alone: P, budget" in report and "outputs: a terminal state of the kernel" in report
    assert "occupied" not in report.split("\n")[1]
    assert "  OBE/weak        P        ok" in report
    page.close()


@pytest.mark.long
def test_a_kernel_with_a_barrier_runs_without_occupiers(site):
    page = open_example(site, "lookback_scan", iterations=2)
    page.click("#kernel-start")
    page.wait_for_selector(FINISHED, timeout=120_000)
    assert "Not run: occupied" in page.text_content("#kernel-skipped")
    report = page.text_content("#kernel-report")
    assert "  alone: P" in report and "  reverse: P" in report and "occupied" not in report
    page.close()


def test_a_barrier_wgsl_refuses_and_a_compile_error_are_said(site):
    page = open_example(site, "barrier_divergence", iterations=1)
    page.click("#kernel-start")
    page.wait_for_selector(FINISHED, timeout=60_000)
    said = page.text_content("#kernel-status")
    assert "this browser refuses the kernel's WGSL" in said and "uniform control flow" in said
    page.select_option("#kernel-example", "")
    page.fill("#kernel-text", "#version 450\nvoid main() { x; }\n")
    page.click("#kernel-start")
    deadline = time.monotonic() + 60
    while "kernel.comp:2:15" not in page.text_content("#kernel-status") and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert "kernel.comp:2:15: error:" in page.text_content("#kernel-status")
    assert page.get_attribute("#kernel-run", "data-state") == "error"
    page.close()
