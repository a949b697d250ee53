"""The playground page. Pure: data in, HTML out.

The form posts (a test up to the size limit fits in any body; the text's
line ends are read back as typed, `play_form.typed`), and every result
carries a link that holds the whole test in its address, to share it.
Without scripts the page works as a plain form; `play.js` checks in place
(a running indicator, one check at a time), counts the bytes as you type,
uploads and downloads files; `view.js` draws another verdict in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlencode

from progress.errors import InputError
from progress.front.header import MARKERS
from progress.models.base import ProgressModel
from progress.web.examples import Example
from progress.web.glossary import term
from progress.web.html import attr, esc, link, page
from progress.web.kernel_check import LaunchFields
from progress.web.limits import Limits
from progress.web.playground import LANGUAGES, Checked, TooLarge, source_name, stopped_because
from progress.web.verdict_view import Links, verdict_table, view_name, view_section


def suffix(language: str) -> str:
    """The file suffix of a language's test, for uploads and saves (play.js reads it from the page):
    `.axb`, or the suffix of the name a kernel language's errors give it (`kernel_check.SOURCES`)."""
    return PurePosixPath(source_name(language)).suffix if language in LANGUAGES else ".txt"


def marker(language: str) -> str:
    """The comment marker that starts a test's `expect:` line in `language`."""
    return "#" if language == "axb" else MARKERS.get(language, "//")


@dataclass(frozen=True)
class Shown:
    """Everything the playground page shows: the editor's text and language,
    the launch fields, the check (None: not checked), the drawn verdict's SVG."""

    text: str
    language: str = "axb"
    fields: LaunchFields = LaunchFields()
    checked: Checked | None = None
    svg: str | None = None
    examples: Sequence[Example] = ()
    suites: dict[str, Sequence[str]] = field(default_factory=dict)
    """Suite name -> its tests' keys, to load one into the editor."""
    models: Sequence[ProgressModel] = ()
    limits: Limits = Limits()


def play_query(text: str, language: str, fields: LaunchFields) -> dict[str, str]:
    """The playground address's query for a test (`view` added by the caller)."""
    return {"lang": language, "test": text, **fields.query()}


def play_links(text: str, language: str, fields: LaunchFields) -> Links:
    return Links("/playground", "/playground/view", "/playground/picture", play_query(text, language, fields))


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


def _language_options(language: str) -> str:
    return "".join(
        f"<option value={attr(key)}{' selected' if key == language else ''} "
        f"data-suffix={attr(suffix(key))}>{esc(name)}</option>"
        for key, name in LANGUAGES.items()
    )


def _accepted() -> str:
    """The file suffixes the editor opens: each language's, `.glsl` and `.txt`."""
    return ",".join([*(suffix(key) for key in LANGUAGES), ".glsl", ".txt"])


def launch_fieldset(language: str, fields: LaunchFields) -> str:
    """The launch fields (hidden for an .axb test), named as the URL names them."""
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
        f"<fieldset id=launch{hidden}><legend>Launch: each field given overrides the header's "
        f"<code>// progress:</code> option, as on the command line</legend>{launch}</fieldset>"
    )


def _form(shown: Shown) -> str:
    size = len(shown.text.encode("utf-8"))
    limit = shown.limits.max_test_bytes
    return (
        "<form method=post action=/playground id=play>"
        f"<div class=editor-bar><label>Language <select name=lang id=lang>{_language_options(shown.language)}"
        "</select></label><span class=files hidden><label class=file>Open a file "
        f"<input type=file id=upload accept={attr(_accepted())}></label>"
        "<button type=button id=save class=quiet>Save the test</button></span></div>"
        f"<textarea name=test id=test spellcheck=false wrap=soft rows=22 aria-label='the test'>{esc(shown.text)}"
        f"</textarea><p class='muted size' id=size data-limit={limit}>{size} of {limit} bytes</p>"
        f"{launch_fieldset(shown.language, shown.fields)}"
        "<p class=actions><button type=submit id=check>Check</button> "
        "<span id=running class=running hidden role=status>Checking…</span></p></form>"
    )


def _examples(examples: Sequence[Example]) -> str:
    items = [
        f"{link('/playground', e.name, {'example': e.name})} <span class=muted>({esc(LANGUAGES[e.language])})</span>"
        for e in examples
    ]
    return "<p class=examples id=examples>Examples: " + " · ".join(items) + "</p>"


