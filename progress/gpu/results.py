"""Results of device runs: the artifact's CSV layout, per-launch detail, metadata.

CSV: a header `test,plain,rr,chunked` (the heuristics that ran, in that
order), then one row per test in the order run: the test's key and, per
heuristic, `P` (no iteration failed) or `F (k/N)` (k of N iterations had an
instance time out). Rows hold no timings, so two runs that classify alike
give the same bytes. Detail (JSON Lines, one object per test and heuristic)
and metadata (JSON) carry the rest. Pure: formatting and parsing only.
"""

from __future__ import annotations

import csv
import io
import re

from progress.gpu.runner import Outcome, Settings

CELL = re.compile(r"^(?:P|F \((\d{1,12})/(\d{1,12})\))$")
"""k and N have at most 12 digits: a longer number is no count (and Python refuses to convert 4300)."""


def cell(outcome: Outcome) -> str:
    """`P`, or `F (k/N)` with k failed iterations of N."""
    k = outcome.failed_iterations
    return "P" if k == 0 else f"F ({k}/{outcome.iterations})"


def header(heuristics: tuple[str, ...]) -> str:
    return _line(("test",) + tuple(heuristics))


def row(key: str, cells: list[str]) -> str:
    return _line((key, *cells))


def _line(fields) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(fields)
    return buffer.getvalue()


def parse_cell(text: str) -> tuple[int, int] | None:
    """`P` -> None; `F (k/N)` -> (k, N); anything else is a ValueError."""
    match = CELL.match(text.strip())
    if not match:
        raise ValueError(f"not a result cell: {text!r} (expected P or F (k/N))")
    return None if match.group(1) is None else (int(match.group(1)), int(match.group(2)))


def parse_csv(text: str) -> tuple[tuple[str, ...], dict[str, dict[str, str]]]:
    """(heuristics, {test: {heuristic: cell}}) from a results CSV's text."""
    reader = csv.reader(io.StringIO(text))
    head = next(reader, None)
    if not head or head[0] != "test":
        raise ValueError("a results CSV starts with the header test,<heuristics...>")
    heuristics = tuple(head[1:])
    rows: dict[str, dict[str, str]] = {}
    for number, fields in enumerate(reader, 2):
        if not fields:
            continue
        if len(fields) != len(head):
            raise ValueError(f"line {number}: {len(fields)} fields, expected {len(head)}")
        for value in fields[1:]:
            parse_cell(value)
        rows[fields[0]] = dict(zip(heuristics, fields[1:]))
    return heuristics, rows


def detail(key: str, heuristic: str, outcome: Outcome) -> dict:
    """One JSON Lines record: the launch, failed instances per iteration, time."""
    return {
        "test": key,
        "heuristic": heuristic,
        "threads": outcome.launch.threads,
        "instances": outcome.launch.instances,
        "workgroups": outcome.launch.workgroups,
        "result": cell(outcome),
        "failed_instances": list(outcome.failed_instances),
        "seconds": round(outcome.seconds, 4),
    }


def metadata(backend_info: dict, settings: Settings, tests: int, paths: list[str]) -> dict:
    """The run's parameters and device, written before the first launch."""
    return {
        **backend_info,
        "heuristics": list(settings.heuristics),
        "iterations": settings.iterations,
        "deadline_s": settings.deadline_s,
        "instances": settings.instances if settings.instances is not None else "auto",
        "geometry": _lane_geometry(backend_info.get("subgroup_size") or 32)
        if backend_info.get("scope") == "lane"
        else {
            "threads_per_workgroup": 1,
            "plain": "N workgroups, 1 instance",
            "rr": "N*M workgroups; w -> instance w div N, thread w mod N",
            "chunked": "N*M workgroups; w -> instance w mod M, thread w div M",
        },
        "memory": "per instance L 32-bit cells, packed (no padding), reset before every iteration",
        "atomics": "exchange: atomic exchange; no exchange: value-preserving atomic OR with 0; relaxed",
        "tests": tests,
        "paths": paths,
    }


def _lane_geometry(lanes: int) -> dict:
    """The layout of a `--scope lane` run (`heuristics.lane_slot`), subgroups of `lanes`."""
    return {
        "lanes_per_subgroup": lanes,
        "plain": "one workgroup, one subgroup; lane t runs thread t of 1 instance",
        "rr": f"K = floor({lanes}/N) instances per subgroup; lane l of workgroup b -> instance b*K + l div N, "
        "thread l mod N",
        "chunked": f"K = floor({lanes}/N) instances per subgroup; lane l of workgroup b -> instance b*K + l mod K, "
        "thread l div K",
    }


def summary(heuristics: tuple[str, ...], rows: dict[str, dict[str, str]]) -> dict[str, int]:
    """How many tests failed (some iteration) under each heuristic."""
    return {h: sum(1 for cells in rows.values() if cells.get(h, "P") != "P") for h in heuristics}
