"""The words the pages use, defined once: the glossary page and the
tooltips and links on every page come from `TERMS` (docs/semantics.md is
the full account). Pure: data in, HTML out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from progress.web.html import attr, esc, page


@dataclass(frozen=True)
class Term:
    name: str
    words: str
    """The definition, plain text (the tooltip); `more` adds HTML for the page."""
    more: str = ""
    doc: str = ""
    """A docs page that says more (`semantics#4-termination-under-weak-and-strong-fairness`)."""

    @property
    def anchor(self) -> str:
        return anchor_of(self.name)


def anchor_of(name: str) -> str:
    """`HSA+OBE` -> `hsa-obe`, `F={0}` -> `f`: the glossary's fragment for a term."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "term"


GROUPS: tuple[tuple[str, tuple[Term, ...]], ...] = (
    (
        "Tests and verdicts",
        (
            Term(
                "AXB",
                "A test: threads of AXB(loc, cmp, target, xchg, val) instructions, 'atomic exchange, branch': "
                "read loc; if xchg, write val; jump to target if the old value was cmp, else go on.",
                doc="axb",
            ),
            Term(
                "kernel",
                "A GPU compute shader (GLSL, HLSL, WGSL or SPIR-V assembly) checked as a test: its workgroups are "
                "the models' threads, its invocations interleave.",
                doc="kernels",
            ),
            Term(
                "progress model",
                "Which threads a GPU scheduler guarantees to run eventually. In each state a model names "
                "the fair set F; a test may not terminate under a model if some run keeps going while "
                "respecting F.",
                doc="models",
            ),
            Term(
                "F={0}",
                "The fair set of a state: the threads the model guarantees will eventually run. F={0} says "
                "only thread 0 is guaranteed; F={} that no thread is; F={0,1} both.",
            ),
            Term("guaranteed to terminate", "Every run the model allows ends: no lasso respects the model (P)."),
            Term(
                "may not terminate",
                "Some run the model allows goes on forever; the page shows it as a lasso (F).",
            ),
            Term(
                "inconclusive",
                "The check stopped at a bound (states, state cells or seconds) before it could decide (?).",
            ),
            Term(
                "lasso",
                "A run that never ends, as a way from the start to a loop and the loop repeated forever: "
                "starvation (a thread in F never runs), livelock (fair threads run but get nowhere) or "
                "deadlock (a kernel's invocations all wait).",
            ),
        ),
    ),
    (
        "The progress models",
        (
            Term("unfair", "No thread is guaranteed to run (F={}): a test fails if its LTS has any cycle."),
            Term("fair", "Every enabled thread is guaranteed to run eventually (F = all enabled threads)."),
            Term(
                "HSA",
                "Heterogeneous System Architecture's model: only the lowest-id thread that has not finished "
                "is guaranteed to run.",
            ),
            Term(
                "OBE",
                "Occupancy-bound execution: a thread that has taken a step keeps being scheduled (started "
                "threads are fair); one that has not started may never start.",
            ),
            Term("HSA+OBE", "Both guarantees at once: the lowest-id unfinished thread and every started thread."),
            Term(
                "LOBE",
                "Linear OBE: once a thread has started, it and every thread with a lower id are guaranteed to run.",
            ),
            Term(
                "weak",
                "Weak fairness: a thread that stays in F and enabled forever must eventually run. It rules "
                "out starvation, not a livelock that a fair thread could leave now and then.",
                doc="semantics#4-termination-under-weak-and-strong-fairness",
            ),
            Term(
                "strong",
                "Strong fairness: a thread that is in F infinitely often must eventually run, so a livelock "
                "that a fair thread can escape ends. A test guaranteed under weak fairness is guaranteed "
                "under strong.",
                doc="semantics#4-termination-under-weak-and-strong-fairness",
            ),
        ),
    ),
    (
        "Classifying a suite",
        (
            Term(
                "conformance",
                "A conformance test of a model is guaranteed to terminate under it: a GPU that fails it "
                "does not implement the model.",
                doc="classify",
            ),
            Term(
                "distinguishing",
                "A distinguishing test of a model is a conformance test of it that fails under every model "
                "below it: it tells the model apart from the weaker ones.",
                doc="classify",
            ),
            Term(
                "the paper's rule",
                "How Table 4 of the OOPSLA'21 paper counts: a test is credited to the first of HSA, OBE, "
                "LOBE, fair it passes (HSA+OBE left out), weak tests and strong tests apart; a model's "
                "conformance count adds the counts of the models below it.",
                doc="classify",
            ),
            Term(
                "the lattice rule",
                "Counts on the full order of models and fairnesses (unfair < HSA, OBE < HSA+OBE < LOBE < "
                "fair; weak < strong): every test passing a point is a conformance test of it, and a "
                "distinguishing one if it fails every point directly below.",
                doc="classify",
            ),
            Term(
                "verdict vector",
                "A test's 11 verdicts in the order of the pages; tests with the same vector behave alike "
                "under every model.",
            ),
            Term(
                "lattice edge",
                "Two points of the order, one directly above the other; the tests of an edge pass the upper "
                "point and fail the lower one.",
            ),
        ),
    ),
    (
        "Running tests on a GPU",
        (
            Term(
                "plain",
                "One workgroup per test thread: workgroup i runs thread i, one instance of the test.",
                doc="gpu",
            ),
            Term(
                "rr",
                "Round-robin: M instances, N x M workgroups; workgroup w runs thread w mod N of instance "
                "w div N, so each instance's threads are neighbours.",
                doc="gpu",
            ),
            Term(
                "chunked",
                "M instances; workgroup w runs thread w div M of instance w mod M, so thread 0 of every "
                "instance comes first and an instance's threads are far apart.",
                doc="gpu",
            ),
            Term("instances", "Copies of the test run side by side in one launch, each on its own memory."),
            Term(
                "iterations",
                "Launches of the same test; F (k/N) says k of N iterations did not finish by the deadline.",
            ),
            Term(
                "deadline",
                "How long a spinning thread may wait before it records a time-out and gives up, so that a "
                "test that does not terminate never hangs the GPU.",
            ),
            Term(
                "consistent",
                "No conformance test of the model failed on the device. Finitely many runs can refute a "
                "model, never prove it; small runs and software adapters say little.",
                doc="devices",
            ),
            Term("violates", "Some conformance test of the model failed on the device (the count says how many)."),
            Term(
                "lane scope",
                "A run whose test threads were the lanes of one subgroup (a warp) of one workgroup, as the "
                "paper's intra-warp runs and progress run --scope lane: each model M is judged as (fair, fair, M), "
                "M scheduling the lanes.",
                doc="gpu#lanes---scope-lane",
            ),
            Term(
                "software adapter",
                "A CPU implementation of the GPU API (SwiftShader, llvmpipe): its scheduling says nothing about GPUs.",
                doc="web#what-swiftshader-s-verdicts-mean",
            ),
        ),
    ),
)
TERMS: dict[str, Term] = {term.name: term for _, terms in GROUPS for term in terms}


