"""A chart like the paper's Fig. 10: the share of weak and strong tests,
then per model the share of tests distinguishing for it, weak and strong.

Only `progress classify --plot` imports this module (matplotlib is heavy).
Output is deterministic: no timestamps, fixed SVG ids. It returns bytes and
writes no file (`progress/cli/classify.py` does).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from progress.core.analyze import NO_FAIRNESS
from progress.core.check import STRONG, WEAK
from progress.core.classify import Classification, Matrix, fairness_split

if TYPE_CHECKING:
    from matplotlib.axes import Axes

COLOURS = {WEAK: "#4C72B0", STRONG: "#DD8452"}


def shares(matrix: Matrix, classification: Classification) -> tuple[list[str], dict[str, list[float]]]:
    """Bar labels and, per fairness, each bar's percentage of all tests."""
    total = max(classification.tests, 1)
    split = fairness_split(matrix)
    labels = ["all tests"]
    values = {WEAK: [100 * split[WEAK] / total], STRONG: [100 * split[STRONG] / total]}
    models = []
    for row in classification.rows:
        if row.fairness != NO_FAIRNESS and row.model not in models:
            models.append(row.model)
    for model in models:
        labels.append(model)
        for fairness in (WEAK, STRONG):
            count = sum(
                len(r.distinguishing) for r in classification.rows if r.model == model and r.fairness == fairness
            )
            values[fairness].append(100 * count / total)
    return labels, values


def draw_shares(matrix: Matrix, classification: Classification, fmt: str) -> bytes:
    """The chart as a `fmt` ("png" or "svg") file's bytes; writing it is the caller's job."""
    import matplotlib
    from matplotlib.figure import Figure  # no pyplot: no global figure registry or backend switch

    labels, values = shares(matrix, classification)
    out = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "progress", "font.size": 10}):
        figure = Figure(figsize=(6.4, 3.6), dpi=120)
        axes = figure.subplots()
        _stack_bars(axes, labels, values)
        axes.set_title(
            f"{classification.tests} tests: weak/strong split, then distinguishing tests ({classification.rule} rule)",
            fontsize=9,
        )
        figure.tight_layout()
        figure.savefig(out, format=fmt, metadata={"Date": None} if fmt == "svg" else {"Software": None})
    return out.getvalue()


def _stack_bars(axes: Axes, labels: list[str], values: dict[str, list[float]]) -> None:
    """Weak bars with strong ones on top, each labelled with its percentage when
    there is room; a dotted line after the first bar (all tests)."""
    positions = range(len(labels))
    bottom = [0.0] * len(labels)
    for fairness in (WEAK, STRONG):
        heights = values[fairness]
        bars = axes.bar(positions, heights, bottom=bottom, color=COLOURS[fairness], width=0.6, label=fairness)
        for bar, height, base in zip(bars, heights, bottom):
            if height >= 3:
                axes.text(
                    bar.get_x() + bar.get_width() / 2,
                    base + height / 2,
                    f"{height:.0f}%",
                    ha="center",
                    va="center",
                    color="white",
                    fontsize=8,
                )
        bottom = [b + h for b, h in zip(bottom, heights)]
    axes.axvline(0.5, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xticks(list(positions), labels)
    axes.set_ylabel("% of all tests")
    axes.set_ylim(0, 100)
    axes.legend(frameon=False, fontsize=8)


def draw_device_figures(
    runs: list[str],
    heuristics: list[str],
    counts: list[dict[str, tuple[int, int]]],
    fmt: str,
    lanes: list[bool] | None = None,
) -> bytes:
    """The paper's Fig. 12 for many runs: one panel per heuristic, per run a bar of
    tests failing in every iteration with the tests failing in some on top.
    `counts[i][heuristic]` is (deterministic, nondeterministic) of the run
    labelled `runs[i]` (labels may repeat); a run without a heuristic gets no bar there.
    `lanes[i]` marks a run whose test threads were lanes of one subgroup (judged
    at the lane scope): its bars are hatched and its label ends in "(lanes)"."""
    import matplotlib
    from matplotlib.figure import Figure

    out = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "progress", "svg.fonttype": "none", "font.size": 9}):
        figure = Figure(figsize=(3.2 * len(heuristics), 3.6), dpi=120)
        panels = figure.subplots(1, len(heuristics), squeeze=False, sharey=True)[0]
        top = max([sum(c) for run in counts for c in run.values()] + [1])
        marked = lanes or [False] * len(runs)
        labels = [f"{name} (lanes)" if lane else name for name, lane in zip(runs, marked)]
        hatches = ["//" if lane else "" for lane in marked]
        for axes, heuristic in zip(panels, heuristics):
            always = [run.get(heuristic, (0, 0))[0] for run in counts]
            sometimes = [run.get(heuristic, (0, 0))[1] for run in counts]
            axes.bar(range(len(runs)), always, color="#4C72B0", width=0.7, label="every iteration", hatch=hatches)
            axes.bar(
                range(len(runs)),
                sometimes,
                bottom=always,
                color="#DD8452",
                width=0.7,
                label="some iterations",
                hatch=hatches,
            )
            axes.set_title(heuristic, fontsize=9)
            axes.set_xticks(list(range(len(runs))), labels, rotation=60, ha="right", fontsize=7)
            axes.set_ylim(0, top * 1.05)
        panels[0].set_ylabel("failing tests")
        panels[0].legend(frameon=False, fontsize=7)
        figure.tight_layout()
        figure.savefig(out, format=fmt, metadata={"Date": None} if fmt == "svg" else {"Software": None})
    return out.getvalue()
