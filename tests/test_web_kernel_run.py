"""The kernel run page's server side (progress/web/kernel_runs.py) through the ASGI app:
the plan (the instrumented kernel as naga's WGSL, its buffers, the control layout, the
shapes the browser can run), its refusals, and the report of a posted run. The plan's
WGSL is also run here on lavapipe through wgpu (its WGSL reader, Tint's cousin naga):
a terminating kernel gives the bytes the kernel as written gives, and the records it
leaves, posted, are joined into the cells the native run has.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from progress.back.spirv_checks import CONTROL_WORDS, RECORD_WORDS
from progress.back.spirv_edit import without_line_info
from progress.back.spirv_encode import encode
from progress.cli.kernel_run import prepared
from progress.core.registry import all_models
from progress.front.header import LaunchSettings
from progress.gpu.kernel_run import Shape
from progress.gpu.runner import BackendUnavailable
from progress.web.app import create_app
from progress.web.site import Site

os.environ.setdefault("LP_NUM_THREADS", "1")
REPO = Path(__file__).parents[1]
LITMUS = REPO / "litmus" / "kernels"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    site = Site({}, tmp_path_factory.mktemp("db") / "results.db", tuple(all_models()))
    return TestClient(create_app(site))


@pytest.fixture(scope="module")
def engine():
    try:
        from progress.gpu.wgpu_kernel import WgpuKernel

        return WgpuKernel()
    except BackendUnavailable as error:
        if os.environ.get("PROGRESS_SKIP_WGPU") == "1":
            pytest.skip(f"PROGRESS_SKIP_WGPU=1: {error}")
        pytest.fail(f"the wgpu backend cannot run here: {error}", pytrace=False)


def plan(client, name: str, lang: str = "glsl", **fields) -> dict:
    answer = client.post("/api/kernel/plan", params={"lang": lang, **fields}, content=(LITMUS / name).read_text())
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_plan_is_the_instrumented_kernel_as_wgsl(client):
    planned = plan(client, "ticket_lock.comp")
    assert planned["workgroups"] == 3 and planned["invocations"] == 1
    assert "@compute @workgroup_size(1, 1, 1)" in planned["wgsl"] and "progress_deadline" in planned["wgsl"]
    assert [(b["name"], b["set"], b["binding"], b["kind"], b["words"]) for b in planned["buffers"]] == [
        ("Tickets", 0, 0, "storage", [0, 0]),
        ("Counter", 0, 1, "storage", [0]),
    ]
    assert planned["control"]["set"] == 1 and planned["control"]["words"] == CONTROL_WORDS
    assert planned["shapes"] == ["alone", "occupied", "reverse", "interleave"]
    assert [s["where"] for s in planned["sites"]] == ["kernel.comp:29"]
    # naga's WGSL writer adds no loop bound (wgpu's force_loop_bounding is the SPIR-V writer's):
    # the kernel's one loop and the occupiers' wait, and no 64-bit counter
    assert planned["wgsl"].count("loop {") == 2 and "4294967295u" not in planned["wgsl"]


def test_a_kernel_with_a_barrier_has_no_occupied_shape_and_no_return_before_it(client):
    planned = plan(client, "lookback_scan.comp")
    assert planned["shapes"] == ["alone", "reverse", "interleave"]
    body = planned["wgsl"]
    barrier = body.index("workgroupBarrier()")
    assert "return;" not in body[body.index("fn main_1") : barrier]  # WGSL's uniformity rule


def test_push_and_spec_constants_reach_the_plan(client):
    planned = plan(client, "spec_ticket_lock.comp", push="pc.increments=5")
    assert planned["local_size"] == [2, 1, 1]
    push = planned["buffers"][-1]
    assert (push["name"], push["set"], push["binding"], push["kind"], push["words"]) == ("pc", 1, 1, "read-only", [5])
    assert "var<storage> " in planned["wgsl"] or "var<storage, read>" in planned["wgsl"]


@pytest.mark.parametrize(
    "name, lang, fields, said",
    [
        ("vulkan_mm_message_passing.comp", "glsl", {}, "naga cannot write this kernel as WGSL"),
        ("tas_spinlock.comp", "hlsl", {}, "kernel.hlsl"),
        ("tas_spinlock.comp", "cobol", {}, "unknown kernel language"),
        ("tas_spinlock.comp", "glsl", {"workgroups": "0"}, "the launch fields"),
    ],
)
def test_a_kernel_that_cannot_run_is_refused_with_the_reason(client, name, lang, fields, said):
    answer = client.post("/api/kernel/plan", params={"lang": lang, **fields}, content=(LITMUS / name).read_text())
    assert answer.status_code == 400 and said in answer.json()["error"] + answer.json()["rendered"]


def test_a_compile_error_is_at_its_line_and_column(client):
    answer = client.post("/api/kernel/plan", params={"lang": "glsl"}, content="#version 450\nvoid main() { x; }\n")
    assert answer.status_code == 400 and answer.json()["rendered"].startswith("kernel.comp:2:15: error:")


def test_a_kernel_past_the_size_limit_is_refused_unread(client):
    answer = client.post("/api/kernel/plan", params={"lang": "glsl"}, content="x" * 20000)
    assert answer.status_code == 413


def run_wgsl(engine, planned: dict, path: Path, shape: str, iterations: int, budget: int):
    """The plan's WGSL launched natively (wgpu reads WGSL), with the buffers the plan names."""
    _, launch, _ = prepared(str(path), LaunchSettings(), leave="break")
    launch = replace(launch, binary=planned["wgsl"])
    outcome = engine.run_kernel(launch, engine.kernel_pipeline(launch), Shape(shape), iterations, budget, 120.0)
    return launch, outcome


