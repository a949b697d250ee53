"""Headless Chromium for the browser tests and the screenshot and suite-run
scripts: Debian's /usr/bin/chromium driven by Playwright (which cannot
download browsers here), with WebGPU on its software adapter, SwiftShader.

A missing browser is a failure that says what to install, never a skip.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = Path(os.environ.get("PROGRESS_CHROMIUM", "/usr/bin/chromium"))
WEBGPU_FLAGS = (
    "--enable-unsafe-webgpu",  # WebGPU on Linux, where Chromium does not enable it yet
    "--use-webgpu-adapter=swiftshader",  # the software adapter: no GPU needed
    "--enable-features=Vulkan",
)
MISSING = "Chromium is missing at {path}: .ci/system-deps installs it (Debian: apt-get install chromium)"


class BrowserMissing(RuntimeError):
    pass


def launch(playwright):
    """A headless Chromium with WebGPU on SwiftShader; BrowserMissing if there is none."""
    if not CHROMIUM.is_file():
        raise BrowserMissing(MISSING.format(path=CHROMIUM))
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=list(WEBGPU_FLAGS))


@contextmanager
def server(command: list[str], args: list[str]) -> Iterator[str]:
    """`progress serve --port 0 ARGS` in a child process; yields its base URL."""
    child = subprocess.Popen(
        [*command, "serve", "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        found = re.search(r"http://\S+/", line)
        if found is None:
            child.kill()
            raise RuntimeError(f"progress serve did not start: {line!r} {child.communicate(timeout=10)[1]!r}")
        yield found.group(0).rstrip("/")
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
