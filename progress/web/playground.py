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

from progress.back.draw import Picture, edge_id, follow, kernel_picture, node_id, picture, to_dot
from progress.core.analyze import NO_FAIRNESS, Query, TestReport, Verdict, check_program, check_system, queries_for
from progress.core.program import Program
from progress.core.system import System
from progress.core.witness import Lasso
from progress.errors import Inconclusive, InputError
from progress.front.axb.parse import parse_program
from progress.front.expect import NoExpectLine, expectations, known_verdicts, mismatches
from progress.front.header import MARKERS, kernel_expectations
from progress.models.base import ProgressModel
from progress.report.render import (
    expectation_lines,
    kernel_lasso_text,
    lasso_text,
    phrase,
    report_dict,
    verdict_line,
)
from progress.web.kernel_check import SOURCES, LaunchFields, launch_text, load_system
from progress.web.limits import Limits, state_bound

SOURCE = "test.axb"
"""The name errors give the playground's .axb text (`test.axb:3:7`)."""
LANGUAGES = {"axb": "AXB", "glsl": "GLSL", "hlsl": "HLSL", "wgsl": "WGSL", "spvasm": "SPIR-V assembly"}
"""The playground's languages (the URL's `lang`) and their names, in the
language switch's order. A kernel language also needs its source name in
`kernel_check.SOURCES` (its suffix is the editor's) and its comment marker
in `front.header.MARKERS`; everything else follows."""
OPTIMIZE_NOTE = (
    "The header asks for --optimize: the playground checks the module as compiled; "
    "`progress check --optimize` also checks it after spirv-opt -O and says what differs."
)


def source_name(language: str) -> str:
    """The name errors and lassos give the text of a test in `language`."""
    return SOURCE if language == "axb" else SOURCES[language]


class TooLarge(InputError):
    """A test (with its launch fields) larger than the playground checks."""


@dataclass(frozen=True)
class Step:
    """One step of a drawn lasso: the node it leaves, the edge it takes and
    the node it reaches, as the SVG names them (`back.draw.node_id`, `edge_id`)."""

    source: str
    edge: str
    target: str


@dataclass(frozen=True)
class Drawing:
    """A verdict's LTS as DOT, or None and `note` saying why not; `steps`
    follow its lasso through the picture."""

    dot: str | None
    note: str | None = None
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True)
class Checked:
    """A check of the playground's text: an error, or a report. `view` is the
    (model, fairness) drawn, `drawing` its picture; `expected` the lines
    comparing the text's `expect:` line with the verdicts (empty without one),
    `expected_ok` whether all of it holds; `bound` the state bound applied."""

    text: str
    error: InputError | None
    report: TestReport | None
    view: tuple[str, str] | None = None
    drawing: Drawing = Drawing(None)
    language: str = "axb"
    launch: str | None = None
    """A kernel's launch as checked (`launch_text`)."""
    notes: tuple[str, ...] = ()
    expected: tuple[str, ...] = ()
    expected_ok: bool | None = None
    bound: int = 0
    cells: int = 0
    """Threads (invocations) and locations (cells): what a state holds, for the state cell bound."""

    @property
    def inconclusive(self) -> bool:
        return self.report is not None and any(v.terminates is None for v in self.report.verdicts)

    @property
    def dot(self) -> str | None:
        return self.drawing.dot

    @property
    def note(self) -> str | None:
        return self.drawing.note


def too_large(text: str, fields: LaunchFields, limits: Limits) -> TooLarge | None:
    size = len(text.encode("utf-8")) + sum(len(v.encode("utf-8")) for v in fields.query().values())
    if size > limits.max_test_bytes:
        fields_too = ", the launch fields included" if fields.given else ""
        return TooLarge(
            f"the test is {size} bytes; the playground checks at most {limits.max_test_bytes} "
            f"({limits.max_test_bytes // 1024} KiB{fields_too}): shorten it, or check it on your machine "
            "with `progress check`, which has no such limit"
        )
    return None


def check_text(
    text: str,
    models: Sequence[ProgressModel],
    limits: Limits,
    view: tuple[str, str] | None = None,
    language: str = "axb",
    fields: LaunchFields | None = None,
    only_view: bool = False,
) -> Checked:
    """Read `text` as `language` (a key of LANGUAGES; a kernel launched by
    its header and `fields`) and check it; draw `view` (default: the first
    verdict that may not terminate, else fair weak). With `only_view`, check
    that one verdict alone (a "draw" link: the other ten are known already)."""
    fields = fields or LaunchFields()
    error: InputError | None = too_large(text, fields, limits)
    if error is None and language not in LANGUAGES:
        error = InputError(f"unknown language {language[:20]!r}: the playground reads {', '.join(LANGUAGES)}")
    if error is None and language == "axb" and fields.given:
        error = InputError("the launch fields (workgroups, buffers, init) are for kernels; an .axb test has none")
    if error is not None:
        return Checked(text, error, None, language=language)
    queries = _queries(models, view if only_view else None)
    try:
        subject, report, launch, notes, bound, cells = _check(text, language, fields, queries, limits)
    except InputError as bad:  # a kernel's run-time error (an index out of bounds) is one too
        return Checked(text, bad, None, language=language)
    chosen = view if view is not None and _find(report, view) is not None else default_view(report)
    drawing = draw(subject, models, chosen, report, limits)
    expected, ok = ((), None) if only_view else compare_expectations(text, language, report, models)
    return Checked(text, None, report, chosen, drawing, language, launch, notes, expected, ok, bound, cells)


