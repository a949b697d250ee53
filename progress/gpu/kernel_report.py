"""The checker's verdicts and what the device did, joined (pure).

For each model and fairness: the checker's verdict on the kernel, and for
each launch shape whether any iteration timed out. A shape speaks to a
model only when the model's promise carries over to the kernel's
workgroups in that shape (`CARRIES`):

- `alone`: every model.
- `occupied`: the occupiers come first in the dispatch, have started and
  spin until the kernel ends, so a kernel workgroup that never gets a slot
  starves under every model but fair (HSA's lowest id is an occupier; OBE
  and LOBE promise nothing to a workgroup that has not started; unfair
  lets the occupiers spin forever, even around a kernel that always ends).
  Only fair carries over: a timeout here shows how many co-resident
  workgroups the kernel needs, which no GPU without preemption promises.
- `reverse`, `interleave`: the device's order is no longer the kernel's id
  order, so the id-based models (HSA, HSA+OBE, LOBE) say nothing; unfair,
  OBE and fair do not read ids.

Then: guaranteed and timed out is a violation of the model (or a
miscompile: the outputs of finished iterations are compared with the
checker's terminal memory states); guaranteed and never timed out is
consistent; "may not terminate" and timed out is consistent (the device
showed it); "may not terminate" and never timed out is not evidence of
conformance (the schedule that hangs may simply not have come up).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from progress.core.analyze import Verdict
from progress.gpu.kernel_run import Iteration, KernelLaunch, ShapeOutcome

RECORDED_WORKGROUPS = 64
"""Launches of more workgroups record per iteration counts, not each workgroup's record."""

ALL = frozenset({"UNFAIR", "FAIR", "HSA", "OBE", "HSA+OBE", "LOBE"})
CARRIES = {
    "alone": ALL,
    "occupied": frozenset({"FAIR"}),
    "reverse": frozenset({"UNFAIR", "FAIR", "OBE"}),
    "interleave": frozenset({"UNFAIR", "FAIR", "OBE"}),
}
VIOLATION = "VIOLATION"
CONSISTENT = "ok"
SHOWN = "shown"
NO_EVIDENCE = "no evidence"
NOT_COMPARABLE = "-"
LEGEND = (
    "VIOLATION: guaranteed, yet an iteration timed out (the device breaks the model, or the kernel was miscompiled); "
    "ok: guaranteed, never timed out; shown: may not terminate, and it timed out; no evidence: may not terminate, "
    "never timed out (not evidence of conformance); -: the shape says nothing about the model"
)


@dataclass(frozen=True)
class KernelResult:
    """One kernel's run: its launch, the checker's verdicts, each shape's
    outcome, and what the outputs of finished iterations were."""

    launch: KernelLaunch
    verdicts: tuple[Verdict, ...]
    outcomes: tuple[ShapeOutcome, ...]
    outputs: dict[str, str]


def judge(verdict: Verdict, outcome: ShapeOutcome, invocations: int) -> str:
    return judgement(verdict.model, verdict.terminates, outcome.shape.name, outcome.timed_out(invocations) > 0)


def judgement(model: str, terminates: bool | None, shape: str, timed_out: bool) -> str:
    """The cell of the joined table for a model's verdict and a shape's outcome."""
    if model.upper() not in CARRIES[shape]:
        return NOT_COMPARABLE
    if terminates is None:
        return "?"
    if terminates:
        return VIOLATION if timed_out else CONSISTENT
    return SHOWN if timed_out else NO_EVIDENCE


def label(verdict: Verdict) -> str:
    return verdict.model if verdict.fairness == "none" else f"{verdict.model}/{verdict.fairness}"


def rows(result: KernelResult) -> list[dict]:
    """One row per model and fairness: the checker's verdict and each shape's judgement."""
    n = result.launch.invocations
    return [
        {
            "model": label(v),
            "checker": "P" if v.terminates else ("F" if v.terminates is False else "?"),
            **{o.shape.name: judge(v, o, n) for o in result.outcomes},
        }
        for v in result.verdicts
    ]


def violations(result: KernelResult) -> list[str]:
    n = result.launch.invocations
    return [
        f"{label(v)} under {o.shape.name}"
        for v in result.verdicts
        for o in result.outcomes
        if judge(v, o, n) == VIOLATION
    ]


