"""A screenshot of every page of `progress serve`, in headless Chromium, at
1280 and 390 px wide, into docs/images/web-NAME-WIDTH.png.

    python benchmarks/web_screenshots.py [--out docs/images] [--only NAME ...] [--width 1280 ...]

The server gets the published suite, litmus/separating (its keys are long)
and litmus/paper as suites,
and a results database with the committed runs (as
benchmarks/web_suite_run.py imports them) plus the browser run that script
recorded in docs/results/web_suite.json, submitted again through the API.
A page taller than MAX_HEIGHT is cut there (the suite's 483 rows). Pages
that act first (a playground check typed in, a lasso walked, the explorer
run on SwiftShader, a small suite run) do so before the picture is taken.
It also checks what a reader would see: no page wider than the window.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.web_suite_run import OOPSLA, PROGRESS, build  # noqa: E402
from tests.browser import launch, server  # noqa: E402

MUTEX = (REPO / "litmus" / "paper" / "mutex.axb").read_text()
BAD = "test broken\nthread 0\n  AXB(x, 0, 1, true, 1)\nthread 2\n  AXB(x, 1, 0, false, 0)\n"
TAS = (REPO / "litmus" / "kernels" / "tas_spinlock.comp").read_text()
WGSL_MP = (REPO / "litmus" / "wgsl" / "message_passing.wgsl").read_text()
FLOAT = TAS.replace("counter = counter + 1u;", "counter = uint(float(counter) * 1.5);")
WIDE = "".join(f"thread {i}\n  AXB(x, 0, 1, true, 1)\n  AXB(y, 0, 2, true, 1)\n" for i in range(40))
EXPECT = MUTEX.replace("HSA/weak F", "HSA/weak P")  # the header expects what the test does not do
MAX_HEIGHT = 2400
WIDTHS = (1280, 390)


def play(url: str, **params: str) -> str:
    return f"{url}/playground?" + urllib.parse.urlencode(params)


def walk_lasso(page) -> None:
    page.click("#stepper button[data-move=next]")
    page.click("#stepper button[data-move=next]")


def explore(page) -> None:
    page.select_option("#explore-preset", "quick")
    page.wait_for_selector("#explore-start:enabled", timeout=30_000)
    page.click("#explore-start")
    page.wait_for_function(
        "['done', 'error'].includes(document.getElementById('explorer').dataset.state)", timeout=120_000
    )


def small_run(page) -> None:
    page.wait_for_selector("#start:enabled", timeout=30_000)
    page.select_option("#preset", "quick")
    page.fill("#limit", "6")
    page.click("#start")
    page.wait_for_function(
        "['finished', 'error'].includes(document.getElementById('status').dataset.state)", timeout=120_000
    )


def kernel_run(page) -> None:
    page.wait_for_selector("#kernel-start:enabled", timeout=60_000)
    page.fill("#kernel-iterations", "4")
    page.click("#kernel-start")
    page.wait_for_selector(
        "#kernel-run[data-state=done], #kernel-run[data-state=error], #kernel-run[data-state=stopped]", timeout=300_000
    )


def pages(url: str) -> list[tuple[str, str, Callable | None]]:
    """(name, address, what to do before the picture) of every page shown."""
    device = f"{url}/device/"
    return [
        ("index", f"{url}/", None),
        ("playground-empty", f"{url}/playground", None),
        ("playground-check", play(url, test=MUTEX, view="HSA/weak"), walk_lasso),
        ("playground-error", play(url, test=BAD), None),
        ("playground-too-large", play(url, test="#" * 17_000 + "\n" + MUTEX), None),
        ("playground-expect", play(url, test=EXPECT), None),
        ("playground-inconclusive", play(url, test=WIDE), None),
        ("playground-kernel", play(url, lang="glsl", test=TAS, view="HSA/weak"), None),
        ("playground-kernel-error", play(url, lang="glsl", test=FLOAT), None),
        ("playground-wgsl", play(url, lang="wgsl", test=WGSL_MP, view="OBE/weak"), None),
        ("playground-large-lts", play(url, example="ticket_lock", view="LOBE/weak"), None),
        ("suite", f"{url}/suite/oopsla21", None),
        ("suite-edge", f"{url}/suite/oopsla21?" + urllib.parse.urlencode({"edge": "HSA+OBE/weak<LOBE/weak"}), None),
        ("suite-separating", f"{url}/suite/separating", None),
        ("test", f"{url}/suite/oopsla21/test/3t3i/7.axb?view=LOBE/weak", None),
        ("test-explorer", f"{url}/suite/paper/test/mutex.axb", explore),
        ("runner", f"{url}/suite/paper/run", None),
        ("runner-finished", f"{url}/suite/paper/run", small_run),
        ("kernel-run", f"{url}/kernel/run?example=mutual_wait", None),
        ("kernel-run-finished", f"{url}/kernel/run?example=tas_spinlock", kernel_run),
        ("devices", f"{url}/devices", None),
        ("device-swiftshader", device + urllib.parse.quote("google swiftshader"), None),
        ("device-lavapipe", device + urllib.parse.quote("llvmpipe (LLVM 15.0.6, 256 bits)"), None),
        ("device-quadro", device + urllib.parse.quote("Quadro RTX 4000"), None),
        ("summary", f"{url}/summary", None),
        ("glossary", f"{url}/glossary", None),
        ("docs", f"{url}/docs", None),
        ("docs-web", f"{url}/docs/web", None),
        ("not-found", f"{url}/no/such/page", None),
    ]


def submit_recorded(url: str) -> None:
    recorded = json.loads((REPO / "docs" / "results" / "web_suite.json").read_text())["submitted"]
    request = urllib.request.Request(
        f"{url}/api/suite/oopsla21/results", data=json.dumps(recorded).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status in (200, 201), answer.status


def shoot(browser, url: str, width: int, out: Path, only: list[str] | None) -> list[str]:
    """Every page at `width`; the names of pages wider than the window."""
    context = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 900 if width > 600 else 844})
    page = context.new_page()
    wide = []
    for name, address, act in pages(url):
        if only and name not in only:
            continue
        answer = page.goto(address)
        assert answer is not None, address
        if act is not None:
            act(page)
        if page.evaluate("document.documentElement.scrollWidth > window.innerWidth"):
            wide.append(name)
        height = min(MAX_HEIGHT, page.evaluate("document.documentElement.scrollHeight"))
        target = out / f"web-{name}-{width}.png"
        page.screenshot(path=str(target), clip={"x": 0, "y": 0, "width": width, "height": height}, full_page=True)
        print(target.name, answer.status, flush=True)
    context.close()
    return wide


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    parser.add_argument("--only", action="append", metavar="NAME", help="only this page (repeatable)")
    parser.add_argument("--width", action="append", type=int, help="only this width (repeatable)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "results.db"
        build(db)
        litmus = REPO / "litmus"
        suites = ["--suite", str(OOPSLA), "--suite", str(litmus / "separating"), "--suite", str(litmus / "paper")]
        with server(PROGRESS, [*suites, "--db", str(db)]) as url, sync_playwright() as playwright:
            submit_recorded(url)
            browser = launch(playwright)
            wide = {w: shoot(browser, url, w, args.out, args.only) for w in args.width or WIDTHS}
            browser.close()
    for width, names in wide.items():
        if names:
            print(f"wider than {width} px: {', '.join(names)}")


if __name__ == "__main__":
    main()
