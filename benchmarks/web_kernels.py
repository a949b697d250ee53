"""The kernels of litmus/kernels/ run from the kernel run page in headless Chromium
(WebGPU on SwiftShader), as a user runs them (docs/results/gpu/kernels/report.md).

    python benchmarks/web_kernels.py [--iterations 20] [--deadline-ms 50] [--out PATH_WITHOUT_SUFFIX] [KERNEL ...]

Starts `progress serve`, opens /kernel/run with each kernel in the editor (its file name
in the name field), presses Run with every launch shape, waits, and keeps the run the
page offers as JSON (`window.kernelRun.run`) and the report it shows. Writes OUT.json
(the runs joined as `progress run` writes one: metadata, then one record per kernel, a
kernel the page could not run with the reason) and OUT.txt (the reports as shown).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from progress.front.spirv.load import kind_of  # noqa: E402
from tests.browser import CHROMIUM, WEBGPU_FLAGS, launch, server  # noqa: E402

LANGUAGE = {"glsl": "glsl", "hlsl": "hlsl", "spvasm": "spvasm", "wgsl": "wgsl"}
FINISHED = "#kernel-run[data-state=done], #kernel-run[data-state=error], #kernel-run[data-state=stopped]"


def run_one(page, url: str, path: Path, iterations: int, deadline_ms: int) -> tuple[dict, str]:
    query = urlencode({"lang": LANGUAGE[kind_of(path) or "glsl"], "test": path.read_text()})
    page.goto(f"{url}/kernel/run?{query}")
    page.wait_for_selector("#kernel-start:enabled", timeout=60_000)
    page.fill("#kernel-name", path.name)
    page.fill("#kernel-iterations", str(iterations))
    page.fill("#kernel-deadline", str(deadline_ms))
    started = time.monotonic()
    page.click("#kernel-start")
    page.wait_for_selector(FINISHED, timeout=600_000)
    seconds = round(time.monotonic() - started, 1)
    if page.get_attribute("#kernel-run", "data-state") != "done":
        said = page.text_content("#kernel-status") or ""
        return {"kernel": path.name, "refused": said.strip(), "seconds": seconds}, f"{path.name}: not run: {said}"
    run = page.evaluate("() => window.kernelRun.run")
    text = page.text_content("#kernel-report") or ""
    return {**run, "seconds": seconds}, text


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--deadline-ms", type=int, default=50)
    parser.add_argument("--out", default=str(REPO / "docs/results/gpu/kernels/browser_swiftshader"))
    parser.add_argument("kernels", nargs="*")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    paths = [Path(k) for k in args.kernels] or sorted((REPO / "litmus" / "kernels").iterdir())
    records, texts, meta = [], [], None
    started, began = time.monotonic(), datetime.now(UTC).isoformat(timespec="seconds")
    with server([sys.executable, "-m", "progress"], []) as url, sync_playwright() as playwright:
        chromium = launch(playwright)
        page = chromium.new_page()
        for path in paths:
            run, text = run_one(page, url, path, args.iterations, args.deadline_ms)
            print(f"{path.name}: {run.get('refused') or 'run'} ({run['seconds']} s)", file=sys.stderr)
            texts.append(f"{path.name}\n{text}")
            if "kernels" in run:
                meta = meta or {k: v for k, v in run.items() if k not in ("kernels", "seconds", "shapes")}
                records.append({**run["kernels"][0], "seconds": run["seconds"]})
            else:
                records.append(run)
        version = chromium.version
        chromium.close()
    meta = meta or {}
    meta.update(
        command="python benchmarks/web_kernels.py " + " ".join(sys.argv[1:]),
        browser_binary=str(CHROMIUM),
        browser_version=version,
        browser_flags=list(WEBGPU_FLAGS),
        started=began,
        elapsed_s=round(time.monotonic() - started, 1),
        shapes=["alone", "occupied", "reverse", "interleave"],
        kernels=records,
    )
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    out.with_suffix(".txt").write_text("\n\n".join(texts) + "\n")
    print(f"{len(records)} kernels in {meta['elapsed_s']} s; {out}.json", file=sys.stderr)


if __name__ == "__main__":
    main()