def _load_form(suites: dict[str, Sequence[str]]) -> str:
    """Load a suite's test into the editor: a suite, a key (typed, or chosen from the list)."""
    if not suites:
        return ""
    options = "".join(f"<option value={attr(name)}>{esc(name)}</option>" for name in suites)
    keys = "".join(f"<option value={attr(key)}>" for keys in suites.values() for key in keys)
    return (
        "<form method=get action=/playground class=inline id=load><label>Load a suite's test: "
        f"<select name=suite id=load-suite>{options}</select></label>"
        "<input name=key id=load-key list=suite-keys placeholder='2t2i/1.axb' size=16 required "
        f"aria-label='the test'><datalist id=suite-keys>{keys}</datalist>"
        "<button type=submit class=quiet>Load</button></form>"
    )


def _expected(checked: Checked) -> str:
    if not checked.expected:
        return ""
    kind = "ok" if checked.expected_ok else "mismatch"
    said = marker(checked.language)
    lines = "\n".join(checked.expected)
    return (
        f"<div class={attr('expect ' + kind)} id=expect><b>The test's <code>{esc(said)} expect:</code> line"
        f" (as <code>progress check --expect-header</code>)</b><pre>{esc(lines)}</pre></div>"
    )


def _inconclusive(checked: Checked, limits: Limits) -> str:
    assert checked.report is not None
    stopped = next((v for v in checked.report.verdicts if v.terminates is None), None)
    if stopped is None:
        return ""
    return (
        f"<p class=inconclusive id=inconclusive>{term('inconclusive', 'Inconclusive')}: "
        + esc(stopped_because(stopped, checked, limits))
        + "</p>"
    )


def _head(checked: Checked, share: str) -> str:
    report = checked.report
    assert report is not None
    kind = esc(LANGUAGES[checked.language])
    launch = f" · launched with {esc(checked.launch)}" if checked.launch else ""
    hashed = "canonical hash" if checked.language == "axb" else "hash"
    return (
        f"<p class=summary><b>{esc(report.program.name)}</b> · {kind}{launch} · {hashed} "
        f"<code>{esc(report.hash)}</code></p><p class=share><a href={attr(share)} id=share>Link to this check</a> "
        "<span class=muted>(the address holds the whole test)</span> · "
        f"<a href=# id=download-verdicts hidden data-name={attr(source_name(checked.language))}>"
        "download the verdicts (JSON)</a></p>" + "".join(f"<p class=note>{esc(note)}</p>" for note in checked.notes)
    )


def result_html(shown: Shown) -> str:
    """The result column: the error, or the verdicts, expectations, lasso and picture."""
    checked = shown.checked
    if checked is None:
        return "<div id=result></div>"
    if checked.error is not None:
        body = error_box(checked.error, "" if isinstance(checked.error, TooLarge) else checked.text)
        return f"<div id=result>{body}</div>"
    assert checked.report is not None
    links = play_links(checked.text, checked.language, shown.fields)
    share = "/playground?" + urlencode({**links.query, **({"view": view_name(checked.view)} if checked.view else {})})
    drawing = checked.drawing
    return (
        f"<div id=result>{_head(checked, share)}{_expected(checked)}{_inconclusive(checked, shown.limits)}"
        f"{verdict_table(checked.report, checked.view, links, shown.models)}"
        f"{view_section(checked.report, checked.view, shown.svg, drawing.note, drawing.steps, links)}</div>"
    )


LEAD = (
    "Write a test and check it under every {model}: whether it is {passes} or {fails}, with a {lasso} "
    "of the run that never ends and the LTS it lives in. A test is an {axb} program "
    "(<a href=/docs/axb>the language</a>) or a {kernel} in GLSL, HLSL, WGSL or SPIR-V assembly "
    "(<a href=/docs/kernels>kernels</a>: the header's <code>// progress:</code> line gives its launch)."
)


def playground_page(shown: Shown) -> str:
    """The playground: the form, the examples, a suite's test to load, and the result."""
    lead = LEAD.format(
        model=term("progress model"),
        passes=term("guaranteed to terminate"),
        fails=term("may not terminate"),
        lasso=term("lasso"),
        axb=term("AXB"),
        kernel=term("kernel"),
    )
    body = (
        f"{_examples(shown.examples)}{_load_form(shown.suites)}"
        f"<div class=columns><div class=editor>{_form(shown)}</div>{result_html(shown)}</div>"
    )
    return page("Playground", body, ("play.js", "view.js"), lead=lead)
