"""What the server holds and does, without the web framework: the suites
(fixed at start), the results database, the limits, and the work behind each
page and API answer. `app.py` adds only transport (routes, bodies, status codes).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from progress.back import wgsl_source
from progress.back.codegen import initial_cells
from progress.core.analyze import check_program, queries_for
from progress.gpu.database import RunInfo, open_database
from progress.gpu.devices import RunResults, device_row
from progress.gpu.wgpu_backend import CALIBRATION
from progress.models.base import ProgressModel
from progress.web import device_pages, play_page, suite_pages
from progress.web.examples import default_text, example, examples
from progress.web.kernel_check import LaunchFields
from progress.web.limits import Limits, RateLimiter, state_bound
from progress.web.playground import LANGUAGES, Checked, check_text, default_view, draw
from progress.web.submit import parse_submission, to_run
from progress.web.suites import Suite, SuiteTest
from progress.web.svg import DrawError, dot_to_svg


@dataclass
class Site:
    suites: dict[str, Suite]
    db: Path
    models: tuple[ProgressModel, ...]
    limits: Limits = field(default_factory=Limits)
    rate: RateLimiter = field(init=False)
    checks: threading.BoundedSemaphore = field(init=False)

    def __post_init__(self) -> None:
        self.rate = RateLimiter(self.limits.submissions_per_minute)
        self.checks = threading.BoundedSemaphore(self.limits.concurrent_checks)

    # -- checking ------------------------------------------------------------

    def check(
        self, text: str, view: tuple[str, str] | None, language: str = "axb", fields: LaunchFields | None = None
    ) -> Checked:
        """The playground's check (a kernel's compilation included), at most
        `concurrent_checks` at once."""
        with self.checks:
            return check_text(text, self.models, self.limits, view, language, fields)

    def svg(self, dot: str | None, note: str | None) -> tuple[str | None, str | None]:
        if dot is None:
            return None, note
        try:
            return dot_to_svg(dot, self.limits.draw_timeout_s), None
        except DrawError as error:
            return None, str(error)

    def playground(
        self, text: str | None, view_text: str | None, language: str = "axb", fields: LaunchFields | None = None
    ) -> str:
        """The playground page: `text` in `language` checked, or without a
        text that language's first example, unchecked."""
        offered = examples()
        if text is None:
            shown = default_text(language) if language in LANGUAGES else default_text("axb")
            return play_page.playground_page(shown, None, None, None, language, fields, offered)
        checked = self.check(text, play_page.parse_view(view_text), language, fields)
        svg, note = self.svg(checked.dot, checked.note)
        return play_page.playground_page(text, checked, svg, note, language, fields, offered)

    def example(self, name: str, view_text: str | None) -> str | None:
        """The playground with the example `name` checked; None if there is none."""
        found = example(name)
        return None if found is None else self.playground(found.text, view_text, found.language)

    # -- suites ----------------------------------------------------------------

    def index(self) -> str:
        return suite_pages.index_page(list(self.suites.values()), len(self.runs()))

    def test_page(self, suite: Suite, key: str, view_text: str | None) -> str | None:
        test = suite.test(key)
        if test is None:
            return None
        with self.checks:
            program = test.program
            bound = state_bound(self.limits, len(program.threads), len(program.locations))
            report = check_program(
                program, queries_for(self.models), max_states=bound, time_limit=self.limits.time_limit_s
            )
            wanted = play_page.parse_view(view_text)
            known = wanted is not None and any((v.model, v.fairness) == wanted for v in report.verdicts)
            view = wanted if wanted is not None and known else default_view(report)
            dot, note = draw(test.program, self.models, view, report, self.limits)
        svg, note = self.svg(dot, note)
        href = suite_pages.test_href(suite, test)
        verdicts = play_page.verdict_table(report, view, href, {})
        runs = self.test_runs(suite, key)
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
        """Validate and store a run of `suite`; Refused says why not, a
        DatabaseError why the database would not take it."""
        submission = parse_submission(body, self.suites, suite)
        run = to_run(submission, self.suites[suite])
        with open_database(self.db, writable=True) as database:
            run_id, new = database.import_runs([run])[0]
        return {"ok": True, "run": run_id, "new": new, "device": run.device, "tests": len(submission.results)}

    def _stored(self) -> list[tuple[RunInfo, dict[str, dict[str, str]], dict[str, str]]]:
        """Every stored run with its rows and its tests' canonical hashes by
        key; none while the database does not exist."""
        if not self.db.exists():
            return []
        with open_database(self.db) as database:
            found = []
            hashes: dict[str, dict[str, str]] = {}
            for info in database.runs():
                if info.suite_hash not in hashes:
                    suite = database.suite(info.suite_hash)
                    hashes[info.suite_hash] = {t.key: t.hash for t in suite.tests} if suite else {}
                found.append((info, database.rows(info.id), hashes[info.suite_hash]))
            return found

    def runs(self) -> list[RunInfo]:
        return [stored[0] for stored in self._stored()]

    def suite_of_run(self, info: RunInfo, tests: dict[str, str]) -> Suite | None:
        """The suite a run is of: the one with its hash, else the one holding
        most of its tests (`tests`: canonical hash by key; a run of a larger
        suite is judged on those)."""
        exact = next((s for s in self.suites.values() if s.hash == info.suite_hash), None)
        if exact is not None:
            return exact
        held = [(len(_common(s, tests)), s.name, s) for s in self.suites.values()]
        best = max(held, default=None, key=lambda item: item[:2])
        return best[2] if best is not None and best[0] > 0 else None

    def run_views(self) -> list[device_pages.RunView]:
        """Every stored run on a suite this server holds, with its conformance
        over that suite's tests."""
        views = []
        for info, rows, tests in self._stored():
            suite = self.suite_of_run(info, tests)
            if suite is None:
                continue
            held = _common(suite, tests)
            mine = {key: rows[key] for key in rows if key in held}
            verdicts = {key: test.report.verdicts for key, test in held.items()}
            row = device_row(RunResults(info, mine, verdicts))
            views.append(device_pages.RunView(info, suite.name, mine, row.models, len(rows)))
        return views

    def test_runs(self, suite: Suite, key: str) -> list[tuple[str, str, int, dict[str, str]]]:
        return [
            (v.info.device, device_pages.device_href(v.info.device), v.info.id, v.rows[key])
            for v in self.run_views()
            if v.suite == suite.name and key in v.rows
        ]

    def devices(self) -> str:
        return device_pages.devices_page(self.run_views())

    def device(self, name: str) -> str | None:
        views = self.run_views()
        mine = [v for v in views if v.info.device == name]
        if not mine:
            return None
        suites = {v.suite for v in mine}
        return device_pages.device_page(name, mine, [v for v in views if v.suite in suites])


def _common(suite: Suite, tests: dict[str, str]) -> dict[str, SuiteTest]:
    """The tests of `suite` under the same key and canonical hash as in `tests`."""
    return {key: test for key, digest in tests.items() if (test := suite.test(key)) is not None and test.hash == digest}
