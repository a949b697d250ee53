"""Many device runs side by side: the device x model matrix, Fig. 12's figures, violations, differences.

Pure functions over `RunResults` (a stored run's header, its rows and the
checker's verdicts of its tests); the CLI and a web page render the same
data. The matrix judges each run by its inter-workgroup heuristics (plain,
rr, chunked: docs/semantics.md section 7); the artifact's intra-workgroup
columns (Vulkan's 4 and 256 threads per workgroup) are counted in the
figures but judge no model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from progress.core.analyze import Verdict
from progress.gpu.conform import ModelConformance, conformance
from progress.gpu.database import RunInfo
from progress.gpu.results import parse_cell

INTER_WORKGROUP = ("plain", "rr", "chunked")
MODEL_ORDER = ("HSA", "OBE", "HSA+OBE", "LOBE", "fair")
FAIRNESS_ORDER = ("weak", "strong")


def scope_of(info: RunInfo) -> str:
    """The scope a run's test threads ran at: "lane" for the intra-warp runs (the
    artifact's and `progress run --scope lane`'s), judged by (fair, fair, M)
    (docs/semantics.md section 10); else "workgroup"."""
    return "lane" if "intra-warp" in info.variant else "workgroup"


@dataclass(frozen=True)
class RunResults:
    info: RunInfo
    rows: Mapping[str, Mapping[str, str]]
    verdicts: Mapping[str, tuple[Verdict, ...]]

    @property
    def judged(self) -> tuple[str, ...]:
        """The heuristics that judge models: the run's inter-workgroup ones."""
        return tuple(h for h in self.info.heuristics if h in INTER_WORKGROUP)


@dataclass(frozen=True)
class DeviceRow:
    run: RunInfo
    models: tuple[ModelConformance, ...]  # in `columns` order


def columns(report: list[ModelConformance]) -> list[tuple[str, str]]:
    """(model, fairness) in matrix order: weak then strong, HSA ... fair, then
    any plug-in model; unfair (no conformance tests by construction) left out."""
    keys = [(item.model, item.fairness) for item in report if item.fairness in FAIRNESS_ORDER]

    def rank(key: tuple[str, str]) -> tuple[int, int, int]:
        model, fairness = key
        known = MODEL_ORDER.index(model) if model in MODEL_ORDER else len(MODEL_ORDER)
        return FAIRNESS_ORDER.index(fairness), known, keys.index(key)

    return sorted(keys, key=rank)


def device_row(results: RunResults) -> DeviceRow:
    rows = {key: dict(cells) for key, cells in results.rows.items()}
    report = conformance(results.judged, rows, dict(results.verdicts))
    by_key = {(item.model, item.fairness): item for item in report}
    return DeviceRow(results.info, tuple(by_key[key] for key in columns(report)))


def figures(results: RunResults) -> dict[str, tuple[int, int]]:
    """Fig. 12: per heuristic, (tests failing in every iteration, tests failing in some but not all)."""
    counts = {}
    for heuristic in results.info.heuristics:
        always = sometimes = 0
        for row in results.rows.values():
            parsed = parse_cell(row[heuristic])
            if parsed is not None:
                always += parsed[0] == parsed[1]
                sometimes += parsed[0] != parsed[1]
        counts[heuristic] = (always, sometimes)
    return counts


@dataclass(frozen=True)
class Violation:
    run: str
    model: str
    fairness: str
    heuristic: str
    tests: tuple[str, ...]


def violations(rows: list[DeviceRow]) -> list[Violation]:
    """Every (run, model, fairness, heuristic) with failing conformance tests, and the tests."""
    found = []
    for row in rows:
        for item in row.models:
            for heuristic, tests in item.failed.items():
                if tests:
                    found.append(Violation(row.run.name, item.model, item.fairness, heuristic, tests))
    return found


def shared_violators(rows: list[DeviceRow], model: str, fairness: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """{run name: {heuristic: failing tests}} of the runs that violate (model, fairness)."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for row in rows:
        for item in row.models:
            if (item.model, item.fairness) == (model, fairness) and item.violates:
                out[row.run.name] = {h: t for h, t in item.failed.items() if t}
    return out


@dataclass(frozen=True)
class Change:
    key: str
    heuristic: str
    before: str
    after: str

    @property
    def flips(self) -> bool:
        """P in one run and F in the other (not only another k)."""
        return (self.before == "P") != (self.after == "P")


@dataclass(frozen=True)
class RunDiff:
    a: RunInfo
    b: RunInfo
    common: int
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    heuristics: tuple[str, ...]
    changes: tuple[Change, ...]
    verdicts: tuple[tuple[str, str, str, str], ...]  # (model, fairness, verdict in a, verdict in b) that differ

    def flips(self) -> list[Change]:
        return [change for change in self.changes if change.flips]


def diff(a: RunResults, b: RunResults) -> RunDiff:
    """What differs between two runs on the tests both ran, heuristic by
    heuristic (cells in a's order), and which model verdicts change."""
    common = [key for key in a.rows if key in b.rows]
    heuristics = tuple(h for h in a.info.heuristics if h in b.info.heuristics)
    changes = tuple(
        Change(key, h, a.rows[key][h], b.rows[key][h])
        for key in common
        for h in heuristics
        if a.rows[key][h] != b.rows[key][h]
    )
    mine = {(m.model, m.fairness): m.verdict for m in device_row(_restricted(a, common)).models}
    theirs = {(m.model, m.fairness): m.verdict for m in device_row(_restricted(b, common)).models}
    verdicts = tuple((*key, mine[key], theirs[key]) for key in mine if key in theirs and mine[key] != theirs[key])
    return RunDiff(
        a.info,
        b.info,
        len(common),
        tuple(key for key in a.rows if key not in b.rows),
        tuple(key for key in b.rows if key not in a.rows),
        heuristics,
        changes,
        verdicts,
    )


def _restricted(results: RunResults, keys: list[str]) -> RunResults:
    return RunResults(results.info, {key: results.rows[key] for key in keys}, results.verdicts)