def text(result: KernelResult) -> str:
    """The joined report as text: the device's cells, where it timed out, the table."""
    launch, n = result.launch, result.launch.invocations
    lines = [f"{launch.name}: {launch.workgroups} workgroups of {n} invocation(s)"]
    for outcome in result.outcomes:
        occupied = f", {outcome.shape.occupiers} occupiers" if outcome.shape.occupiers else ""
        where = "; ".join(f"{count}x first at {_site(launch, site)}" for site, count in sorted(outcome.sites().items()))
        lines.append(
            f"  {outcome.shape.name}{occupied}: {outcome.cell(n)}"
            + (f" ({where})" if where else "")
            + f", budget {outcome.budget}; outputs: {result.outputs.get(outcome.shape.name, 'none')}"
        )
    table = rows(result)
    shapes = [o.shape.name for o in result.outcomes]
    width = max(len(r["model"]) for r in table) if table else 5
    lines.append("  " + "model".ljust(width) + "  checker  " + "  ".join(s.ljust(11) for s in shapes))
    for row in table:
        cells = "  ".join(row[s].ljust(11) for s in shapes)
        lines.append("  " + row["model"].ljust(width) + "  " + row["checker"].ljust(7) + "  " + cells)
    found = violations(result)
    lines.append("  violations: " + (", ".join(found) if found else "none"))
    lines.append("  (" + LEGEND + ")")
    return "\n".join(line.rstrip() for line in lines)


def _site(launch: KernelLaunch, index: int) -> str:
    if 0 <= index < len(launch.sites):
        site = launch.sites[index]
        return f"{site.kind} {site.where}" + (f" `{site.text}`" if site.text else "")
    return f"site {index}"


def compare_outputs(cells: Sequence[tuple[str, int]], terminal: frozenset, outputs: tuple[bytes, ...] | None) -> str:
    """Whether a finished iteration's buffers (their words in order) are one of
    the checker's `terminal` memories, read at the buffer `cells` (name, word)."""
    if outputs is None:
        return "none finished"
    words = b"".join(outputs)
    values = [int.from_bytes(words[i : i + 4], "little") for i in range(0, len(words), 4)]
    device = tuple((name, values[at]) for name, at in cells if at < len(values))
    kept = {name for name, _ in device}
    expected = {tuple((n, v & 0xFFFFFFFF) for n, v in memory if n in kept) for memory in terminal}
    if not expected:
        return "finished, but the checker has no state in which every invocation returned"
    return "a terminal state of the kernel" if device in expected else "NOT a terminal state of the kernel"


def record(result: KernelResult, buffers: Mapping[str, int], init: Sequence[Sequence[object]]) -> dict:
    """One kernel's run as the JSON `progress run` writes (and the kernel run page downloads)."""
    launch, n = result.launch, result.launch.invocations
    return {
        "kernel": launch.name,
        "workgroups": launch.workgroups,
        "local_size": list(launch.local_size),
        "buffers": [{"name": b.name, "set": b.set, "binding": b.binding, "kind": b.kind} for b in launch.buffers],
        "sites": [vars(s) for s in launch.sites],
        "verdicts": {label(v): v.terminates for v in result.verdicts},
        "table": rows(result),
        "violations": violations(result),
        "shapes": {
            o.shape.name: {
                "occupiers": o.shape.occupiers,
                "mapping": o.shape.mapping,
                "budget": o.budget,
                "cell": o.cell(n),
                "first_sites": {str(k): v for k, v in sorted(o.sites().items())},
                "outputs": result.outputs.get(o.shape.name),
                "iterations": [
                    {
                        "finished": it.finished(n),
                        "seconds": round(it.seconds, 6),
                        "occupier_timeouts": it.occupier_timeouts,
                        "workgroups": _workgroups(it, launch.workgroups),
                    }
                    for it in o.iterations
                ],
            }
            for o in result.outcomes
        },
        "settings": {"buffers": dict(buffers), "init": [list(i) for i in init]},
    }


def _workgroups(iteration: Iteration, count: int) -> list | dict:
    """Each workgroup's [returned, left, site, expired], or past RECORDED_WORKGROUPS their counts."""
    if count <= RECORDED_WORKGROUPS:
        return [[w.done, w.left, w.site, w.expired] for w in iteration.workgroups]
    return {
        "returned_all": sum(1 for w in iteration.workgroups if not w.left),
        "left": sum(1 for w in iteration.workgroups if w.left),
        "left_by_own_deadline": sum(1 for w in iteration.workgroups if w.left and not w.expired),
    }
