"""What the server holds and does, without the web framework: the suites
(fixed at start), the results database, the limits, and the work behind each
page and API answer. `app.py` adds only transport (routes, bodies, status codes).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from progress.back import wgsl_source
from progress.back.codegen import initial_cells
from progress.core.analyze import check_program, queries_for
from progress.gpu.conform import conformance
from progress.gpu.wgpu_backend import CALIBRATION
from progress.models.base import ProgressModel
from progress.web import device_pages, play_page, suite_pages
from progress.web.limits import Limits, RateLimiter
from progress.web.playground import Checked, check_text, default_view, draw
from progress.web.store import Run, Store
from progress.web.submit import parse_submission
from progress.web.suites import Suite
from progress.web.svg import DrawError, dot_to_svg


@dataclass
class Site:
    suites: dict[str, Suite]
    store: Store
    models: tuple[ProgressModel, ...]
    limits: Limits = field(default_factory=Limits)
    rate: RateLimiter = field(init=False)
    checks: threading.BoundedSemaphore = field(init=False)

    def __post_init__(self) -> None:
        self.rate = RateLimiter(self.limits.submissions_per_minute)
        self.checks = threading.BoundedSemaphore(self.limits.concurrent_checks)

    # -- checking ------------------------------------------------------------

    def check(self, text: str, view: tuple[str, str] | None) -> Checked:
        """The playground's check, at most `concurrent_checks` at once."""
        with self.checks:
            return check_text(text, self.models, self.limits, view)

    def svg(self, dot: str | None, note: str | None) -> tuple[str | None, str | None]:
        if dot is None:
            return None, note
        try:
            return dot_to_svg(dot, self.limits.draw_timeout_s), None
        except DrawError as error:
            return None, str(error)

    def playground(self, text: str | None, view_text: str | None) -> str:
        if text is None:
            return play_page.playground_page(play_page.EXAMPLE, None, None, None)
        checked = self.check(text, play_page.parse_view(view_text))
        svg, note = self.svg(checked.dot, checked.note)
        return play_page.playground_page(text, checked, svg, note)

    # -- suites ----------------------------------------------------------------

    def index(self) -> str:
        return suite_pages.index_page(list(self.suites.values()), len(self.store.runs()))

    def test_page(self, suite: Suite, key: str, view_text: str | None) -> str | None:
        test = suite.test(key)
        if test is None:
            return None
        with self.checks:
            report = check_program(
                test.program,
                queries_for(self.models),
                max_states=self.limits.max_states,
                time_limit=self.limits.time_limit_s,
            )
            wanted = play_page.parse_view(view_text)
            known = wanted is not None and any((v.model, v.fairness) == wanted for v in report.verdicts)
            view = wanted if wanted is not None and known else default_view(report)
            dot, note = draw(test.program, self.models, view, report, self.limits)
        svg, note = self.svg(dot, note)
        href = suite_pages.test_href(suite, test)
        verdicts = play_page.verdict_table(report, view, href, {})
        runs = [
            (run.device, device_pages.device_href(run.device), run.id, cells)
            for run, cells in self.store.test_results(suite.hash, key)
        ]
        return suite_pages.test_page(suite, test, verdicts, play_page.view_section(report, view, svg, note), runs)

    def plan(self, suite: Suite, limit: int | None) -> dict[str, Any]:
        """What the browser runner needs: every test's WGSL (the same as
        `--backend wgpu`), its thread count and initial memory."""
        tests = suite.tests if limit is None else suite.tests[:limit]
        return {
            "suite": suite.name,
            "suite_hash": suite.hash,
            "entry_point": wgsl_source.ENTRY_POINT,
            "calibration": {"wgsl": wgsl_source.shader(CALIBRATION), "cells": list(initial_cells(CALIBRATION))},
            "tests": [
                {
                    "key": t.key,
                    "threads": len(t.program.threads),
                    "cells": list(initial_cells(t.program)) or [0],
                    "wgsl": wgsl_source.shader(t.program),
                }
                for t in tests
            ],
        }

    # -- results ---------------------------------------------------------------

    def submit(self, body: bytes, suite: str) -> dict[str, Any]:
        """Validate and store a run of `suite`; Refused (from `submit`) says why not."""
        run = parse_submission(body, self.suites, suite)
        run_id, new = self.store.record(run)
        return {"ok": True, "run": run_id, "new": new, "device": run.device, "tests": len(run.results)}

    def run_views(self, runs: Sequence[Run] | None = None) -> list[device_pages.RunView]:
        views = []
        for run in self.store.runs() if runs is None else runs:
            suite = next((s for s in self.suites.values() if s.hash == run.suite_hash), None)
            if suite is None:
                continue  # a run of a suite this server was not started with
            rows = self.store.cells(run.id)
            heuristics = tuple(run.settings.get("heuristics", ()))
            verdicts = {key: t.report.verdicts for key in rows if (t := suite.test(key)) is not None}
            report = conformance(heuristics, rows, verdicts)
            source = run.browser or "imported"
            views.append(
                device_pages.RunView(
                    run.id,
                    run.device,
                    suite.name,
                    source,
                    run.adapter,
                    run.settings,
                    run.submitted,
                    heuristics,
                    rows,
                    report,
                )
            )
        return views

    def devices(self) -> str:
        return device_pages.devices_page(self.run_views())

    def device(self, name: str) -> str | None:
        views = self.run_views()
        mine = [v for v in views if v.device == name]
        if not mine:
            return None
        suites = {v.suite for v in mine}
        return device_pages.device_page(name, mine, [v for v in views if v.suite in suites])
