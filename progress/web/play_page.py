"""The playground page and the parts it shares with a suite's test page:
the verdict table, the lasso, the picture. Pure: data in, HTML out.

The playground's form is a GET form (no script needed): the language, the
text, a kernel's launch fields; so the address holds the whole test.
`play.js` only hides the launch fields while AXB is chosen."""

from __future__ import annotations

from collections.abc import Sequence

from progress.core.analyze import NO_FAIRNESS, TestReport
from progress.core.program import Program
from progress.errors import InputError
from progress.report.render import label, phrase
from progress.web.examples import Example
from progress.web.html import attr, esc, link, page, table
from progress.web.kernel_check import LaunchFields
from progress.web.playground import LANGUAGES, Checked, witness_text

AXB_PICTURE = (
    "States: memory | pcs, the model's memory; steps T&lt;thread&gt;:&lt;instruction&gt; "
    "{F}; end states doubly outlined; the witness shaded, its loop in red, the way there in blue."
)
KERNEL_PICTURE = (
    "States: the shared cells | each invocation's next source line (<code>waits</code> at a barrier, "
    "<code>ret</code> once returned), the model's memory; steps &lt;workgroup&gt;.&lt;invocation&gt;:&lt;line&gt; "
    "{F}; end states doubly outlined; the witness shaded (a deadlock: the dead states), its loop in red, "
    "the way there in blue."
)


def view_name(view: tuple[str, str]) -> str:
    """`OBE/weak`, or the bare model name without fairness (the URL's `view`)."""
    return view[0] if view[1] == NO_FAIRNESS else f"{view[0]}/{view[1]}"


def parse_view(text: str | None) -> tuple[str, str] | None:
    if not text:
        return None
    model, _, fairness = text.partition("/")
    return model, fairness or NO_FAIRNESS


def error_box(error: InputError, text: str) -> str:
    """The error message at line:col, then the source with that line marked
    and a caret (under the statement's first character when the column is 1
    of an indented line: a SPIR-V instruction's source line has no column)."""
    position = error.position
    where = f"{position}: " if position is not None else ""
    out = [f"<div class=error id=error>{esc(where)}error: {esc(error.message)}</div>"]
    if position is not None and text:
        rows = []
        for number, line in enumerate(text.splitlines(), 1):
            mark = " class=bad" if number == position.line else ""
            rows.append(f"<span{mark}>{number:>4}  {esc(line)}</span>")
            if number == position.line:
                column = max(position.column, len(line) - len(line.lstrip()) + 1)
                rows.append(f"<span class=caret>{' ' * (column + 5)}^</span>")
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
        parts.append(f"<pre class=lasso id=lasso>{esc(witness_text(verdict.witness, report.program))}</pre>")
    if svg is not None:
        legend = AXB_PICTURE if isinstance(report.program, Program) else KERNEL_PICTURE
        parts.append(f"<p class=note>{legend}</p>")
        parts.append(f"<div class=picture id=picture>{svg}</div>")
    elif note:
        parts.append(f"<p class=note id=picture-note>{esc(note)}</p>")
    return "".join(parts)


def play_query(text: str, language: str, fields: LaunchFields) -> dict[str, str]:
    """The playground address's query for a test (`view` added by the caller)."""
    return {"lang": language, "test": text, **fields.query()}


def _form(text: str, language: str, fields: LaunchFields) -> str:
    options = "".join(
        f"<option value={attr(key)}{' selected' if key == language else ''}>{esc(name)}</option>"
        for key, name in LANGUAGES.items()
    )
    hidden = " hidden disabled" if language == "axb" else ""
    inputs = [
        ("workgroups", "--workgroups", fields.workgroups, "N", 5),
        ("buffer", "--buffer", fields.buffer, "NAME=LEN ...", 18),
        ("init", "--init", fields.init, "NAME=V NAME[i]=V ...", 22),
        ("spec", "--spec", fields.spec, "ID=V NAME=V ...", 14),
        ("push", "--push", fields.push, "NAME=V ...", 14),
        ("local_size", "--local-size", fields.local_size, "X,Y,Z", 8),
    ]
    launch = "".join(
        f"<label>{esc(flag)} <input name={attr(name)} id={attr(name)} value={attr(value)} "
        f"placeholder={attr(hint)} size={size} spellcheck=false></label> "
        for name, flag, value, hint, size in inputs
    )
    return (
        "<form method=get action=/playground id=play>"
        f"<p><label>Language <select name=lang id=lang>{options}</select></label></p>"
        f"<textarea name=test id=test spellcheck=false wrap=off>{esc(text)}</textarea>"
        f"<fieldset id=launch{hidden}><legend>Launch: each field given overrides the header's "
        "<code>// progress:</code> option, as on the command line</legend>"
        f"{launch}</fieldset>"
        "<p><button type=submit id=check>Check</button> "
        "<span class=muted>The test lives in this page's address: copy it to share the test.</span></p></form>"
    )


def _examples(examples: Sequence[Example]) -> str:
    items = [
        f"{link('/playground', e.name, {'example': e.name})} <span class=muted>({esc(LANGUAGES[e.language])})</span>"
        for e in examples
    ]
    return "<p class=examples id=examples>Examples: " + " · ".join(items) + "</p>"


def _head(checked: Checked) -> str:
    report = checked.report
    assert report is not None
    kind = esc(LANGUAGES[checked.language])
    launch = f" · launched with {esc(checked.launch)}" if checked.launch else ""
    head = (
        f"<p><b>{esc(report.program.name)}</b> · {kind}{launch} · "
        f"{'canonical hash' if checked.language == 'axb' else 'hash'} <code>{esc(report.hash)}</code></p>"
    )
    head += "".join(f"<p class=note>{esc(note)}</p>" for note in checked.notes)
    if checked.inconclusive:
        head += "<p class=inconclusive>Inconclusive: a bound of this server stopped the check (as exit 3).</p>"
    return head


def playground_page(
    text: str,
    checked: Checked | None,
    svg: str | None,
    note: str | None,
    language: str = "axb",
    fields: LaunchFields | None = None,
    examples: Sequence[Example] = (),
) -> str:
    """The playground: the form (`text` in `language`, `fields`), the
    examples, and `checked`'s error or verdicts, lasso and picture."""
    fields = fields or LaunchFields()
    result = ""
    if checked is not None and checked.error is not None:
        result = error_box(checked.error, text)
    elif checked is not None and checked.report is not None:
        query = play_query(text, language, fields)
        table_html = verdict_table(checked.report, checked.view, "/playground", query)
        result = _head(checked) + table_html + view_section(checked.report, checked.view, svg, note)
    body = (
        "<p class=muted>Write an AXB test (the language: docs/axb.md), threads of "
        "<code>AXB(loc, cmp, target, xchg, val)</code>, or a compute kernel in GLSL, HLSL or SPIR-V assembly "
        "(docs/kernels.md: its header's <code>// progress:</code> line gives its launch). Check gives its verdict "
        "under every progress model and fairness, the lasso of non-termination and the LTS.</p>"
        f"{_examples(examples)}"
        f"<div class=columns><div>{_form(text, language, fields)}</div><div id=result>{result}</div></div>"
    )
    return page("Playground", body, ("play.js",))
