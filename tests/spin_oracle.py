"""SPIN as an oracle for exported Promela, and the sample of the OOPSLA'21
suite it re-checks.

`spin_terminates` runs the re-check command written in the Promela header
(`progress.back.promela.RECHECK`: spin -a, gcc, pan's acceptance-cycle search) and
reads SPIN's verdict. `sample` spreads `per_group` tests evenly over each
group of the suite and adds, for any model whose verdicts are all alike
there, the first test of the suite with the other verdict. `disagreements`
re-checks every (test, model) of a sample under weak fairness.

Used by tests/test_port_spin.py (a small sample, in the test suite) and by
benchmarks/bench_agreement.py (the larger sample, results in
docs/results/agreement.md). Each (test, model) is its own Promela program,
so each job compiles its own verifier (about 0.3 s of gcc, the bulk of the
time).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from progress.back.promela import RECHECK, to_promela
from progress.cli.inputs import expand, load
from progress.core.analyze import check_program, queries_for
from progress.models.base import ProgressModel

GROUPS = ("2t2i", "2t3i", "2t4i", "3t3i", "3t4i")


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


def weak_verdicts(path: Path, models: Sequence[ProgressModel]) -> dict[str, bool | None]:
    """Our weak-fairness verdict (True: guaranteed to terminate) per model name."""
    report = check_program(load(path), queries_for(models, ("weak",)), witnesses=False)
    return {v.model: v.terminates for v in report.verdicts}


def sample(oopsla_dir: Path, models: Sequence[ProgressModel], per_group: int) -> dict[Path, dict[str, bool | None]]:
    """`per_group` (>= 1) tests evenly spread over each group (1: the first), with our verdicts,
    plus a test with the missing verdict for any model whose verdicts are all alike."""
    assert per_group >= 1
    chosen = {}
    for group in GROUPS:
        files = expand([str(oopsla_dir / group)])
        for k in range(per_group):
            path = files[round(k * (len(files) - 1) / max(per_group - 1, 1))]
            chosen[path] = weak_verdicts(path, models)
    for model in models:
        for wanted in (True, False):
            if all(v[model.name] is not wanted for v in chosen.values()):
                for path in expand([str(oopsla_dir)]):
                    verdicts = weak_verdicts(path, models)
                    if verdicts[model.name] is wanted:
                        chosen[path] = verdicts
                        break
    return chosen


Job = tuple[Path, str, bool | None]  # (test, model, our verdict)


def disagreements(
    chosen: dict[Path, dict[str, bool | None]], models: Sequence[ProgressModel], workdir: Path, workers: int = 2
) -> tuple[list[Job], list[Job]]:
    """Every (test, model) job of the sample, and those where SPIN's verdict
    differs from ours (the verdict listed is ours)."""
    jobs = [(path, model.name, verdicts[model.name]) for path, verdicts in chosen.items() for model in models]
    by_name = {model.name: model for model in models}

    def recheck(i: int) -> bool:
        path, name, _ = jobs[i]
        return spin_terminates(to_promela(load(path), by_name[name]), workdir / f"job{i}")

    with ThreadPoolExecutor(max_workers=workers) as pool:
        theirs = list(pool.map(recheck, range(len(jobs))))
    return jobs, [job for job, spin in zip(jobs, theirs) if job[2] is not spin]
