"""The kernel run page: a kernel (written, opened or an example) run on this
browser's GPU through WebGPU, N iterations per launch shape, and the report
`progress run KERNEL` prints for it (`static/kernel.js` does the work; the
server plans and joins, `kernel_runs.py`). Pure: data in, HTML out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from progress.gpu.kernel_run import SHAPES
from progress.web.examples import Example
from progress.web.glossary import term
from progress.web.html import attr, esc, link, page
from progress.web.kernel_check import SOURCES, LaunchFields
from progress.web.play_page import launch_fieldset, suffix
from progress.web.playground import LANGUAGES

SHAPE_WORDS = {
    "alone": "the dispatch as written",
    "occupied": "occupying workgroups first, spinning until the kernel ends (not for a kernel with a barrier)",
    "reverse": "workgroup ids reversed",
    "interleave": "even workgroup ids first",
}


@dataclass(frozen=True)
class Shown:
    """The editor's kernel, its language and launch fields, the examples, the kernel's name in reports."""

    text: str
    language: str
    fields: LaunchFields
    examples: Sequence[Example]
    name: str = ""


def page_html(shown: Shown) -> str:
    kernels = [e for e in shown.examples if e.language in SOURCES]
    options = "<option value=''>(your own)</option>" + "".join(
        f"<option value={attr(e.name)} data-lang={attr(e.language)} data-name={attr(e.name + suffix(e.language))}"
        f"{' selected' if shown.name == e.name + suffix(e.language) else ''}>{esc(e.name)}</option>"
        for e in kernels
    )
    languages = "".join(
        f"<option value={attr(key)}{' selected' if key == shown.language else ''}>{esc(LANGUAGES[key])}</option>"
        for key in SOURCES
    )
    shapes = "".join(
        f"<label title={attr(SHAPE_WORDS[s])}><input type=checkbox name=shape value={attr(s)} checked> {esc(s)}</label>"
        for s in SHAPES
    )
    examples = json.dumps({e.name: {"lang": e.language, "text": e.text} for e in kernels})
    name = shown.name or SOURCES.get(shown.language, "kernel.comp")
    return (
        f"<div id=kernel-run data-examples={attr(examples)}>"
        "<div class=card id=webgpu>Looking for WebGPU…</div>"
        "<noscript><p class=error>The run needs scripts (WebGPU); the "
        f"{link('/playground', 'playground')} checks a kernel without them.</p></noscript>"
        "<form id=kernel-form class=settings>"
        f"<div class=editor-bar><label>Example <select id=kernel-example>{options}</select></label> "
        f"<label>Language <select id=kernel-lang>{languages}</select></label> "
        f"<label>Name <input id=kernel-name value={attr(name)} size=24 spellcheck=false></label></div>"
        f"<textarea id=kernel-text spellcheck=false wrap=soft rows=18 aria-label='the kernel'>{esc(shown.text)}"
        "</textarea>"
        f"{launch_fieldset(shown.language, shown.fields)}"
        "<fieldset id=kernel-settings><legend>Run</legend>"
        f"<label>{term('iterations')} <input id=kernel-iterations type=number min=1 max=1000 value=20></label> "
        f"<label>{term('deadline')} (ms) <input id=kernel-deadline type=number min=1 max=10000 value=50></label> "
        "<label title='occupying workgroups under occupied: auto is the CPU threads less one on a software "
        "adapter, 1023 on a GPU'>occupiers <input id=kernel-occupiers value=auto size=6></label> "
        f"<span class=shapes>{shapes}</span></fieldset>"
        "<p class=actions><button type=button id=kernel-start disabled>Run</button> "
        "<button type=button id=kernel-stop class=quiet hidden>Stop</button> "
        "<span id=kernel-status role=status data-state=idle>Idle.</span></p></form>"
        "<div id=kernel-progress></div><div id=kernel-result></div></div>"
    )


LEAD = (
    "Runs a {kernel} on this browser's GPU through WebGPU, N iterations under each launch shape, and joins "
    "what it did with the checker's verdict under every {model}, as <code>progress run KERNEL</code> does "
    "(<a href=/docs/gpu#running-a-kernel>how</a>). Every loop of the kernel checks a {deadline} first, so a "
    "kernel that never ends times out and the page keeps answering."
)


def kernel_run_page(shown: Shown) -> str:
    lead = LEAD.format(kernel=term("kernel"), model=term("progress model"), deadline=term("deadline"))
    return page("Run a kernel on this GPU", page_html(shown), ("gpu.js", "kernel.js"), lead=lead)
