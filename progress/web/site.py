"""What the server holds and does, without the web framework: the suites
(fixed at start), the results database, the limits, and the work behind each
page and API answer. `app.py` adds only transport (routes, bodies, status codes).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from progress.back import wgsl_source
from progress.back.codegen import initial_cells
from progress.core.analyze import check_program, queries_for
from progress.errors import InputError
from progress.gpu.database import RunInfo, open_database
from progress.gpu.wgpu_backend import CALIBRATION
from progress.models.base import ProgressModel
from progress.web import device_pages, downloads, kernel_run_page, kernel_runs, suite_pages
from progress.web.docs import Docs
from progress.web.examples import default_text, example, examples
from progress.web.explain import verdict_words
from progress.web.html import esc, not_found_page
from progress.web.kernel_check import LaunchFields
from progress.web.limits import Limits, RateLimiter, state_bound
from progress.web.play_form import PlayRequest
from progress.web.play_page import Shown, play_links, playground_page, suffix
from progress.web.playground import LANGUAGES, Checked, Drawing, TooLarge, check_text, default_view, draw
from progress.web.runs import RunView, stored_runs
from progress.web.submit import parse_submission, to_run
from progress.web.suites import Suite, SuiteTest, TestView
from progress.web.svg import DrawError, dot_to_svg
from progress.web.test_page import TestRun, test_page
from progress.web.verdict_view import parse_view, view_name, view_section


@dataclass
class Site:
    suites: dict[str, Suite]
    db: Path
    models: tuple[ProgressModel, ...]
    limits: Limits = field(default_factory=Limits)
    docs: Docs = field(default_factory=Docs)
    rate: RateLimiter = field(init=False)
    checks: threading.BoundedSemaphore = field(init=False)

    def __post_init__(self) -> None:
        self.rate = RateLimiter(self.limits.submissions_per_minute)
        self.checks = threading.BoundedSemaphore(self.limits.concurrent_checks)

    # -- checking ------------------------------------------------------------

    def check(
        self,
        text: str,
        view: tuple[str, str] | None,
        language: str = "axb",
        fields: LaunchFields | None = None,
        only_view: bool = False,
    ) -> Checked:
        """The playground's check (a kernel's compilation included), at most
        `concurrent_checks` at once."""
        with self.checks:
            return check_text(text, self.models, self.limits, view, language, fields, only_view)

    def svg(self, drawing: Drawing) -> tuple[str | None, Drawing]:
        """The drawing as SVG, or None and the drawing with a note saying why not."""
        if drawing.dot is None:
            return None, drawing
        try:
            return dot_to_svg(drawing.dot, self.limits.draw_timeout_s), drawing
        except DrawError as error:
            return None, Drawing(None, str(error))

    def playground(self, wanted: PlayRequest) -> tuple[str, int]:
        """The playground page and its status: `wanted`'s text checked; an
        example or a suite's test loaded and checked; without a text, that
        language's first example, unchecked."""
        loaded = self._loaded(wanted)
        if isinstance(loaded, str):
            return not_found_page("/playground", loaded), 404
        text, language = loaded
        shown = Shown(
            text="",
            language=language,
            fields=wanted.fields,
            examples=examples(),
            suites={name: [t.key for t in suite.tests] for name, suite in self.suites.items()},
            models=self.models,
            limits=self.limits,
        )
        if text is None:
            fallback = default_text(language) if language in LANGUAGES else default_text("axb")
            return playground_page(replace(shown, text=fallback)), 200
        checked = self.check(text, parse_view(wanted.view), language, wanted.fields)
        svg, drawing = self.svg(checked.drawing)
        status = 413 if isinstance(checked.error, TooLarge) else 200
        return playground_page(replace(shown, text=text, checked=replace(checked, drawing=drawing), svg=svg)), status

    def _loaded(self, wanted: PlayRequest) -> tuple[str | None, str] | str:
        """The text and language to check: the request's own, an example's or
        a suite test's; or why there is none (an unknown example or test)."""
        if wanted.example is not None:
            found = example(wanted.example)
            return (found.text, found.language) if found else f"no example is named {wanted.example!r}"
        if wanted.suite is not None and wanted.key is not None:
            suite = self.suites.get(wanted.suite)
            test = suite.test(wanted.key) if suite else None
            return (test.text, "axb") if test else f"suite {wanted.suite!r} has no test {wanted.key!r}"
        return wanted.text, wanted.language

    def play_view(self, wanted: PlayRequest) -> tuple[str, int]:
        """One verdict's section of the playground (a "draw" link): that verdict
        alone checked and drawn."""
        view = parse_view(wanted.view)
        if wanted.text is None or view is None:
            return "<section id=view><p class=error>no test or no verdict named</p></section>", 400
        checked = self.check(wanted.text, view, wanted.language, wanted.fields, only_view=True)
        if checked.error is not None or checked.report is None:
            message = checked.error.message if checked.error else "nothing checked"
            return f"<section id=view><p class=error>{esc(message)}</p></section>", 400
        svg, drawing = self.svg(checked.drawing)
        links = play_links(wanted.text, wanted.language, wanted.fields)
        return view_section(checked.report, checked.view, svg, drawing.note, drawing.steps, links), 200

    def play_picture(self, wanted: PlayRequest, fmt: str) -> tuple[str, str] | None:
        """One verdict's LTS as `fmt` ("svg" or "dot"), with the file's name; None if it is not drawn."""
        view = parse_view(wanted.view)
        if wanted.text is None or view is None:
            return None
        checked = self.check(wanted.text, view, wanted.language, wanted.fields, only_view=True)
        if checked.report is None:
            return None
        return self._picture_file(checked.drawing, checked.report.program.name, view, fmt)

    def _picture_file(self, drawing: Drawing, name: str, view: tuple[str, str], fmt: str) -> tuple[str, str] | None:
        if drawing.dot is None:
            return None
        stem = f"{name}-{view_name(view).replace('/', '-')}"
        if fmt == "dot":
            return drawing.dot, f"{stem}.dot"
        svg, _ = self.svg(drawing)
        return (svg, f"{stem}.svg") if svg is not None else None

    # -- kernels on the visitor's GPU ---------------------------------------------

    def kernel_plan(self, text: str, language: str, fields: LaunchFields) -> dict[str, Any]:
        """The kernel run page's plan (`kernel_runs.plan`); an InputError says why the kernel cannot run."""
        with self.checks:
            return kernel_runs.plan(kernel_runs.prepare(text, language, fields, self.limits))

    def kernel_report(self, body: bytes) -> dict[str, Any]:
        """A posted run joined with the checker (`kernel_runs.report`)."""
        posted = kernel_runs.parse_run(body)
        if len(posted.text.encode("utf-8")) > self.limits.max_test_bytes:
            raise InputError(f"the kernel is larger than {self.limits.max_test_bytes} bytes")
        with self.checks:
            return kernel_runs.report(posted, self.models, self.limits)

    def kernel_run_page(self, wanted: PlayRequest) -> tuple[str, int]:
        """The kernel run page, with the request's kernel (or an example) in its editor."""
        loaded = self._loaded(wanted)
        if isinstance(loaded, str):
            return not_found_page("/kernel/run", loaded), 404
        text, language = loaded
        if language == "axb" or text is None:
            text, language = (text, language) if language != "axb" else (None, "glsl")
        name = f"{wanted.example}{suffix(language)}" if wanted.example else ""
        shown = kernel_run_page.Shown(text or default_text(language), language, wanted.fields, examples(), name)
        return kernel_run_page.kernel_run_page(shown), 200

    # -- suites ----------------------------------------------------------------

    def index(self) -> str:
        views = self.run_views()
        return suite_pages.index_page(list(self.suites.values()), len(views), len({v.info.device for v in views}))

    def test_view(self, suite: Suite, key: str, view_text: str | None) -> TestView | None:
        """A suite test's verdicts (from the start's check) and one verdict
        checked again with its lasso and drawn; None if there is no such test."""
        test = suite.test(key)
        if test is None:
            return None
        wanted = parse_view(view_text)
        known = wanted is not None and any((v.model, v.fairness) == wanted for v in test.report.verdicts)
        view = wanted if wanted is not None and known else default_view(test.report)
        program = test.program
        bound = state_bound(self.limits, len(program.threads), len(program.locations))
        query = [q for q in queries_for(self.models) if (q.model.name, q.fairness) == view]
        with self.checks:
            report = check_program(program, query, max_states=bound, time_limit=self.limits.time_limit_s)
            drawing = draw(program, self.models, view, report, self.limits)
        svg, drawing = self.svg(drawing)
        return TestView(test, view, report, svg, drawing)

    def test_page(self, suite: Suite, key: str, view_text: str | None) -> str | None:
        shown = self.test_view(suite, key, view_text)
        if shown is None:
            return None
        return test_page(suite, shown, self.models, self.test_runs(suite, key))

    def test_fragment(self, suite: Suite, key: str, view_text: str | None) -> str | None:
        shown = self.test_view(suite, key, view_text)
        if shown is None:
            return None
        links = suite_pages.test_links(suite, shown.test)
        drawing = shown.drawing
        return view_section(shown.report, shown.view, shown.svg, drawing.note, drawing.steps, links)

    def test_picture(self, suite: Suite, key: str, view_text: str | None, fmt: str) -> tuple[str, str] | None:
        shown = self.test_view(suite, key, view_text)
        if shown is None:
            return None
        return self._picture_file(shown.drawing, shown.test.program.name, shown.view, fmt)

    def plan(self, suite: Suite, limit: int | None, tests: Sequence[SuiteTest] | None = None) -> dict[str, Any]:
        """What the browser runner needs: every test's WGSL (the same as
        `--backend wgpu`), its thread count, initial memory, its page and the
        points (`HSA/weak`) it is a conformance test of (a failure violates them).
        `tests` (the explorer's one) replaces the suite's first `limit`."""
        chosen = tests if tests is not None else suite.tests if limit is None else suite.tests[:limit]
        return {
            "suite": suite.name,
            "suite_hash": suite.hash,
            "entry_point": wgsl_source.ENTRY_POINT,
            "calibration": {"wgsl": wgsl_source.shader(CALIBRATION), "cells": list(initial_cells(CALIBRATION))},
            "tests": [
                {
                    "key": t.key,
                    "href": suite_pages.test_href(suite, t),
                    "threads": len(t.program.threads),
                    "cells": list(initial_cells(t.program)) or [0],
                    "wgsl": wgsl_source.shader(t.program),
                    "conforms": verdict_words(t.report, self.models)[0],
                }
                for t in chosen
            ],
        }

    # -- results ---------------------------------------------------------------

    def submit(self, body: bytes, suite: str) -> dict[str, Any]:
        """Validate and store a run of `suite`; Refused says why not, a
        DatabaseError why the database would not take it."""
        submission = parse_submission(body, self.suites, suite)
        run = to_run(submission, self.suites[suite])
        with open_database(self.db, writable=True) as database:
            run_id, new = database.import_runs([run])[0]
        return {"ok": True, "run": run_id, "new": new, "device": run.device, "tests": len(submission.results)}

    def run_views(self) -> list[RunView]:
        """Every stored run on a suite this server holds, with its conformance
        over that suite's tests."""
        return stored_runs(self.db, self.suites)

    def runs(self) -> list[RunInfo]:
        return [view.info for view in self.run_views()]

    def test_runs(self, suite: Suite, key: str) -> list[TestRun]:
        return [
            TestRun(
                v.info.device,
                v.info.name,
                device_pages.device_href(v.info.device) + "#" + device_pages.run_anchor(v),
                v.rows[key],
                v.software,
            )
            for v in self.run_views()
            if v.suite == suite.name and key in v.rows
        ]

    def devices(self) -> str:
        return device_pages.devices_page(self.run_views(), self.models)

    def devices_file(self, fmt: str) -> str | None:
        return downloads.devices_file(self.run_views(), self.models, fmt) if fmt in downloads.MEDIA else None

    def device(self, name: str) -> str | None:
        views = self.run_views()
        mine = [v for v in views if v.info.device == name]
        if not mine:
            return None
        suites = {v.suite for v in mine}
        return device_pages.device_page(name, mine, [v for v in views if v.suite in suites], self.models)

    def run_file(self, number: int, fmt: str) -> str | None:
        found = next((v for v in self.run_views() if v.info.id == number), None)
        return downloads.run_file(found, fmt) if found is not None and fmt in downloads.MEDIA else None

    def summary(self) -> str:
        return device_pages.summary_page(self.run_views(), self.models)

    def summary_file(self, fmt: str) -> str | None:
        return downloads.summary_file(self.run_views(), self.models, fmt) if fmt in downloads.MEDIA else None