@pytest.mark.parametrize("name", ["ticket_lock.comp", "message_passing.comp", "lookback_scan.comp"])
def test_the_plans_wgsl_gives_the_bytes_of_the_kernel_as_written(client, engine, name):
    loaded, launch, _ = prepared(str(LITMUS / name), LaunchSettings())
    plain = replace(launch, binary=encode(without_line_info(loaded.module)), control_set=None)
    expected = engine.run_kernel(plain, engine.kernel_pipeline(plain), Shape("alone"), 2, 1, 120.0).buffers
    wgsl_launch, outcome = run_wgsl(engine, plan(client, name), LITMUS / name, "alone", 2, 20000)
    assert all(it.finished(wgsl_launch.invocations) for it in outcome.iterations)
    assert outcome.buffers == expected and any(any(b) for b in expected)


def posted(kernel: str, shapes: list[dict], iterations: int, **extra) -> str:
    text = (LITMUS / kernel).read_text()
    return json.dumps(
        {"text": text, "lang": "glsl", "iterations": iterations, "deadline_s": 0.05, "shapes": shapes, **extra}
    )


def test_a_posted_run_is_joined_as_progress_run_joins_it(client, engine):
    """mutual_wait.comp's plan run natively: every iteration times out at the wait; the
    records, posted, give F (3/3) at kernel.comp:17 and the table `progress run` prints."""
    planned = plan(client, "mutual_wait.comp")
    launch, outcome = run_wgsl(engine, planned, LITMUS / "mutual_wait.comp", "alone", 3, 500)
    size = CONTROL_WORDS + RECORD_WORDS * launch.workgroups
    controls = []
    for it in range(3):  # the engine read them back; rebuild the words it read
        words = [0] * size
        for w, record in enumerate(outcome.iterations[it].workgroups):
            base = CONTROL_WORDS + RECORD_WORDS * w
            site = 0 if record.site is None else (record.site + 1) | (0x80000000 if record.expired else 0)
            words[base : base + 3] = [record.done, record.left, site]
        first = outcome.iterations[it].first_site
        words[3] = 0 if first is None else first + 1
        controls.append(words)
    shape = {"name": "alone", "occupiers": 0, "budget": 500, "control": controls, "seconds": [0.01] * 3}
    answer = client.post("/api/kernel/report", content=posted("mutual_wait.comp", [{**shape, "outputs": None}], 3))
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert "alone: F (3/3) (3x first at loop kernel.comp:17" in report["text"]
    assert "violations: none" in report["text"]
    record = report["record"]
    assert record["shapes"]["alone"]["cell"] == "F (3/3)" and record["verdicts"]["OBE/weak"] is False
    run = report["run"]
    assert run["backend"] == "webgpu" and run["kernels"][0]["kernel"] == "kernel.comp" and run["leave"] == "break"


