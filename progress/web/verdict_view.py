"""What the playground and a suite's test page share: the verdict table (the
11 verdicts in the pages' order), the drawn verdict with its lasso (steps
one can walk through) and its LTS picture (zoom, full size, SVG and DOT
downloads). Pure: data in, HTML out; `view.js` adds the walking, the zoom
and "draw" links that fetch one verdict's section instead of a whole page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from progress.core.analyze import NO_FAIRNESS, TestReport, Verdict
from progress.core.program import Program
from progress.models.base import ProgressModel
from progress.report.render import phrase
from progress.web.glossary import model_term
from progress.web.html import attr, esc, table
from progress.web.playground import Step, witness_text
from progress.web.points import in_order, point_label

AXB_PICTURE = (
    "States: memory | pcs, then the model's memory; steps T&lt;thread&gt;:&lt;instruction&gt; {F}; "
    "end states doubly outlined; the witness shaded, its loop in red, the way there in blue."
)
KERNEL_PICTURE = (
    "States: the shared cells, then a line per invocation (workgroup.invocation): its next source line, "
    "the action there and the values it holds [..] (<code>waits</code> at a barrier, <code>ret</code> once "
    "returned), then the model's memory; steps &lt;workgroup&gt;.&lt;invocation&gt;:&lt;line&gt; {F}; end "
    "states doubly outlined; the witness shaded (a deadlock: the dead states), its loop in red, the way "
    "there in blue."
)
STEP_LINE = re.compile(r"^\s+\d+\s")


@dataclass(frozen=True)
class Links:
    """Where a page's verdicts lead: `page` (+ `query`) is the page itself
    with `view` set; `fragment` answers one verdict's section; `picture`
    its LTS as `.svg` or `.dot` (each address takes `query` and `view`)."""

    page: str
    fragment: str
    picture: str
    query: dict[str, str]

    def to(self, base: str, view: tuple[str, str], suffix: str = "") -> str:
        return f"{base}{suffix}?" + urlencode({**self.query, "view": view_name(view)})


def view_name(view: tuple[str, str]) -> str:
    """`OBE/weak`, or the bare model name without fairness (the URL's `view`)."""
    return point_label(*view)


def parse_view(text: str | None) -> tuple[str, str] | None:
    if not text:
        return None
    model, _, fairness = text.partition("/")
    return model, fairness or NO_FAIRNESS


def verdict_table(
    report: TestReport, view: tuple[str, str] | None, links: Links, models: Sequence[ProgressModel]
) -> str:
    """The 11 verdicts in the pages' order; each row links to its own picture."""
    rows = []
    for v in in_order(report.verdicts, lambda v: (v.model, v.fairness), models):
        point = (v.model, v.fairness)
        kind = {True: "pass", False: "fail", None: "unknown"}[v.terminates]
        size = _stopped(v.reason) if v.terminates is None else f"{v.states:,} / {v.transitions:,}"
        current = view == point
        drawn = (
            "–"
            if v.terminates is None and not current
            else (
                f"<a class={attr('draw current' if current else 'draw')} href={attr(links.to(links.page, point))} "
                f"data-fragment={attr(links.to(links.fragment, point))}>{'drawn below' if current else 'draw'}</a>"
            )
        )
        rows.append([model_term(*point), f"<span class={attr(kind)}>{esc(phrase(v))}</span>", esc(size), drawn])
    heads = ["model / fairness", "verdict", "states / transitions", "LTS"]
    return table(heads, rows, "verdicts")


def _stopped(reason: str | None) -> str:
    if reason and "state bound" in reason:
        return "stopped: state bound"
    return "stopped: time limit" if reason and "time" in reason else "stopped"


def view_section(
    report: TestReport,
    view: tuple[str, str] | None,
    svg: str | None,
    note: str | None,
    steps: Sequence[Step],
    links: Links,
) -> str:
    """The drawn verdict: its lasso (if it may not terminate), the steps to
    walk through, and its picture with zoom and downloads."""
    if view is None:
        return "<section id=view></section>"
    verdict = next(v for v in report.verdicts if (v.model, v.fairness) == view)
    parts = [f"<h2>{model_term(*view)}: {esc(phrase(verdict))}</h2>"]
    if verdict.witness is not None:
        parts.append(_lasso(verdict, report))
        parts.append(_stepper(verdict, steps))
    if svg is not None:
        parts.append(_toolbar(links, view))
        legend = AXB_PICTURE if isinstance(report.program, Program) else KERNEL_PICTURE
        parts.append(f"<div class=picture id=picture data-zoom=fit>{svg}</div><p class=note>{legend}</p>")
    elif note:
        parts.append(f"<p class=note id=picture-note>{esc(note)}</p>")
    return f"<section id=view data-view={attr(view_name(view))}>{''.join(parts)}</section>"


def _lasso(verdict: Verdict, report: TestReport) -> str:
    """The lasso as `progress check` prints it, each step's line numbered for the stepper."""
    assert verdict.witness is not None
    lines, step = [], 0
    for line in witness_text(verdict.witness, report.program).splitlines():
        if STEP_LINE.match(line) and step < len(verdict.witness.steps):
            lines.append(f"<span class=step data-step={step}>{esc(line)}</span>")
            step += 1
        else:
            lines.append(esc(line))
    return "<pre class=lasso id=lasso>" + "\n".join(lines) + "</pre>"


def _stepper(verdict: Verdict, steps: Sequence[Step]) -> str:
    """Buttons to walk the lasso step by step (view.js), the picture's node and edge of each step lit."""
    assert verdict.witness is not None
    data = json.dumps(
        {
            "count": len(verdict.witness.steps),
            "loop": verdict.witness.loop_start,
            "steps": [[s.source, s.edge, s.target] for s in steps],
        }
    )
    return (
        f"<div class=stepper id=stepper hidden data-lasso={attr(data)}>"
        "<button type=button data-move=first title='the first step'>|&lt;</button>"
        "<button type=button data-move=back title='the step before'>&lt; step</button>"
        "<button type=button data-move=next title='the next step'>step &gt;</button>"
        "<span id=step-caption class=muted>Walk through the lasso: each step is lit in the listing"
        f"{' and the picture' if steps else ''}.</span></div>"
    )


def _toolbar(links: Links, view: tuple[str, str]) -> str:
    svg, dot = links.to(links.picture, view, ".svg"), links.to(links.picture, view, ".dot")
    return (
        "<div class=toolbar id=picture-tools>"
        "<span class=zoom hidden><button type=button data-zoom=out title='smaller'>−</button>"
        "<button type=button data-zoom=fit title='fit the width'>fit</button>"
        "<button type=button data-zoom=in title='larger'>+</button></span>"
        f"<a href={attr(svg)} target=_blank rel=noopener id=full-size>open full size</a>"
        f"<a href={attr(svg + '&download=1')} id=download-svg>download SVG</a>"
        f"<a href={attr(dot + '&download=1')} id=download-dot>download DOT</a></div>"
    )
