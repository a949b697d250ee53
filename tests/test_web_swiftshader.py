"""SwiftShader's compute dispatch, seen in a real browser (docs/results/web_swiftshader.md).

SwiftShader cuts a dispatch into 16 tasks, task b running workgroups b,
b + 16, b + 32, ... one after another, each to its end. Under chunked with
M = 16 instances, workgroup w runs thread w div 16 of instance w mod 16, so
task b runs instance b's threads 0, 1, 2 in that order, alone: the paper's
3t3i/3 (thread 1 waits for thread 0's store, thread 2 waits while thread 0's
value is unconsumed) ends every time. With M = 17 a task holds workgroups of
different instances, and the two workers block on each other's queued
tasks: every iteration fails. The model of benchmarks/swiftshader_model.py
predicts both; the browser must show both (headless Chromium, WebGPU on
SwiftShader; a missing browser fails the test).
"""

from __future__ import annotations

import pytest

from benchmarks.swiftshader_model import Dispatch, predict
from benchmarks.web_swiftshader import blank_page, open_page, run_test
from progress.front.axb.parse import parse_program
from tests.browser import BrowserMissing, launch

# litmus/oopsla21/3t3i/3.axb: guaranteed under HSA, HSA+OBE, LOBE and fair; not under OBE
TEST = """test artifact_3t3i_3
thread 0
  AXB(m0, 0, 1, true, 1)
thread 1
  AXB(m0, 0, 0, true, 0)
thread 2
  AXB(m0, 1, 0, false, 0)
"""
ITERATIONS = 3


@pytest.fixture(scope="module")
def page():
    from playwright.sync_api import sync_playwright

    with blank_page() as url, sync_playwright() as playwright:
        try:
            chromium = launch(playwright)
        except BrowserMissing as missing:
            pytest.fail(str(missing))
        yield open_page(chromium, url)
        chromium.close()


@pytest.mark.parametrize(("instances", "fails"), [(16, False), (17, True)])
def test_chunked_3t3i_3_flips_between_16_and_17_instances(page, instances, fails):
    program = parse_program(TEST, "3t3i_3.axb")
    expected = ITERATIONS if fails else 0
    assert predict(program, Dispatch("chunked", instances), samples=ITERATIONS) == expected
    ran = run_test(page, program, "chunked", instances, ITERATIONS, deadline_s=0.1)
    assert ran["workgroups"] == 3 * instances
    assert ran["cut"] == 0
    assert ran["failed"] == expected, ran
