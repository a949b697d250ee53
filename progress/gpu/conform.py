"""Which progress models a device's results are consistent with (docs/semantics.md sections 5, 7).

conformance(m) is the set of tests guaranteed to terminate under m (at m's
fairness). A device *violates* m when some test of conformance(m) failed on
it under some heuristic; otherwise its results are *consistent with* m
(finitely many runs can refute a model, never prove it). Pure: takes the
results rows and the checker's verdicts, returns a report and renders it.
"""

from __future__ import annotations

from dataclasses import dataclass

from progress.core.analyze import Verdict


@dataclass(frozen=True)
class ModelConformance:
    """One (model, fairness): its conformance tests that ran, and those that failed."""

    model: str
    fairness: str
    conformance: tuple[str, ...]
    failed: dict[str, tuple[str, ...]]  # heuristic -> failing conformance tests
    undecided: int = 0  # tests whose verdict a bound left open

    @property
    def violates(self) -> bool:
        return any(self.failed.values())

    @property
    def verdict(self) -> str:
        return "violates" if self.violates else "consistent with"


def conformance(
    heuristics: tuple[str, ...], rows: dict[str, dict[str, str]], verdicts: dict[str, tuple[Verdict, ...]]
) -> list[ModelConformance]:
    """Per (model, fairness) in the verdicts' order, over the tests in both inputs."""
    keys = [key for key in rows if key in verdicts]
    order: dict[tuple[str, str], None] = {}
    for key in keys:
        for v in verdicts[key]:
            order.setdefault((v.model, v.fairness), None)
    report = []
    for model, fairness in order:
        chosen = {key: _verdict(verdicts[key], model, fairness) for key in keys}
        members = tuple(key for key, v in chosen.items() if v is not None and v.terminates)
        failed = {h: tuple(k for k in members if rows[k].get(h, "P") != "P") for h in heuristics}
        undecided = sum(1 for v in chosen.values() if v is not None and v.terminates is None)
        report.append(ModelConformance(model, fairness, members, failed, undecided))
    return report


def _verdict(verdicts: tuple[Verdict, ...], model: str, fairness: str) -> Verdict | None:
    return next((v for v in verdicts if v.model == model and v.fairness == fairness), None)


def render_text(report: list[ModelConformance], heuristics: tuple[str, ...], list_limit: int = 12) -> str:
    """A table (model, fairness, conformance tests, failures per heuristic, verdict),
    then the failing conformance tests of every violated model."""
    head = f"{'model':<8} {'fairness':<8} {'conformance':>11}  " + "  ".join(f"{h:>7}" for h in heuristics)
    lines = [head + "  verdict"]
    for item in report:
        counts = "  ".join(f"{len(item.failed[h]):>7}" for h in heuristics)
        lines.append(f"{item.model:<8} {item.fairness:<8} {len(item.conformance):>11}  {counts}  {item.verdict}")
    for item in report:
        for h in heuristics:
            if item.failed[h]:
                shown = ", ".join(item.failed[h][:list_limit])
                more = f" (+{len(item.failed[h]) - list_limit} more)" if len(item.failed[h]) > list_limit else ""
                lines.append(f"{item.model}/{item.fairness} failed under {h}: {shown}{more}")
    return "\n".join(lines) + "\n"


def as_dict(item: ModelConformance) -> dict:
    return {
        "model": item.model,
        "fairness": item.fairness,
        "conformance": len(item.conformance),
        "failed": {h: list(tests) for h, tests in item.failed.items()},
        "undecided": item.undecided,
        "verdict": item.verdict,
    }