def _queries(models: Sequence[ProgressModel], view: tuple[str, str] | None) -> list[Query]:
    every = queries_for(models)
    if view is None:
        return every
    wanted = [q for q in every if (q.model.name, q.fairness) == view]
    return wanted or every


def _check(
    text: str, language: str, fields: LaunchFields, queries: list[Query], limits: Limits
) -> tuple[Program | System, TestReport, str | None, tuple[str, ...], int, int]:
    """The subject read from `text`, its report, a kernel's launch and notes,
    the state bound applied and the cells a state holds."""
    if language == "axb":
        program = parse_program(text, SOURCE)
        cells = len(program.threads) + len(program.locations)
        bound = state_bound(limits, len(program.threads), len(program.locations))
        report = check_program(program, queries, max_states=bound, time_limit=limits.time_limit_s)
        return program, report, None, (), bound, cells
    system, settings, read = load_system(text, language, fields, limits)
    cells = len(system.groups) + len(system.layout.initial)
    bound = state_bound(limits, len(system.groups), len(system.layout.initial))
    report = check_system(system, queries, max_states=bound, time_limit=limits.time_limit_s)
    notes = read + ((OPTIMIZE_NOTE,) if settings.optimize else ())
    return system, report, launch_text(system, settings), notes, bound, cells


def compare_expectations(
    text: str, language: str, report: TestReport, models: Sequence[ProgressModel]
) -> tuple[tuple[str, ...], bool | None]:
    """The text's `expect:` line against the report, in `check
    --expect-header`'s words, and whether every expectation holds; nothing
    without such a line; a line that does not read says why."""
    marker = "#" if language == "axb" else MARKERS[language]
    known = known_verdicts(queries_for(models))
    try:
        if language == "axb":
            expected = expectations(text, SOURCE, known)
        else:
            expected = kernel_expectations(text, source_name(language), language, known)
    except NoExpectLine:
        return (), None
    except InputError as bad:
        return (f"the {marker} expect: line: {bad.render()}",), False
    expected = {key: want for key, want in expected.items() if "/" not in key[0]}  # scoped cells: `check` only
    wrong = mismatches(report, expected)
    return tuple(expectation_lines(report.program.name, len(expected), wrong)), not wrong and bool(expected)


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
) -> Drawing:
    """The LTS of `view`'s verdict (of an .axb Program or a kernel's
    System) with its lasso's steps, or the reason it is not drawn."""
    verdict = _find(report, view)
    if verdict is None or verdict.terminates is None:
        return Drawing(None, "the check was inconclusive, so there is nothing to draw")
    if verdict.states > limits.draw_states:
        return Drawing(None, f"the LTS has {verdict.states} states; pictures are drawn up to {limits.draw_states}")
    model = next(m for m in models if m.name == view[0])
    try:
        if isinstance(subject, Program):
            drawn = picture(subject, model, view[1], limits.draw_states)
        else:
            drawn = kernel_picture(subject, model, view[1], limits.draw_states)
    except Inconclusive as stop:  # not reached: the check bounded it first
        return Drawing(None, f"not drawn: {stop.reason}")
    return Drawing(to_dot(drawn, with_ids=True), None, lasso_steps(drawn, verdict.witness))


def lasso_steps(drawn: Picture, lasso: Lasso | None) -> tuple[Step, ...]:
    """`lasso`'s steps through the picture's states (the check's lasso and
    the picture's LTS start alike, so its steps are edges there)."""
    if lasso is None:
        return ()
    try:
        edges = follow(drawn.lts, [step.thread for step in lasso.steps])
    except StopIteration:  # not reached: the lasso is a path of this LTS
        return ()
    return tuple(Step(node_id(a), edge_id(a, t, b), node_id(b)) for a, t, b in edges)


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
    body["expected"] = list(checked.expected)
    body["expected_ok"] = checked.expected_ok
    return body


def stopped_because(verdict: Verdict, checked: Checked, limits: Limits) -> str:
    """Why an inconclusive verdict stopped, naming the bound and what the user can change."""
    name = source_name(checked.language)
    if verdict.reason == "stopped at the time limit":
        return (
            f"The check stopped after {limits.time_limit_s:g} s, this server's time limit. On your machine, "
            f"`progress check --time-limit 600 {name}` gives it longer."
        )
    if verdict.reason is not None and verdict.reason.startswith("stopped at the state bound"):
        if checked.bound < limits.max_states:
            why = (
                f"this server explores at most {limits.max_state_cells:,} state cells, states x (threads + "
                f"locations), and a state of this {'kernel' if checked.language != 'axb' else 'test'} holds "
                f"{checked.cells}"
            )
        else:
            why = "this server explores at most that many states"
        fewer = " or launch fewer workgroups (the --workgroups field)" if checked.language != "axb" else ""
        return (
            f"The check stopped at {checked.bound:,} states: {why}. Check it on your machine with "
            f"`progress check --max-states 10000000 {name}`{fewer}."
        )
    return f"The check stopped: {verdict.reason}."
