"""A screenshot of every page of `progress serve`, in headless Chromium, into docs/images/.

    python benchmarks/web_screenshots.py [--out docs/images] [--only NAME ...]

The server gets the published suite and litmus/paper as suites, and a
results database with the committed runs (as benchmarks/web_suite_run.py
imports them) plus the browser run that script recorded in
docs/results/web_suite.json, submitted again through the API. Pages: the
suites, the playground (empty, a check with its picture, an error; a GLSL
kernel's check with its picture, a kernel's refused construct), a
suite's matrix (and filtered by a lattice edge), a test, the runner (idle),
the devices, and the device pages of SwiftShader and lavapipe. The runner
after the whole run (web_runner_483.png) is web_suite_run.py's.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.web_suite_run import OOPSLA, PROGRESS, build  # noqa: E402
from tests.browser import launch, server  # noqa: E402

MUTEX = (REPO / "litmus" / "paper" / "mutex.axb").read_text()
BAD = "test broken\nthread 0\n  AXB(x, 0, 1, true, 1)\nthread 2\n  AXB(x, 1, 0, false, 0)\n"
TAS = (REPO / "litmus" / "kernels" / "tas_spinlock.comp").read_text()
FLOAT = TAS.replace("counter = counter + 1u;", "counter = uint(float(counter) * 1.5);")


def pages(url: str) -> list[tuple[str, str, bool]]:
    """(file name, address, whole page?) of every page shown."""
    play = f"{url}/playground?" + urllib.parse.urlencode({"test": MUTEX, "view": "HSA/weak"})
    return [
        ("web_index.png", f"{url}/", True),
        ("web_playground_empty.png", f"{url}/playground", True),
        ("web_playground_check.png", play, True),
        ("web_playground_error.png", f"{url}/playground?" + urllib.parse.urlencode({"test": BAD}), True),
        (
            "web_playground_kernel.png",
            f"{url}/playground?" + urllib.parse.urlencode({"lang": "glsl", "test": TAS, "view": "HSA/weak"}),
            True,
        ),
        (
            "web_playground_kernel_error.png",
            f"{url}/playground?" + urllib.parse.urlencode({"lang": "glsl", "test": FLOAT}),
            True,
        ),
        ("web_suite.png", f"{url}/suite/oopsla21", False),
        (
            "web_suite_edge.png",
            f"{url}/suite/oopsla21?" + urllib.parse.urlencode({"edge": "HSA+OBE/weak<LOBE/weak"}),
            True,
        ),
        ("web_test.png", f"{url}/suite/oopsla21/test/3t3i/7.axb?view=LOBE/weak", True),
        ("web_runner.png", f"{url}/suite/paper/run", True),
        ("web_devices.png", f"{url}/devices", True),
        ("web_device_swiftshader.png", f"{url}/device/" + urllib.parse.quote("google swiftshader"), True),
        ("web_device_lavapipe.png", f"{url}/device/" + urllib.parse.quote("llvmpipe (LLVM 15.0.6, 256 bits)"), True),
    ]


def submit_recorded(url: str) -> None:
    recorded = json.loads((REPO / "docs" / "results" / "web_suite.json").read_text())["submitted"]
    request = urllib.request.Request(
        f"{url}/api/suite/oopsla21/results", data=json.dumps(recorded).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status in (200, 201), answer.status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    parser.add_argument("--only", action="append", metavar="NAME", help="only this page's file (repeatable)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "results.db"
        build(db)
        suites = ["--suite", str(OOPSLA), "--suite", str(REPO / "litmus" / "paper")]
        with server(PROGRESS, [*suites, "--db", str(db)]) as url, sync_playwright() as playwright:
            submit_recorded(url)
            browser = launch(playwright)
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            for name, address, whole in pages(url):
                if args.only and name not in args.only:
                    continue
                answer = page.goto(address)
                assert answer is not None and answer.status == 200, (address, answer and answer.status)
                page.screenshot(path=str(args.out / name), full_page=whole)
                print(name, flush=True)
            browser.close()


if __name__ == "__main__":
    main()
