"""A few tests on WebGPU in headless Chromium (SwiftShader) under chosen runner settings:
the control runs behind docs/results/web_suite.md's observations.

    python benchmarks/web_control.py TEST.axb... [--deadline-ms 1000] [--iterations 5] [--instances auto]

Copies the tests into a fresh suite, serves it with `progress serve`, runs the
browser runner with the settings given and prints the runner's table (test,
plain, rr, chunked) and the load average.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.web_suite_run import PROGRESS  # noqa: E402
from tests.browser import launch, server  # noqa: E402

DONE = "['done', 'error', 'refused'].includes(document.getElementById('status').dataset.state)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tests", nargs="+", type=Path)
    parser.add_argument("--deadline-ms", default="1000")
    parser.add_argument("--iterations", default="5")
    parser.add_argument("--instances", default="auto")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder) / "control"
        suite.mkdir()
        for test in args.tests:
            shutil.copy(test, suite / f"{test.parent.name}_{test.name}")
        serve = ["--suite", str(suite), "--db", f"{folder}/r.db"]
        with server(PROGRESS, serve) as url, sync_playwright() as playwright:
            page = launch(playwright).new_context(bypass_csp=True).new_page()
            page.goto(f"{url}/suite/control/run")
            page.fill("#iterations", args.iterations)
            page.fill("#deadline", args.deadline_ms)
            page.fill("#instances", args.instances)
            page.click("#start")
            page.wait_for_function(DONE, timeout=3_600_000)
            print(page.inner_text("#status"))
            print(page.inner_text("#log"))
    print("load average", " ".join(Path("/proc/loadavg").read_text().split()[:3]))


if __name__ == "__main__":
    main()
