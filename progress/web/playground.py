"""The playground's work: parse a test's text, check it under every model
within the request's bounds, and draw one verdict's LTS with its lasso.

The same pure functions as `progress check` and `progress show` (parse,
`check_program`, `report.render`, `back.draw`); no second checker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from progress.back.draw import picture, to_dot
from progress.core.analyze import NO_FAIRNESS, TestReport, Verdict, check_program, queries_for
from progress.core.program import Program
from progress.errors import Inconclusive, InputError
from progress.front.axb.parse import parse_program
from progress.models.base import ProgressModel
from progress.report.render import lasso_text, phrase, report_dict, verdict_line
from progress.web.limits import Limits, state_bound

SOURCE = "test.axb"
"""The name errors give the playground's text (`test.axb:3:7`)."""


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

    @property
    def inconclusive(self) -> bool:
        return self.report is not None and any(v.terminates is None for v in self.report.verdicts)


def too_large(text: str, limits: Limits) -> InputError | None:
    size = len(text.encode("utf-8"))
    if size > limits.max_test_bytes:
        return InputError(f"the test is {size} bytes; the playground checks at most {limits.max_test_bytes}")
    return None


def check_text(
    text: str, models: Sequence[ProgressModel], limits: Limits, view: tuple[str, str] | None = None
) -> Checked:
    """Parse and check `text`; draw `view` (default: the first verdict that
    may not terminate, else fair weak)."""
    error = too_large(text, limits)
    if error is not None:
        return Checked(text, error, None)
    try:
        program = parse_program(text, SOURCE)
    except InputError as bad:
        return Checked(text, bad, None)
    bound = state_bound(limits, len(program.threads), len(program.locations))
    report = check_program(program, queries_for(models), max_states=bound, time_limit=limits.time_limit_s)
    chosen = view if view is not None and _find(report, view) is not None else default_view(report)
    dot, note = draw(program, models, chosen, report, limits)
    return Checked(text, None, report, chosen, dot, note)


def default_view(report: TestReport) -> tuple[str, str]:
    failing = next((v for v in report.verdicts if v.terminates is False and v.fairness != NO_FAIRNESS), None)
    chosen = failing or _find(report, ("fair", "weak")) or report.verdicts[0]
    return chosen.model, chosen.fairness


def _find(report: TestReport, view: tuple[str, str]) -> Verdict | None:
    return next((v for v in report.verdicts if (v.model, v.fairness) == view), None)


def draw(
    program: Program,
    models: Sequence[ProgressModel],
    view: tuple[str, str],
    report: TestReport,
    limits: Limits,
) -> tuple[str | None, str | None]:
    """The DOT text of `view`'s LTS, or None and the reason it is not drawn."""
    verdict = _find(report, view)
    if verdict is None or verdict.terminates is None:
        return None, "the check was inconclusive, so there is nothing to draw"
    if verdict.states > limits.draw_states:
        return None, f"the LTS has {verdict.states} states; pictures are drawn up to {limits.draw_states}"
    model = next(m for m in models if m.name == view[0])
    try:
        return to_dot(picture(program, model, view[1], limits.draw_states)), None
    except Inconclusive as stop:  # not reached: the check bounded it first
        return None, f"not drawn: {stop.reason}"


def lines(report: TestReport) -> list[str]:
    """`progress check`'s verdict lines, one per verdict."""
    return [verdict_line(report, v) for v in report.verdicts]


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
    body = report_dict(checked.report, SOURCE)
    program = checked.report.program
    assert isinstance(program, Program)  # the playground checks .axb text only
    for entry, verdict in zip(body["results"], checked.report.verdicts):
        entry["verdict"] = phrase(verdict)
        entry["lasso"] = None if verdict.witness is None else lasso_text(verdict.witness, program, "")
    body["ok"] = True
    body["inconclusive"] = checked.inconclusive
    body["lines"] = lines(checked.report)
    body["view"] = list(checked.view) if checked.view else None
    return body
