"""The playground page and the parts it shares with a suite's test page:
the verdict table, the lasso, the picture. Pure: data in, HTML out."""

from __future__ import annotations

from progress.core.analyze import NO_FAIRNESS, TestReport
from progress.core.program import Program
from progress.errors import InputError
from progress.report.render import label, lasso_text, phrase
from progress.web.html import attr, esc, link, page, table
from progress.web.playground import Checked

EXAMPLE = """\
test mutex
# Fig. 2 of the paper: two threads acquire and release one lock.
thread 0
  AXB(m, 1, 0, true, 1)       # acquire: swap 1 in; spin while the old value was 1
  AXB(m, 0, end, true, 0)     # release
thread 1
  AXB(m, 1, 0, true, 1)
  AXB(m, 0, 2, true, 0)
"""


def view_name(view: tuple[str, str]) -> str:
    """`OBE/weak`, or the bare model name without fairness (the URL's `view`)."""
    return view[0] if view[1] == NO_FAIRNESS else f"{view[0]}/{view[1]}"


def parse_view(text: str | None) -> tuple[str, str] | None:
    if not text:
        return None
    model, _, fairness = text.partition("/")
    return model, fairness or NO_FAIRNESS


def error_box(error: InputError, text: str) -> str:
    """The error message at line:col, then the source with that line marked and a caret."""
    position = error.position
    where = f"{position}: " if position is not None else ""
    out = [f"<div class=error id=error>{esc(where)}error: {esc(error.message)}</div>"]
    if position is not None and text:
        rows = []
        for number, line in enumerate(text.splitlines(), 1):
            mark = " class=bad" if number == position.line else ""
            rows.append(f"<span{mark}>{number:>4}  {esc(line)}</span>")
            if number == position.line:
                rows.append(f"<span class=caret>{' ' * (position.column + 5)}^</span>")
        out.append("<pre class=listing>" + "\n".join(rows) + "</pre>")
    return "".join(out)


def verdict_table(report: TestReport, view: tuple[str, str] | None, href: str, query: dict[str, str]) -> str:
    """The 11 verdicts; each row links to its own picture."""
    rows = []
    for v in report.verdicts:
        kind = {True: "pass", False: "fail", None: "unknown"}[v.terminates]
        here = view == (v.model, v.fairness)
        size = f"{v.reason}, {v.states} states" if v.terminates is None else f"{v.states} / {v.transitions}"
        drawn = "drawn below" if here else link(href, "draw", {**query, "view": view_name((v.model, v.fairness))})
        rows.append([esc(label(v)), f"<span class={attr(kind)}>{esc(phrase(v))}</span>", esc(size), drawn])
    return table(["model", "verdict", "states / transitions", "LTS"], rows, "verdicts")


def view_section(report: TestReport, view: tuple[str, str] | None, svg: str | None, note: str | None) -> str:
    """The drawn verdict's lasso (if it may not terminate) and its picture."""
    if view is None:
        return ""
    verdict = next(v for v in report.verdicts if (v.model, v.fairness) == view)
    parts = [f"<h2>{esc(label(verdict))}: {esc(phrase(verdict))}</h2>"]
    if verdict.witness is not None:
        program = report.program
        assert isinstance(program, Program)  # the playground checks .axb text only
        parts.append(f"<pre class=lasso id=lasso>{esc(lasso_text(verdict.witness, program, ''))}</pre>")
    if svg is not None:
        parts.append(
            "<p class=note>States: memory | pcs, the model's memory; steps T&lt;thread&gt;:&lt;instruction&gt; "
            "{F}; end states doubly outlined; the witness shaded, its loop in red, the way there in blue.</p>"
        )
        parts.append(f"<div class=picture id=picture>{svg}</div>")
    elif note:
        parts.append(f"<p class=note id=picture-note>{esc(note)}</p>")
    return "".join(parts)


def playground_page(text: str, checked: Checked | None, svg: str | None, note: str | None) -> str:
    form = (
        "<form method=get action=/playground id=play>"
        f"<textarea name=test id=test spellcheck=false wrap=off>{esc(text)}</textarea>"
        "<p><button type=submit id=check>Check</button> "
        "<span class=muted>The test lives in this page's address: copy it to share the test.</span></p></form>"
    )
    result = ""
    if checked is not None and checked.error is not None:
        result = error_box(checked.error, text)
    elif checked is not None and checked.report is not None:
        report = checked.report
        head = f"<p><b>{esc(report.program.name)}</b> · canonical hash <code>{esc(report.hash)}</code></p>"
        if checked.inconclusive:
            head += "<p class=inconclusive>Inconclusive: a bound of this server stopped the check (as exit 3).</p>"
        table_html = verdict_table(report, checked.view, "/playground", {"test": text})
        result = head + table_html + view_section(report, checked.view, svg, note)
    body = (
        "<p class=muted>Write an AXB test (the language: docs/axb.md): threads of "
        "<code>AXB(loc, cmp, target, xchg, val)</code>. Check gives its verdict under every progress model "
        "and fairness, the lasso of non-termination and the LTS.</p>"
        f"<div class=columns><div>{form}</div><div id=result>{result}</div></div>"
    )
    return page("Playground", body)
