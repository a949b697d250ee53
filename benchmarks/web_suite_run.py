"""The published suite on WebGPU in headless Chromium (SwiftShader), through the
browser runner of `progress serve`, submitted to the server's results
database and shown on its device page beside lavapipe's and the H200's.

    python benchmarks/web_suite_run.py [--limit N] [--iterations 20] [--deadline-ms 50] [--out docs/results]

A fresh results database gets the committed runs first (`progress results
import`: lavapipe's wgpu run, the H200's CUDA and Vulkan runs, the paper's
eight GPUs), then the server runs, Chromium runs the suite page's runner
(its settings as given), and the script waits for the submission. Writes
OUT/web_suite.json (the body the browser submitted, its timing, and the
`progress devices --format json` rows of every run in the database) and the
runner's and device page's screenshots in docs/images/. Takes tens of minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser import launch, server  # noqa: E402

OOPSLA = REPO.parent / "shared" / "data" / "oopsla21"
GPU = REPO / "docs" / "results" / "gpu"
FULL = [str(OOPSLA), str(REPO / "litmus"), str(REPO / "tests" / "data" / "gpu")]
IMPORTS = [
    ("lavapipe-vulkan-2it", GPU / "wgpu" / "lavapipe_suite.csv", [str(OOPSLA)]),
    ("h200-cuda-1", GPU / "run1.csv", FULL),
    ("h200-vulkan-10it", GPU / "wgpu" / "h200_wgpu.csv", FULL),
]
PROGRESS = [str(Path(sys.executable).parent / "progress")]


def progress(*args: str) -> str:
    done = subprocess.run([*PROGRESS, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"progress {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def build(db: Path) -> None:
    progress("results", "import", str(OOPSLA / "empirical_results"), "--suite", str(OOPSLA), "--db", str(db))
    for name, table, suites in IMPORTS:
        flags = [flag for suite in suites for flag in ("--suite", suite)]
        progress("results", "import", str(table), *flags, "--name", name, "--db", str(db))


def run_in_browser(url: str, args, shots: Path) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_context(bypass_csp=True, viewport={"width": 1400, "height": 1000}).new_page()
        sent: list[str] = []
        page.on("request", lambda r: sent.append(r.post_data or "") if r.url.endswith("/results") else None)
        page.goto(f"{url}/suite/oopsla21/run")
        page.fill("#iterations", str(args.iterations))
        page.fill("#deadline", str(args.deadline_ms))
        if args.limit:
            page.fill("#limit", str(args.limit))
        start = time.perf_counter()
        page.click("#start")
        state = ""
        while state not in ("done", "error", "refused"):
            time.sleep(5)
            state = page.get_attribute("#status", "data-state") or ""
            print(f"{time.perf_counter() - start:7.0f} s  {page.inner_text('#status')}", flush=True)
        seconds = time.perf_counter() - start
        status, adapter = page.inner_text("#status"), page.inner_text("#adapter")
        if state != "done":
            sys.exit(f"the run ended {state}: {status} {page.inner_text('#submitted')}")
        page.screenshot(path=str(shots / "web_runner_483.png"), full_page=False)
        page.click("#device-link")
        page.wait_for_selector("table.conformance")
        page.screenshot(path=str(shots / "web_device_swiftshader.png"), full_page=True)
        device_url = page.url
        browser.close()
    submitted = json.loads(sent[-1])
    return {"seconds": round(seconds, 1), "status": status, "adapter": adapter, "device_page": device_url}, submitted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="the first N tests only (0: all)")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--deadline-ms", type=int, default=50)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results")
    args = parser.parse_args()
    shots = REPO / "docs" / "images"
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "results.db"
        build(db)
        with server(PROGRESS, ["--suite", str(OOPSLA), "--db", str(db)]) as url:
            browser, submitted = run_in_browser(url, args, shots)
        devices = json.loads(progress("devices", "--db", str(db), "--format", "json"))
        listing = progress("results", "list", "--db", str(db))
    ours = [r for r in devices["runs"] if r["backend"] == "webgpu"]
    record = {
        "command": "python benchmarks/web_suite_run.py"
        + (f" --limit {args.limit}" if args.limit else "")
        + f" --iterations {args.iterations} --deadline-ms {args.deadline_ms}",
        "browser": browser,
        "load": Path("/proc/loadavg").read_text().split()[:3],
        "runs": listing,
        "devices": devices,
        "swiftshader": ours,
        "submitted": submitted,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "web_suite.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(json.dumps({"seconds": browser["seconds"], "runs": len(devices["runs"])}))


if __name__ == "__main__":
    main()
