"""Exported Promela, re-checked by SPIN for real: on a sample of the OOPSLA'21
suite under every model with weak fairness, SPIN's acceptance-cycle search
must give our verdicts. SPIN (Debian `spin`) and gcc are installed by
.ci/system-deps."""

from __future__ import annotations

import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from progress.analyze import check_program, queries_for
from progress.cli.inputs import expand, load
from progress.promela import RECHECK, memory_values, to_promela
from progress.registry import all_models, find_model

MUTEX = Path(__file__).resolve().parents[1] / "litmus" / "paper" / "mutex.axb"
GROUPS = ("2t2i", "2t3i", "2t4i", "3t3i", "3t4i")
PER_GROUP = 6

needs_spin = pytest.mark.skipif(
    shutil.which("spin") is None or shutil.which("gcc") is None,
    reason="SPIN and gcc are not installed (.ci/system-deps installs them)",
)


def spin_terminates(promela: str, workdir: Path) -> bool:
    """Run the re-check command of the Promela header; True iff no acceptance cycle."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "test.pml").write_text(promela)
    command = RECHECK.format(file="test.pml").replace("-O2", "-O0")
    done = subprocess.run(command, shell=True, cwd=workdir, capture_output=True, text=True, timeout=120)
    errors = re.search(r"errors: (\d+)", done.stdout)
    assert done.returncode == 0 and errors, done.stdout + done.stderr
    assert "max search depth too small" not in done.stdout
    if errors.group(1) != "0":
        assert "acceptance cycle" in done.stdout, done.stdout
    return errors.group(1) == "0"


def _weak_verdicts(path: Path, models) -> dict[str, bool]:
    report = check_program(load(path), queries_for(models, ("weak",)), witnesses=False)
    return {v.model: v.terminates for v in report.verdicts}


def _sample(oopsla_dir: Path, models) -> dict[Path, dict[str, bool]]:
    """PER_GROUP tests evenly spread over each group, plus, for any model whose
    verdicts are all alike there, the first test of the suite with the other one."""
    chosen = {}
    for group in GROUPS:
        files = expand([str(oopsla_dir / group)])
        for k in range(PER_GROUP):
            path = files[round(k * (len(files) - 1) / (PER_GROUP - 1))]
            chosen[path] = _weak_verdicts(path, models)
    for model in models:
        for wanted in (True, False):
            if all(v[model.name] is not wanted for v in chosen.values()):
                for path in expand([str(oopsla_dir)]):
                    verdicts = _weak_verdicts(path, models)
                    if verdicts[model.name] is wanted:
                        chosen[path] = verdicts
                        break
    return chosen


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


@needs_spin
@pytest.mark.slow
def test_spin_gives_our_weak_verdicts_on_a_sample_of_the_suite(oopsla_dir, tmp_path):
    models = list(all_models())
    sample = _sample(oopsla_dir, models)
    jobs = [
        (path, model.name, verdicts[model.name], to_promela(load(path), model))
        for path, verdicts in sample.items()
        for model in models
    ]
    assert len(sample) >= len(GROUPS) * PER_GROUP
    with ThreadPoolExecutor(max_workers=2) as pool:
        spin = list(pool.map(lambda i: spin_terminates(jobs[i][3], tmp_path / f"job{i}"), range(len(jobs))))
    disagreements = [
        (p.parent.name + "/" + p.name, m, ours) for (p, m, ours, _), theirs in zip(jobs, spin) if ours is not theirs
    ]
    assert disagreements == []
    # The sample is not trivial: both verdicts occur under every model with fairness.
    for model in models:
        if model.has_fairness:
            assert {ours for _, m, ours, _ in jobs if m == model.name} == {True, False}, model.name
