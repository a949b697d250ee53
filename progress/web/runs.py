"""The stored runs as the pages show them: each run with the served suite it
is judged on, its conformance per model (`gpu.devices.device_row`, as
`progress devices`), and the facts a reader needs to weigh it: a software
adapter, a run of part of the suite, the vendor, the browser (its family
and version only: a full user agent is never shown or stored). Pure but
for `stored_runs`, which reads the results database.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from progress.gpu.conform import ModelConformance
from progress.gpu.database import RunInfo, open_database
from progress.gpu.devices import RunResults, device_row
from progress.web.suites import Suite, SuiteTest

SOFTWARE = re.compile(r"swiftshader|llvmpipe|lavapipe|softpipe|warp|software", re.I)
VENDORS = (
    ("NVIDIA", ("nvidia", "geforce", "quadro", "tegra", "rtx", "tesla", "h100", "h200", "a100")),
    ("AMD", ("amd", "radeon", "ati ")),
    ("Apple", ("apple",)),
    ("ARM", ("mali", "arm ")),
    ("Qualcomm", ("adreno", "qualcomm")),
    ("Intel", ("intel",)),
    ("Google (SwiftShader)", ("swiftshader",)),
    ("Mesa (llvmpipe)", ("llvmpipe", "lavapipe")),
)
"""Vendor names and the words of a device name that give them away."""
BROWSERS = (
    ("Edge", r"Edg/(\d+)"),
    ("Opera", r"OPR/(\d+)"),
    ("Firefox", r"Firefox/(\d+)"),
    ("Chrome", r"Chrom(?:e|ium)/(\d+)"),
    ("Safari", r"Version/(\d+)[.\d]* .*Safari/"),
)
SYSTEMS = (
    ("Android", "Android"),
    ("ChromeOS", "CrOS"),
    ("Windows", "Windows"),
    ("macOS", "Mac OS X"),
    ("iOS", "iPhone"),
    ("iPadOS", "iPad"),
    ("Linux", "Linux"),
)


def browser_summary(text: str) -> str:
    """`Chrome 124 on Linux` from a user agent (or the summary itself); a
    string that names no known browser is kept only up to 40 characters."""
    if not text:
        return ""
    if not text.startswith("Mozilla/"):
        return text[:40]
    name = next((f"{n} {m.group(1)}" for n, p in BROWSERS if (m := re.search(p, text))), "a browser")
    system = next((s for s, word in SYSTEMS if word in text), "")
    return f"{name} on {system}" if system else name


def vendor_of(device: str, adapter_vendor: str = "") -> str:
    """The vendor of a device: the adapter's own word, else guessed from its name."""
    words = f"{adapter_vendor} {device}".lower() + " "
    return next((name for name, clues in VENDORS if any(c in words for c in clues)), adapter_vendor or "other")


@dataclass(frozen=True)
class RunView:
    """A stored run, the server's suite it is of, its rows, and its
    conformance per (model, fairness) in `progress devices`' column order."""

    info: RunInfo
    suite: str
    rows: dict[str, dict[str, str]]  # the tests of the run that `suite` holds
    models: tuple[ModelConformance, ...]
    ran: int  # tests the run ran in all
    size: int  # tests in the suite

    @property
    def settings(self) -> dict[str, object]:
        try:
            found = json.loads(self.info.settings)
        except ValueError:
            return {}
        return found if isinstance(found, dict) else {}

    @property
    def tests(self) -> str:
        return str(len(self.rows)) if self.ran == len(self.rows) else f"{len(self.rows)} of {self.ran}"

    @property
    def software(self) -> bool:
        calibration = self.settings.get("calibration")
        said = isinstance(calibration, dict) and calibration.get("software") is True
        return said or bool(SOFTWARE.search(self.info.device))

    @property
    def partial(self) -> bool:
        """The run holds fewer tests than the suite: what it says of a model says little."""
        return len(self.rows) < self.size

    @property
    def weak_evidence(self) -> bool:
        return self.software or self.partial

    @property
    def browser(self) -> str:
        raw = self.settings.get("browser")
        return browser_summary(raw) if isinstance(raw, str) else ""

    @property
    def vendor(self) -> str:
        adapter = self.settings.get("adapter")
        said = adapter.get("vendor", "") if isinstance(adapter, dict) else ""
        return vendor_of(self.info.device, said if isinstance(said, str) else "")

    @property
    def notes(self) -> str:
        found = self.settings.get("notes")
        return found if isinstance(found, str) else ""


def stored_runs(db: Path, suites: Mapping[str, Suite]) -> list[RunView]:
    """Every run stored in `db` on a suite of `suites`, judged on the tests
    that suite holds (under the same key and canonical hash); none while
    the database does not exist."""
    if not db.exists():
        return []
    views = []
    with open_database(db) as database:
        hashes: dict[str, dict[str, str]] = {}
        for info in database.runs():
            if info.suite_hash not in hashes:
                stored = database.suite(info.suite_hash)
                hashes[info.suite_hash] = {t.key: t.hash for t in stored.tests} if stored else {}
            tests = hashes[info.suite_hash]
            suite = suite_of_run(info, tests, suites)
            if suite is None:
                continue
            rows = database.rows(info.id)
            held = common(suite, tests)
            mine = {key: rows[key] for key in rows if key in held}
            verdicts = {key: test.report.verdicts for key, test in held.items()}
            row = device_row(RunResults(info, mine, verdicts))
            views.append(RunView(info, suite.name, mine, row.models, len(rows), len(suite.tests)))
    return views


def suite_of_run(info: RunInfo, tests: dict[str, str], suites: Mapping[str, Suite]) -> Suite | None:
    """The suite a run is of: the one with its hash, else the one holding
    most of its tests (`tests`: canonical hash by key; a run of a larger
    suite is judged on those)."""
    exact = next((s for s in suites.values() if s.hash == info.suite_hash), None)
    if exact is not None:
        return exact
    held = [(len(common(s, tests)), s.name, s) for s in suites.values()]
    best = max(held, default=None, key=lambda item: item[:2])
    return best[2] if best is not None and best[0] > 0 else None


def common(suite: Suite, tests: dict[str, str]) -> dict[str, SuiteTest]:
    """The tests of `suite` under the same key and canonical hash as in `tests`."""
    return {key: test for key, digest in tests.items() if (test := suite.test(key)) is not None and test.hash == digest}


def by_vendor_and_browser(runs: Sequence[RunView]) -> dict[tuple[str, str], list[RunView]]:
    """Runs grouped by (vendor, browser; `native` for a run by a program of
    its own, CUDA or Vulkan), in a stable order."""
    groups: dict[tuple[str, str], list[RunView]] = {}
    for run in runs:
        where = run.browser or "native"
        groups.setdefault((run.vendor, where), []).append(run)
    return dict(sorted(groups.items(), key=lambda item: (item[0][0].lower(), item[0][1].lower())))


@dataclass(frozen=True)
class Tally:
    """Of a group of runs, on one model: how many violate it, how many held
    any of its conformance tests, and whether all of those say little (software or partial)."""

    violating: int
    judged: int
    weak: bool


def tally(members: Sequence[RunView], point: tuple[str, str]) -> Tally:
    judged = [(r, m) for r in members for m in r.models if (m.model, m.fairness) == point and m.conformance]
    return Tally(sum(m.violates for _, m in judged), len(judged), all(r.weak_evidence for r, _ in judged))
