"""The playground's work: read a test's text (an .axb test, or a GLSL, HLSL
or SPIR-V assembly kernel through `kernel_check`), check it under every model
within the request's bounds, and draw one verdict's LTS with its lasso.

The same pure functions as `progress check` and `progress show` (parse or
`load_kernel`, `check_program` or `check_system`, `report.render`,
`back.draw`); no second checker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from progress.back.draw import kernel_picture, picture, to_dot
from progress.core.analyze import NO_FAIRNESS, TestReport, Verdict, check_program, check_system, queries_for
from progress.core.program import Program
from progress.core.system import System
from progress.core.witness import Lasso
from progress.errors import Inconclusive, InputError
from progress.front.axb.parse import parse_program
from progress.models.base import ProgressModel
from progress.report.render import kernel_lasso_text, lasso_text, phrase, report_dict, verdict_line
from progress.web.kernel_check import SOURCES, LaunchFields, launch_text, load_system
from progress.web.limits import Limits, state_bound

SOURCE = "test.axb"
"""The name errors give the playground's .axb text (`test.axb:3:7`)."""
LANGUAGES = {"axb": "AXB", "glsl": "GLSL", "hlsl": "HLSL", "spvasm": "SPIR-V assembly"}
"""The playground's languages (the URL's `lang`) and their names."""
OPTIMIZE_NOTE = (
    "The header asks for --optimize: the playground checks the module as compiled; "
    "`progress check --optimize` also checks it after spirv-opt -O and says what differs."
)


def source_name(language: str) -> str:
    """The name errors and lassos give the text of a test in `language`."""
    return SOURCE if language == "axb" else SOURCES[language]


@dataclass(frozen=True)
class Checked:
    """A check of the playground's text: an error, or a report. `view` is the
    (model, fairness) drawn; `dot` its picture, or None with `note` saying why."""

    text: str
    error: InputError | None
    report: TestReport | None
    view: tuple[str, str] | None = None
    dot: str | None = None
    note: str | None = None
    language: str = "axb"
    launch: str | None = None
    """A kernel's launch as checked (`launch_text`)."""
    notes: tuple[str, ...] = ()

    @property
    def inconclusive(self) -> bool:
        return self.report is not None and any(v.terminates is None for v in self.report.verdicts)


def too_large(text: str, limits: Limits) -> InputError | None:
    size = len(text.encode("utf-8"))
    if size > limits.max_test_bytes:
        return InputError(f"the test is {size} bytes; the playground checks at most {limits.max_test_bytes}")
    return None


def check_text(
    text: str,
    models: Sequence[ProgressModel],
    limits: Limits,
    view: tuple[str, str] | None = None,
    language: str = "axb",
    fields: LaunchFields | None = None,
) -> Checked:
    """Read `text` as `language` (a key of LANGUAGES; a kernel launched by
    its header and `fields`) and check it; draw `view` (default: the first
    verdict that may not terminate, else fair weak)."""
    fields = fields or LaunchFields()
    error = too_large(text, limits)
    if error is None and language not in LANGUAGES:
        error = InputError(f"unknown language {language[:20]!r}: the playground reads {', '.join(LANGUAGES)}")
    if error is None and language == "axb" and fields.given:
        error = InputError("the launch fields (workgroups, buffers, init) are for kernels; an .axb test has none")
    if error is not None:
        return Checked(text, error, None, language=language)
    queries = queries_for(models)
    launch: str | None = None
    notes: tuple[str, ...] = ()
    subject: Program | System
    try:
        if language == "axb":
            subject = parse_program(text, SOURCE)
            bound = state_bound(limits, len(subject.threads), len(subject.locations))
            report = check_program(subject, queries, max_states=bound, time_limit=limits.time_limit_s)
        else:
            subject, settings = load_system(text, language, fields, limits)
            bound = state_bound(limits, len(subject.groups), len(subject.layout.initial))
            report = check_system(subject, queries, max_states=bound, time_limit=limits.time_limit_s)
            launch = launch_text(subject, settings)
            notes = (OPTIMIZE_NOTE,) if settings.optimize else ()
    except InputError as bad:  # a kernel's run-time error (an index out of bounds) is one too
        return Checked(text, bad, None, language=language)
    chosen = view if view is not None and _find(report, view) is not None else default_view(report)
    dot, note = draw(subject, models, chosen, report, limits)
    return Checked(text, None, report, chosen, dot, note, language, launch, notes)


def default_view(report: TestReport) -> tuple[str, str]:
    failing = next((v for v in report.verdicts if v.terminates is False and v.fairness != NO_FAIRNESS), None)
    chosen = failing or _find(report, ("fair", "weak")) or report.verdicts[0]
    return chosen.model, chosen.fairness


def _find(report: TestReport, view: tuple[str, str]) -> Verdict | None:
    return next((v for v in report.verdicts if (v.model, v.fairness) == view), None)


def draw(
    subject: Program | System,
    models: Sequence[ProgressModel],
    view: tuple[str, str],
    report: TestReport,
    limits: Limits,
) -> tuple[str | None, str | None]:
    """The DOT text of `view`'s LTS (of an .axb Program or a kernel's
    System), or None and the reason it is not drawn."""
    verdict = _find(report, view)
    if verdict is None or verdict.terminates is None:
        return None, "the check was inconclusive, so there is nothing to draw"
    if verdict.states > limits.draw_states:
        return None, f"the LTS has {verdict.states} states; pictures are drawn up to {limits.draw_states}"
    model = next(m for m in models if m.name == view[0])
    try:
        if isinstance(subject, Program):
            return to_dot(picture(subject, model, view[1], limits.draw_states)), None
        return to_dot(kernel_picture(subject, model, view[1], limits.draw_states)), None
    except Inconclusive as stop:  # not reached: the check bounded it first
        return None, f"not drawn: {stop.reason}"


def lines(report: TestReport) -> list[str]:
    """`progress check`'s verdict lines, one per verdict."""
    return [verdict_line(report, v) for v in report.verdicts]


def witness_text(lasso: Lasso, subject: Program | System) -> str:
    """A lasso as `progress check` prints it: an .axb test's steps, or a
    kernel's in source lines."""
    return lasso_text(lasso, subject, "") if isinstance(subject, Program) else kernel_lasso_text(lasso, "")


def result_dict(checked: Checked) -> dict[str, Any]:
    """The JSON answer of /api/check: the error with its position, or the
    verdicts (`report.render`'s JSON object plus each lasso as text)."""
    if checked.error is not None:
        position = checked.error.position
        return {
            "ok": False,
            "error": checked.error.message,
            "line": position.line if position else None,
            "column": position.column if position else None,
            "rendered": checked.error.render(),
        }
    assert checked.report is not None
    body = report_dict(checked.report, source_name(checked.language))
    subject = checked.report.program
    for entry, verdict in zip(body["results"], checked.report.verdicts):
        entry["verdict"] = phrase(verdict)
        entry["lasso"] = None if verdict.witness is None else witness_text(verdict.witness, subject)
    body["ok"] = True
    body["language"] = checked.language
    body["launch"] = checked.launch
    body["notes"] = list(checked.notes)
    body["inconclusive"] = checked.inconclusive
    body["lines"] = lines(checked.report)
    body["view"] = list(checked.view) if checked.view else None
    return body
