"""The WebGPU runner's page (a suite on the visitor's GPU, `runner.js`) and
the settings it shares with a test page's explorer (`explore.js`): the
heuristics, iterations, instances and deadline, with presets. Pure.
"""

from __future__ import annotations

import json

from progress.web.glossary import term
from progress.web.html import attr, esc, link, page
from progress.web.suites import Suite

PRESETS = {
    "quick": ("A quick look", {"iterations": 5, "instances": "8", "deadline": 20}),
    "paper": ("The paper's settings", {"iterations": 20, "instances": "auto", "deadline": 50}),
    "stress": ("Stress", {"iterations": 100, "instances": "auto", "deadline": 100}),
}
"""Preset -> (its name, the settings it fills in); every heuristic is chosen by each."""
SECONDS_PER_ITERATION = {"software": 0.029, "gpu": 0.011}
"""Seconds one test takes per heuristic and iteration, measured on the
published suite: SwiftShader in Chromium 838.8 s for 483 tests x 3
heuristics x 20 iterations (docs/results/web_suite.md); the H200 through
wgpu 164.5 s for 498 tests x 3 x 10 (docs/results/gpu/wgpu/h200_wgpu.json).
The runner's first estimate; it refines it from the tests it has run."""


def presets_form(prefix: str, threads: int | None, tests: int | None = None, default: str = "paper") -> str:
    """The settings form; ids are `prefix` + `iterations`, `deadline`,
    `instances`, `limit` (the runner's prefix is empty), `preset`, `start`."""
    chosen = PRESETS[default][1]
    options = (
        "".join(
            f"<option value={attr(key)}{' selected' if key == default else ''} "
            f"data-settings={attr(json.dumps(values))}>{esc(name)}</option>"
            for key, (name, values) in PRESETS.items()
        )
        + "<option value=custom>Your own</option>"
    )
    checks = "".join(
        f"<label><input type=checkbox name={attr(prefix + 'heuristic')} value={attr(h)} checked> {term(h)}</label>"
        for h in ("plain", "rr", "chunked")
    )
    auto = "auto: 65532 / threads on a GPU, 64 / threads on a software adapter"
    limit = (
        f"<label>tests <input id={attr(prefix + 'limit')} type=number min=1 max={tests} value={tests}></label>"
        if tests is not None
        else ""
    )
    threads_note = f" data-threads={threads}" if threads is not None else ""
    return (
        f"<form class='inline settings' id={attr(prefix + 'settings')}{threads_note}>"
        f"<label>Preset <select id={attr(prefix + 'preset')}>{options}</select></label>{checks}"
        f"<label>{term('iterations')} <input id={attr(prefix + 'iterations')} type=number min=1 max=1000 "
        f"value={chosen['iterations']}></label>"
        f"<label>{term('deadline')} (ms) <input id={attr(prefix + 'deadline')} type=number min=1 max=10000 "
        f"value={chosen['deadline']}></label>"
        f"<label title={attr(auto)}>{term('instances')} <input id={attr(prefix + 'instances')} "
        f"value={attr(chosen['instances'])} size=6></label>{limit}"
        f"<button type=button id={attr(prefix + 'start')} disabled>Run</button>"
        f"<button type=button id={attr(prefix + 'stop')} class=quiet hidden>Stop</button></form>"
    )


def runner_page(suite: Suite) -> str:
    """The WebGPU runner's controls; `runner.js` does the work."""
    data = {
        "suite": suite.name,
        "tests": len(suite.tests),
        "hash": suite.hash,
        "seconds": SECONDS_PER_ITERATION,
        "points": [c.label for c in suite.points],
    }
    lead = (
        f"Runs suite {link('/suite/' + suite.name, suite.name)} ({len(suite.tests)} tests) on this browser's GPU "
        "through WebGPU: each test's shader, the same as <code>progress run --backend wgpu</code>, under the "
        f"chosen heuristics. A test that does not end is stopped at its {term('deadline')}, so nothing hangs "
        "and the tab stays responsive. Nothing is sent until you have seen the result and chosen to submit it."
    )
    body = (
        f"<div id=runner data-suite={attr(json.dumps(data))}>"
        "<div class=card id=adapter>Looking for WebGPU…</div>"
        f"{presets_form('', None, len(suite.tests))}"
        "<p id=estimate class=note></p>"
        "<div id=saved></div>"
        "<p id=status data-state=idle role=status>Idle.</p><progress id=bar value=0 max=1></progress>"
        "<div id=summary></div><div id=submission></div><div id=submitted></div><div id=log></div></div>"
    )
    return page(f"Run {suite.name} on this GPU", body, ("gpu.js", "runner.js"), lead=lead)
