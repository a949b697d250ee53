"""`progress show` and progress.back.draw: the LTS picture of one test under one
model. Oracles: the brute-force checker (tests/brute.py) for the states,
edges and verdicts, and its lasso validator for the highlighted loop."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import brute
import pytest
from click.testing import CliRunner

from progress.back.draw import picture, state_name, to_dot, to_text
from progress.cli import cli
from progress.cli.inputs import load
from progress.core.registry import find_model

MUTEX = Path(__file__).resolve().parents[1] / "litmus" / "paper" / "mutex.axb"
EDGE = re.compile(r"^  ([A-Z]+) -> ([A-Z]+) \[label=\"T(\d+):(\d+) \{([\d,]*)\}\"(.*)\];$")


def _edges(dot: str) -> list[tuple]:
    return [EDGE.match(line).groups() for line in dot.splitlines() if EDGE.match(line)]


def test_state_names_run_like_spreadsheet_columns():
    assert [state_name(i) for i in (0, 1, 25, 26, 27, 701, 702)] == ["A", "B", "Z", "AA", "AB", "ZZ", "AAA"]


def test_mutex_under_hsa_shows_the_starvation_loop():
    pic = picture(load(MUTEX), find_model("HSA"), "weak")
    dot = to_dot(pic)
    assert "starvation: thread 1 never runs while thread 0 loops" in dot
    red = [e for e in _edges(dot) if "c0392b" in e[5]]
    assert [e[:5] for e in red] == [("C", "C", "0", "0", "0")]  # T0 spins holding F={0}; T1 starves
    assert re.search(r"  H \[label=\"H\\nm=0 \| pc 2,2\", peripheries=2\];", dot)


def test_mutex_under_obe_terminates_and_shows_the_started_set():
    pic = picture(load(MUTEX), find_model("OBE"), "weak")
    dot = to_dot(pic)
    assert pic.terminates and "guaranteed to terminate" in dot and "c0392b" not in dot
    assert "started {0,1}" in dot and "T1:0 {0,1}" in dot


SAMPLE = ["2t2i/0.axb", "2t3i/9.axb", "2t4i/22.axb", "3t3i/7.axb", "3t4i/13.axb"]


@pytest.mark.parametrize("name", SAMPLE)
@pytest.mark.parametrize("model", ["unfair", "HSA", "OBE", "LOBE", "fair"])
@pytest.mark.parametrize("fairness", ["weak", "strong"])
def test_picture_matches_the_brute_force_lts_and_verdict(oopsla_dir, name, model, fairness):
    program = load(oopsla_dir / name)
    pic = picture(program, find_model(model), fairness)
    lts = brute.explore(program, model)
    dot = to_dot(pic)
    assert dot.count("peripheries=2") == sum(1 for s in lts.states if not brute.enabled_threads(program, s))
    assert len(_edges(dot)) == sum(len(e) for e in lts.edges.values())
    assert len(re.findall(r"^  [A-Z]+ \[label=", dot, re.M)) == len(lts.states)
    assert pic.terminates == brute.decide(lts, fairness if model != "unfair" else "none")
    if not pic.terminates:
        assert brute.lasso_problems(program, model, pic.fairness if model != "unfair" else "weak", pic.lasso) == []
        assert pic.loop[0][0] == pic.loop[-1][2] and all(a[2] == b[0] for a, b in zip(pic.loop, pic.loop[1:]))
        assert (pic.prefix[0][0] if pic.prefix else pic.loop[0][0]) == 0
        assert {s for s, _, _ in pic.loop} <= pic.members


def test_text_marks_the_witness_and_the_loop():
    text = to_text(picture(load(MUTEX), find_model("HSA"), "weak"))
    assert "* C  [m=1 | pc 0,1]" in text and "=> C    T0:0 {0}" in text and "H  [m=0 | pc 2,2]  (end)" in text
    assert text.rstrip().endswith("loop (=>): C -T0-> C")


def invoke(*args):
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def test_cli_text_and_dot_are_deterministic(tmp_path):
    first = invoke("show", MUTEX, "--model", "HSA", "--format", "dot")
    assert first.exit_code == 0 and first.stdout.startswith("digraph lts {")
    assert invoke("show", MUTEX, "--model", "HSA", "--format", "dot").stdout == first.stdout
    assert invoke("show", MUTEX, "--model", "HSA", "-o", tmp_path / "m.dot").exit_code == 0
    assert (tmp_path / "m.dot").read_text() == first.stdout
    assert invoke("show", MUTEX, "--model", "hsa").stdout.startswith("mutex under HSA weak: may not terminate")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed (.ci/system-deps installs it)")
@pytest.mark.parametrize("fmt, magic", [("svg", b"<svg"), ("png", b"\x89PNG")])
def test_cli_renders_with_graphviz(tmp_path, fmt, magic):
    out = tmp_path / f"m.{fmt}"
    assert invoke("show", MUTEX, "--model", "OBE", "--strong", "-o", out).exit_code == 0
    assert magic in out.read_bytes()[:400]


def test_unknown_model_is_a_usage_error():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", "from progress.cli import main; main()", "show", str(MUTEX), "--model", "nonesuch"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "unknown progress model" in done.stderr


@pytest.mark.parametrize(
    "kind, command",
    [
        ("starvation", ("litmus/paper/mutex.axb", "HSA")),
        ("livelock", ("litmus/oopsla21/2t2i/0.axb", "fair")),
        ("terminating", ("litmus/paper/mutex.axb", "OBE")),
    ],
)
def test_committed_pictures_show_each_witness_kind(repo, kind, command):
    """docs/images/witness-<kind>.png is `progress show PATH --model M --weak -o ...`."""
    assert (repo / "docs" / "images" / f"witness-{kind}.png").stat().st_size > 10_000
    pic = picture(load(repo / command[0]), find_model(command[1]), "weak")
    assert (pic.lasso.kind if pic.lasso else "terminating") == kind


def kernel_pictures():
    from progress.front.header import LaunchSettings
    from progress.front.spirv.load import launch_system, load_kernel
    from progress.web.examples import examples

    for example in examples():
        if example.language != "axb" and example.name not in (
            "occupancy_discovery",
            "lookback_scan",
        ):  # past 400 states
            loaded = load_kernel(example.text.encode(), f"{example.name}.k", example.language, LaunchSettings())
            yield example.name, launch_system(loaded, example.name, f"{example.name}.k")


def test_distinct_kernel_states_have_distinct_labels():
    """Two states of one kernel at the same source lines (tas_spinlock: an
    invocation before the load of `counter = counter + 1u` and after it,
    holding the value to store) were drawn alike; every state of every
    example kernel reads differently now, under every model."""
    from progress.back.draw import kernel_picture, labels, state_text
    from progress.core.registry import all_models

    for name, system in kernel_pictures():
        for model in all_models():
            pic = kernel_picture(system, model, "weak", 400)
            texts = [state_text(pic, state) for state in range(pic.lts.size)]
            assert len(set(texts)) == len(texts), (name, model.name)
            assert labels(pic) == texts