def term(name: str, shown: str | None = None) -> str:
    """`name` (or `shown`) linked to its glossary entry, its definition as a tooltip."""
    found = TERMS[name]
    words = esc(shown or name).replace("+", "+<wbr>")  # HSA+OBE may break after its +
    return f"<a class=term href={attr('/glossary#' + found.anchor)} title={attr(found.words)}>{words}</a>"


def model_term(model: str, fairness: str = "none") -> str:
    """`HSA/weak` with each half linked, or a model without fairness."""
    head = term(model) if model in TERMS else esc(model)
    return head if fairness == "none" else f"{head}/{term(fairness)}"


def glossary_page(groups: Sequence[tuple[str, Sequence[Term]]] = GROUPS) -> str:
    parts = [
        "<p>The words these pages use. <a href=/docs/semantics>The semantics</a> define them exactly; "
        "<a href=/docs>the documentation</a> says more.</p>"
    ]
    for title, terms in groups:
        parts.append(f"<h2>{esc(title)}</h2><dl class=glossary>")
        for item in terms:
            more = f" <a href={attr('/docs/' + item.doc)}>More</a>" if item.doc else ""
            parts.append(f"<dt id={attr(item.anchor)}>{esc(item.name)}</dt><dd>{esc(item.words)}{more}</dd>")
        parts.append("</dl>")
    return page("Glossary", "".join(parts))
