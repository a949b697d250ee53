"""Exported Promela, re-checked by SPIN for real: on a sample of the OOPSLA'21
suite under every model with weak fairness, SPIN's acceptance-cycle search
must give our verdicts. SPIN (Debian `spin`) and gcc are installed by
.ci/system-deps. The sample here is one test per group (the first) plus the
tests that give every model both verdicts; the larger sample
(six per group) is re-checked by benchmarks/bench_agreement.py, results in
docs/results/agreement.md."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from spin_oracle import GROUPS, disagreements, sample, spin_terminates

from progress.back.promela import RECHECK, memory_values, to_promela
from progress.cli.inputs import load
from progress.core.registry import all_models, find_model

MUTEX = Path(__file__).resolve().parents[1] / "litmus" / "paper" / "mutex.axb"
PER_GROUP = 1

needs_spin = pytest.mark.skipif(
    shutil.which("spin") is None or shutil.which("gcc") is None,
    reason="SPIN and gcc are not installed (.ci/system-deps installs them)",
)


def test_memory_values_enumerate_the_model_state():
    assert memory_values(find_model("fair"), 3) == [None]
    assert sorted(memory_values(find_model("OBE"), 3)) == list(range(8))


def test_promela_names_the_recheck_command_and_the_test():
    text = to_promela(load(MUTEX), find_model("OBE"), "mutex.pml")
    assert RECHECK.format(file="mutex.pml") in text
    assert "accept_fair:" in text and "AXB(m, 1, 0, true, 1)" in text and "hidden byte FAIR[" in text


@needs_spin
@pytest.mark.parametrize("model, terminates", [("HSA", False), ("OBE", True), ("unfair", False), ("fair", True)])
def test_spin_agrees_on_the_mutex(tmp_path, model, terminates):
    assert spin_terminates(to_promela(load(MUTEX), find_model(model)), tmp_path) is terminates


@pytest.mark.long
@needs_spin
@pytest.mark.slow
def test_spin_gives_our_weak_verdicts_on_a_sample_of_the_suite(oopsla_dir, tmp_path):
    models = list(all_models())
    chosen = sample(oopsla_dir, models, PER_GROUP)
    assert len(chosen) >= len(GROUPS) * PER_GROUP
    jobs, wrong = disagreements(chosen, models, tmp_path)
    assert [(p.parent.name + "/" + p.name, m, ours) for p, m, ours in wrong] == []
    # The sample is not trivial: both verdicts occur under every model with fairness.
    for model in models:
        if model.has_fairness:
            assert {ours for _, m, ours in jobs if m == model.name} == {True, False}, model.name
