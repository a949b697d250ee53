"""The device pages as text, Markdown and JSON: the matrix, Fig. 12's figures, violations, a diff.

Pure rendering of `progress.gpu.devices` data; `fmt` is "text" (aligned
columns) or "md" (Markdown tables). A matrix cell is `ok` (consistent with)
or the failing conformance tests under plain/rr/chunked (violates).
"""

from __future__ import annotations

from typing import Any

from progress.gpu.database import RunInfo
from progress.gpu.devices import INTER_WORKGROUP, DeviceRow, RunDiff, RunResults, Violation, figures


def table(head: list[str], rows: list[list[str]], fmt: str) -> str:
    if fmt == "md":
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines) + "\n"
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *rows]) + "\n"


def runs_table(infos: list[RunInfo], fmt: str = "text") -> str:
    head = ["id", "name", "device", "backend", "driver", "date", "variant", "tests", "iterations"]
    rows = [
        [str(i.id), i.name, i.device, i.backend, i.driver, i.date or "-", i.variant, str(i.tests), str(i.iterations)]
        for i in infos
    ]
    return table(head, rows, fmt)


def matrix(rows: list[DeviceRow], fmt: str = "text") -> str:
    """One line per run, one column per (model, fairness)."""
    if not rows:
        return "no runs\n"
    head = ["run", "device", "backend"] + [f"{m.fairness} {m.model}" for m in rows[0].models]
    body = []
    for row in rows:
        cells = [_cell(item.failed, item.violates, fmt) for item in row.models]
        body.append([row.run.name, row.run.device, row.run.backend, *cells])
    return table(head, body, fmt)


def _cell(failed: dict[str, tuple[str, ...]], violates: bool, fmt: str) -> str:
    if not violates:
        return "ok"
    counts = "/".join(str(len(failed.get(h, ()))) for h in INTER_WORKGROUP)
    return f"**{counts}**" if fmt == "md" else counts


def figures_table(results: list[RunResults], fmt: str = "text") -> str:
    """Fig. 12: per run and heuristic, tests failing deterministically (every
    iteration) and nondeterministically (some); intra-workgroup columns after."""
    extra = sorted({h for r in results for h in r.info.heuristics if h not in INTER_WORKGROUP})
    order = [*INTER_WORKGROUP, *extra]
    head = ["run", "N"] + [f"{h} {kind}" for h in order for kind in ("det", "nondet")]
    body = []
    for item in results:
        counts = figures(item)
        cells = [str(n) for h in order for n in counts.get(h, ("-", "-"))]
        body.append([item.info.name, str(item.info.iterations), *cells])
    return table(head, body, fmt)


def violation_lines(found: list[Violation], fmt: str = "text", limit: int = 0) -> str:
    """Every violation and the tests behind it (all, or the first `limit`), one line each."""
    bullet = "- " if fmt == "md" else ""
    lines = []
    for v in found:
        shown = v.tests[:limit] if limit else v.tests
        more = f" (+{len(v.tests) - len(shown)} more)" if len(shown) < len(v.tests) else ""
        what = f"{v.run}: {v.fairness} {v.model} under {v.heuristic} ({len(v.tests)})"
        lines.append(f"{bullet}{what}: {', '.join(shown)}{more}")
    return "\n".join(lines) + "\n" if lines else ""


def diff_text(result: RunDiff) -> str:
    a, b = result.a, result.b
    lines = [
        f"run {a.id} ({a.name}, {a.date or 'no date'}) against run {b.id} ({b.name}, {b.date or 'no date'}): "
        f"{result.common} tests in both, {len(result.only_a)} only in {a.id}, {len(result.only_b)} only in {b.id}",
    ]
    for heuristic in result.heuristics:
        mine = [c for c in result.changes if c.heuristic == heuristic]
        flips = [c for c in mine if c.flips]
        lines.append(f"{heuristic}: {len(mine)} cells differ, {len(flips)} between P and F")
        lines += [f"  {c.key}: {c.before} -> {c.after}" for c in flips]
    if result.verdicts:
        lines += [f"{fairness} {model}: {x} -> {y}" for model, fairness, x, y in result.verdicts]
    else:
        lines.append("every model verdict is the same on the common tests")
    return "\n".join(lines) + "\n"


def as_json(rows: list[DeviceRow], results: list[RunResults]) -> dict[str, Any]:
    """The matrix and the figures as one JSON object."""
    return {
        "runs": [
            {
                "id": row.run.id,
                "name": row.run.name,
                "device": row.run.device,
                "backend": row.run.backend,
                "driver": row.run.driver,
                "date": row.run.date,
                "variant": row.run.variant,
                "iterations": row.run.iterations,
                "tests": row.run.tests,
                "models": {
                    f"{m.model}/{m.fairness}": {
                        "verdict": m.verdict,
                        "failed": {h: list(t) for h, t in m.failed.items()},
                    }
                    for m in row.models
                },
                "figures": {h: {"deterministic": d, "nondeterministic": n} for h, (d, n) in figures(item).items()},
            }
            for row, item in zip(rows, results)
        ]
    }