def test_posted_outputs_are_compared_with_the_terminal_states(client):
    """ticket_lock.comp, three workgroups each adding 1 under the lock: counter 3 is a
    terminal state, counter 2 is not (the device's outputs as posted)."""
    finished = [0] * CONTROL_WORDS + [1, 0, 0] * 3
    for counter, said in ((3, "a terminal state of the kernel"), (2, "NOT a terminal state of the kernel")):
        shape = {"name": "alone", "budget": 9, "control": [finished], "seconds": [0.0], "outputs": [[3, 3], [counter]]}
        answer = client.post(
            "/api/kernel/report", content=posted("ticket_lock.comp", [shape], 1, name="ticket_lock.comp")
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["record"]["shapes"]["alone"]["outputs"] == said
        assert answer.json()["run"]["kernels"][0]["kernel"] == "ticket_lock.comp"


GOOD = {"name": "alone", "budget": 9, "control": [[0] * (CONTROL_WORDS + 9)], "seconds": [0.0], "outputs": None}


@pytest.mark.parametrize(
    "change, said",
    [
        ({"shapes": [{**GOOD, "name": "sideways"}]}, "not a launch shape"),
        ({"shapes": [GOOD, GOOD]}, "comes twice"),
        ({"shapes": [{**GOOD, "control": [[0] * 5]}]}, "words expected"),
        ({"shapes": [{**GOOD, "control": [[-1] * (CONTROL_WORDS + 9)]}]}, "from 0 to 2^32 - 1"),
        ({"shapes": [{**GOOD, "budget": 0}]}, "budget"),
        ({"shapes": [{**GOOD, "occupiers": 5}]}, "only under occupied"),
        ({"shapes": [{**GOOD, "outputs": [[1]]}]}, "one list of words per buffer"),
        ({"iterations": 2}, "one control buffer per iteration"),
        ({"iterations": 0}, "iterations: 1 to"),
        ({"deadline_s": "soon"}, "deadline_s"),
        ({"fields": {"nope": "1"}}, "fields:"),
        ({"name": "../etc/passwd"}, "name:"),
        ({"browser": "x" * 3000}, "at most 2,000 characters"),
    ],
)
def test_a_malformed_run_is_refused_with_the_reason(client, change, said):
    body = json.loads(posted("ticket_lock.comp", [GOOD], 1))
    body.update(change)
    answer = client.post("/api/kernel/report", content=json.dumps(body))
    assert answer.status_code == 400 and said in answer.json()["error"], answer.text


def test_a_run_that_is_not_json_is_refused(client):
    assert client.post("/api/kernel/report", content=b"\xff{").json()["error"] == "the run is not JSON"


def test_the_page_offers_the_kernels_and_the_launch_fields(client):
    page = client.get("/kernel/run", params={"example": "mutual_wait"})
    assert page.status_code == 200
    assert 'id=kernel-name value="mutual_wait.comp"' in page.text and "while (atomicAdd(flags[1u - me]" in page.text
    assert 'name="workgroups"' in page.text and "kernel.js" in page.text
    assert client.get("/kernel/run", params={"example": "nope"}).status_code == 404
    assert "<noscript>" in page.text  # without its script the page runs nothing, and says so


def test_the_pages_wgsl_leaves_the_hlsl_round_loop_and_a_switch_break_is_refused(client):
    """The page's WGSL goes through naga too (gfx-rs/naga#1575): Slang's
    `switch 0` wrapper is dropped, so no loop exit is a `break` inside a
    switch; a switch with cases that breaks its loop is refused."""
    from benchmarks.naga_loop_exits import breaks

    planned = plan(client, "hlsl_spec_ticket_lock.hlsl", "hlsl")
    assert not [b for b in breaks(planned["wgsl"]) if b.misplaced]
    text = (REPO / "tests" / "data" / "kernels" / "run" / "switch_break.spvasm").read_text()
    answer = client.post("/api/kernel/plan", params={"lang": "spvasm"}, content=text)
    assert answer.status_code == 400 and "gfx-rs/naga#1575" in answer.json()["error"]
