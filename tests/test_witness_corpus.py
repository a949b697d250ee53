"""Every lasso the checker prints for the OOPSLA'21 suite is a real run that
does not terminate under its model and fairness, replayed from scratch."""

from __future__ import annotations

import pytest

from progress.core.analyze import check_program, queries_for
from progress.core.registry import all_models, find_model
from progress.core.semantics import compile_program
from progress.front.axb.parse import parse_program


def replay(program, lasso, model):
    """Re-execute the lasso's steps; return the product states it visits."""
    machine = compile_program(program)
    state, memory = machine.initial, model.memory.initial(len(program.threads))
    visited = []
    for step in lasso.steps:
        assert dict(step.memory) == machine.memory_of(state)
        assert step.pcs == machine.pcs_of(state)
        enabled = machine.enabled(state)
        assert enabled >> step.thread & 1, "a step of a terminated thread"
        fair = model.fair(enabled, memory, len(program.threads))
        assert step.fair == tuple(t for t in range(len(program.threads)) if fair >> t & 1)
        visited.append(((state, memory), enabled, fair, step.thread))
        state, memory = machine.step(state, step.thread), model.memory.after(memory, step.thread)
    assert visited[lasso.loop_start][0] == (state, memory), "the loop does not close"
    return visited[lasso.loop_start :]


def assert_valid(loop, fairness):
    steps_at = {(node, thread) for node, _, _, thread in loop}
    if fairness in ("weak", "none"):
        always_fair = -1
        for _, _, fair, _ in loop:
            always_fair &= fair
        stepping = {thread for *_, thread in loop}
        for t in range(always_fair.bit_length()):
            if always_fair >> t & 1:
                assert t in stepping, f"thread {t} is fair throughout the loop but never steps"
    else:
        for node, _, fair, _ in loop:
            for t in range(fair.bit_length()):
                if fair >> t & 1:
                    assert (node, t) in steps_at, f"fair step of thread {t} not taken on the loop"


def test_every_corpus_lasso_replays_and_is_a_witness(oopsla_dir):
    queries = queries_for(all_models())
    checked = 0
    for path in sorted(oopsla_dir.glob("*/*.axb")):
        program = parse_program(path.read_text(), str(path))
        for verdict in check_program(program, queries).verdicts:
            if verdict.terminates:
                assert verdict.witness is None
                continue
            loop = replay(program, verdict.witness, find_model(verdict.model))
            assert_valid(loop, verdict.fairness)
            checked += 1
    assert checked == 483 + 2927  # every unfair verdict plus the 2927 F cells of the CADP CSV


@pytest.mark.parametrize("fairness", ["weak", "strong"])
def test_lasso_kinds_on_the_mutex(repo, fairness):
    program = parse_program((repo / "litmus/paper/mutex.axb").read_text(), "mutex.axb")
    (verdict,) = check_program(program, queries_for([find_model("HSA")], (fairness,))).verdicts
    assert verdict.witness.kind == "starvation"
    assert verdict.witness.starving == (1,)
    assert "thread 1 never runs" in verdict.witness.summary
