"""`progress run KERNEL` for real, on whatever wgpu adapter is here (lavapipe in CI).

With LP_NUM_THREADS=1 lavapipe runs the workgroups of a dispatch one after
another, each to its end, in id order: a terminating kernel's outputs are
then one deterministic set of bytes, which the instrumented kernel must
reproduce byte for byte; a kernel whose wait is never satisfied must time
out at that wait in every iteration, leave cleanly (no hang, no cut loop)
and the run go on. As in tests/test_gpu_wgpu.py, a missing wgpu or adapter
FAILS these tests unless PROGRESS_SKIP_WGPU=1.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import replace
from pathlib import Path

import pytest

from progress.back.spirv_deadline import instrument
from progress.back.spirv_edit import without_line_info
from progress.back.spirv_encode import encode
from progress.cli import main
from progress.cli.kernel_run import kernel_launch, prepared
from progress.front.header import LaunchSettings
from progress.front.spirv.load import kind_of, load_kernel
from progress.gpu.kernel_run import Shape
from progress.gpu.runner import BackendUnavailable

os.environ.setdefault("LP_NUM_THREADS", "1")

REPO = Path(__file__).parents[1]
LITMUS = REPO / "litmus" / "kernels"
RUN = REPO / "tests" / "data" / "kernels" / "run"
TERMINATING = [
    "tas_spinlock.comp",
    "ticket_lock.comp",
    "message_passing.comp",
    "lookback_scan.comp",
    "lookback_fallback.comp",
    "occupancy_discovery.comp",
    "plain_spin.comp",
    "hlsl_ticket_lock.hlsl",
    "spvasm_spinlock.spvasm",
]
"""Kernels that end on lavapipe with one thread (workgroups in id order, each to its end)."""


@pytest.fixture(scope="module")
def engine():
    try:
        from progress.gpu.wgpu_kernel import WgpuKernel

        return WgpuKernel()
    except BackendUnavailable as error:
        if os.environ.get("PROGRESS_SKIP_WGPU") == "1":
            pytest.skip(f"PROGRESS_SKIP_WGPU=1: {error}")
        pytest.fail(f"the wgpu backend cannot run here: {error}", pytrace=False)


def run(
    engine, path: Path, shape: Shape, iterations: int = 2, budget: int = 20000, plain: bool = False, leave="return"
):
    loaded, launch, system = prepared(str(path), LaunchSettings())
    if leave != "return":  # the page's module: leaving by breaking, occupiers only without barriers
        launch = kernel_launch(loaded, launch.name, leave, occupiers=shape.name == "occupied")
    if plain:
        launch = replace(launch, binary=encode(without_line_info(loaded.module)), control_set=None)
    return launch, engine.run_kernel(launch, engine.kernel_pipeline(launch), shape, iterations, budget, 120.0)


def words(outcome) -> list[tuple[int, ...]]:
    return [struct.unpack(f"<{len(b) // 4}I", b) for b in outcome.buffers]


@pytest.mark.parametrize("name", TERMINATING)
def test_terminating_kernels_give_the_same_bytes_with_and_without_instrumentation(engine, name):
    _, plain = run(engine, LITMUS / name, Shape("alone"), plain=True)
    for leave in ("return", "break"):
        launch, instrumented = run(engine, LITMUS / name, Shape("alone"), leave=leave)
        assert all(it.finished(launch.invocations) for it in instrumented.iterations)
        assert instrumented.buffers == plain.buffers, leave
    assert any(any(w) for w in words(plain))  # the kernel wrote something


@pytest.mark.parametrize("leave", ["return", "break"])
def test_a_timeout_is_recorded_at_the_right_loop(engine, leave):
    launch, outcome = run(engine, RUN / "two_loops.comp", Shape("alone"), iterations=3, budget=500, leave=leave)
    assert [s.where.rsplit(":", 1)[1] for s in launch.sites] == ["10", "13"]
    for it in outcome.iterations:
        assert not it.finished(launch.invocations)
        assert it.first_site == 1
        first, second = it.workgroups
        assert (first.done, first.left, first.site, first.expired) == (0, 1, 1, False)
        # workgroup 1 runs after workgroup 0 expired the launch: it leaves at its first check
        assert (second.done, second.left, second.site, second.expired) == (0, 1, 0, True)
    assert outcome.buffers is None  # outputs are kept from finished iterations only


def test_a_timeout_in_a_called_function_leaves_the_entry_point(engine):
    launch, outcome = run(engine, RUN / "spin_in_function.comp", Shape("alone"), budget=300)
    assert outcome.buffers is None
    (record,) = outcome.iterations[0].workgroups
    assert (record.done, record.left, record.site) == (0, 1, 0)
    assert launch.sites[0].function.startswith("wait_for")


def test_leaving_by_breaking_runs_on_to_the_end_and_is_counted_once(engine):
    """The page's module: the spin in wait_for breaks out, main goes on (and
    writes `result`), and the invocation is counted as left, not returned."""
    launch, outcome = run(engine, RUN / "spin_in_function.comp", Shape("alone"), budget=300, leave="break")
    for it in outcome.iterations:
        (record,) = it.workgroups
        assert (record.done, record.left, record.site, record.expired) == (0, 1, 0, False)
        assert not it.finished(launch.invocations)


def test_a_loop_around_a_barrier_ends_at_its_uniform_bound(engine):
    """uniform_barrier_loop.comp in the page's module: invocation 0's spin
    leaves by its budget, then both invocations leave the endless loop around
    the barrier together, at the loop's uniform bound (site 1)."""
    launch, outcome = run(engine, RUN / "uniform_barrier_loop.comp", Shape("alone"), budget=300, leave="break")
    assert [s.where.rsplit(":", 1)[1] for s in launch.sites] == ["12", "15", "18"]
    for it in outcome.iterations:
        (record,) = it.workgroups
        assert (record.done, record.left) == (0, 2)
        assert it.first_site in (1, 2)


def test_a_barrier_in_a_spinning_loop_does_not_hang(engine):
    launch, outcome = run(engine, RUN / "barrier_loop.comp", Shape("alone"), budget=300)
    (record,) = outcome.iterations[0].workgroups
    assert record.done == 0 and record.left == 4 and record.site in (0, 1)


@pytest.mark.parametrize(
    "shape, order",
    [("alone", [0, 1, 2, 3]), ("reverse", [3, 2, 1, 0]), ("interleave", [0, 2, 1, 3])],
)
def test_launch_shapes_map_workgroup_ids_as_documented(engine, shape, order):
    launch, outcome = run(engine, RUN / "ids.comp", Shape(shape))
    count, *rest = words(outcome)[0]
    assert count == 4
    ids, counts, globals_ = rest[0:4], rest[4:8], rest[8:12]
    assert list(ids) == order  # lavapipe (one thread) runs hardware ids in order
    assert list(counts) == [4] * 4
    assert list(globals_) == [2 * w for w in order]


def test_occupiers_stay_out_of_the_kernels_ids(engine):
    launch, outcome = run(engine, RUN / "ids.comp", Shape("occupied", occupiers=3), budget=200)
    it = outcome.iterations[0]
    # one thread: each occupier's invocations spin their budget before the kernel runs
    assert it.occupier_timeouts == 3 * launch.invocations
    assert all(w.done == 2 and not w.left for w in it.workgroups)  # no loop: the kernel still ends
    assert not it.finished(launch.invocations)


def test_a_deadlocking_kernel_times_out_every_iteration_and_the_run_goes_on(tmp_path, capsys):
    out = tmp_path / "r.json"
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "run",
                str(LITMUS / "mutual_wait.comp"),
                str(LITMUS / "ticket_lock.comp"),
                "--iterations",
                "4",
                "--deadline",
                "1ms",
                "--shapes",
                "alone,reverse",
                "-o",
                str(out),
            ]
        )
    assert exit_info.value.code == 0
    report = json.loads(out.read_text())
    deadlock, ticket = report["kernels"]
    for shape in ("alone", "reverse"):
        cell = deadlock["shapes"][shape]
        assert cell["cell"] == "F (4/4)"
        assert cell["first_sites"] == {"0": 4}
        assert all(not it["finished"] for it in cell["iterations"])
        assert all(w[1] == 1 for it in cell["iterations"] for w in it["workgroups"])
    assert ticket["shapes"]["alone"]["cell"] == "P"
    assert ticket["shapes"]["alone"]["outputs"] == "a terminal state of the kernel"
    assert deadlock["violations"] == [] and ticket["violations"] == []
    text = capsys.readouterr().out
    assert "mutual_wait.comp: 2 workgroups" in text and "ticket_lock.comp: 3 workgroups" in text
    assert report["device"] and report["shapes"] == ["alone", "reverse"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--shapes", "sideways"], "unknown launch shape(s) sideways"),
        (["--occupy", "0"], "--occupy takes auto or a number from 1 to 65534"),
        (["--occupy", "x"], "--occupy takes auto"),
        (["--deadline", "5"], "a deadline needs a unit"),
        (["--backend", "cpu"], "kernels run on --backend wgpu only"),
        ([str(REPO / "litmus" / "paper" / "mutex.axb")], "not both"),
        (["--init", "nothing=1"], "no shared memory cell is called 'nothing'"),
    ],
)
def test_kernel_run_refuses_bad_options_with_exit_2(tmp_path, capsys, args, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(LITMUS / "tas_spinlock.comp"), *args, "-o", str(tmp_path / "r.json")])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def test_kernel_run_refuses_to_overwrite_its_results(tmp_path, capsys):
    (tmp_path / "r.json").write_text("{}")
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(LITMUS / "tas_spinlock.comp"), "-o", str(tmp_path / "r.json")])
    assert exit_info.value.code == 2 and "--force" in capsys.readouterr().err
    assert (tmp_path / "r.json").read_text() == "{}"


def test_no_check_runs_a_launch_too_large_to_check(tmp_path, capsys):
    out = tmp_path / "big.json"
    sizes = ["--buffer", "flags=100", "--buffer", "aggregates=100", "--buffer", "prefixes=100"]
    args = ["run", str(LITMUS / "lookback_dynamic.comp"), "--workgroups", "100", *sizes, "--iterations", "2"]
    with pytest.raises(SystemExit) as refused:
        main([*args, "-o", str(out)])
    assert refused.value.code == 2 and "outside 1..64" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--no-check", "--shapes", "alone,reverse", "-o", str(out)])
    assert exit_info.value.code == 0
    (kernel,) = json.loads(out.read_text())["kernels"]
    assert kernel["verdicts"] == {} and kernel["workgroups"] == 100
    for shape in ("alone", "reverse"):
        assert kernel["shapes"][shape]["cell"] == "P"
        assert kernel["shapes"][shape]["outputs"] == "not compared (--no-check)"
        assert kernel["shapes"][shape]["iterations"][0]["workgroups"] == {
            "returned_all": 100,
            "left": 0,
            "left_by_own_deadline": 0,
        }


@pytest.mark.parametrize("name", ["lookback_scan.comp", "lookback_fallback.comp", "hlsl_ticket_lock.hlsl"])
def test_optimized_kernels_with_loop_phis_give_the_same_bytes(engine, name):
    """spirv-opt -O puts OpPhis in loop headers (a header split by the pass
    keeps them); naga refuses some -O modules outright (tas_spinlock: "atomic
    upgrade error"), these three it takes."""
    path = LITMUS / name
    _, launch, _ = prepared(str(path), LaunchSettings())
    optimized = load_kernel(path.read_bytes(), path.name, kind_of(path) or "", optimized=True, origin=path.parent)
    assert any(i.opcode == "OpPhi" for i in optimized.module.instructions)
    done = instrument(optimized.module, optimized.entry.name)
    instrumented = replace(launch, binary=encode(without_line_info(done.module)), sites=done.sites)
    plain = replace(launch, binary=encode(without_line_info(optimized.module)), control_set=None)
    outputs = [
        engine.run_kernel(k, engine.kernel_pipeline(k), Shape("alone"), 2, 20000, 120.0).buffers
        for k in (plain, instrumented)
    ]
    assert outputs[0] == outputs[1] and outputs[0] is not None


def test_a_kernel_the_device_refuses_is_reported_and_the_others_run(tmp_path, capsys):
    """vulkan_mm_message_passing.comp: naga refuses the Vulkan memory model's
    device scope; a workgroup variable given --init cannot be set by a host.
    Neither stops the run."""
    out = tmp_path / "r.json"
    kernels = [str(LITMUS / n) for n in ("vulkan_mm_message_passing.comp", "tas_spinlock.comp")]
    with pytest.raises(SystemExit) as exit_info:
        main(["run", *kernels, "--iterations", "1", "--shapes", "alone", "-o", str(out)])
    assert exit_info.value.code == 0
    vulkan_mm, tas = json.loads(out.read_text())["kernels"]
    assert "VulkanMemoryModelDeviceScope" in vulkan_mm["refused"]
    assert tas["shapes"]["alone"]["cell"] == "P"
    assert capsys.readouterr().out.count("not run: ") == 1


@pytest.mark.parametrize("push, counter", [(None, 12), (5, 20)])
def test_spec_and_push_constants_and_the_local_size_reach_the_device(engine, push, counter):
    """spec_ticket_lock.comp, as its header launches it: 2 workgroups of
    --local-size 2, --spec ROUNDS=2 rounds of --push pc.increments=3 (or 5)
    increments under the lock: counter = 2 x 2 x increments, which only a
    device given all three computes (at the default local size 64 every
    iteration would count 64 invocations, ROUNDS 8 would give 48)."""
    path = LITMUS / "spec_ticket_lock.comp"
    given = LaunchSettings() if push is None else LaunchSettings(push=(("pc.increments", None, push),))
    loaded = load_kernel(path.read_bytes(), path.name, "glsl", given)
    launch = kernel_launch(loaded, path.name)
    assert launch.local_size == (2, 1, 1)
    assert [(b.name, b.kind) for b in launch.buffers][-1] == ("pc", "read-only")
    outcome = engine.run_kernel(launch, engine.kernel_pipeline(launch), Shape("alone"), 2, 20000, 120.0)
    assert all(it.finished(launch.invocations) for it in outcome.iterations)
    tickets, counted, _ = outcome.buffers
    assert struct.unpack("<2I", tickets) == (4, 4) and struct.unpack("<I", counted) == (counter,)


def test_dat3m_inputs_and_wgsl_kernels_run(tmp_path, capsys):
    """dat3m_message_passing.spvasm (its @Input and @Config lines launch it)
    and a WGSL kernel, read through naga, run and end as the checker says."""
    out = tmp_path / "r.json"
    kernels = [str(LITMUS / "dat3m_message_passing.spvasm"), str(REPO / "litmus" / "wgsl" / "message_passing.wgsl")]
    with pytest.raises(SystemExit) as exit_info:
        main(["run", *kernels, "--iterations", "2", "--shapes", "alone", "-o", str(out)])
    assert exit_info.value.code == 0
    dat3m, wgsl = json.loads(out.read_text())["kernels"]
    assert dat3m["workgroups"] == 2 and dat3m["local_size"] == [2, 1, 1]
    for kernel in (dat3m, wgsl):
        assert kernel["shapes"]["alone"]["cell"] == "P"
        assert kernel["shapes"]["alone"]["outputs"] == "a terminal state of the kernel"


def run_cli(tmp_path, kernels: list[str], *args: str) -> dict:
    out = tmp_path / "r.json"
    with pytest.raises(SystemExit) as exit_info:
        main(["run", *kernels, *args, "--iterations", "2", "-o", str(out), "--force"])
    assert exit_info.value.code == 0
    return json.loads(out.read_text())


def test_leave_break_runs_the_pages_module_and_no_occupiers_into_a_kernel_with_a_barrier(tmp_path):
    """--leave break: lookback_scan.comp (a barrier) has no occupiers' branch, so
    `occupied` is not run (launching occupiers into it ran them as kernel
    workgroups: outputs that were no terminal state); --push reaches the device."""
    report = run_cli(tmp_path, [str(LITMUS / "lookback_scan.comp")], "--leave", "break", "--shapes", "alone,occupied")
    (lookback,) = report["kernels"]
    assert list(lookback["shapes"]) == ["alone"] and report["leave"] == "break"
    assert lookback["shapes"]["alone"]["outputs"] == "a terminal state of the kernel"
    args = ("--leave", "break", "--push", "pc.increments=5", "--shapes", "alone,occupied")
    (spec,) = run_cli(tmp_path, [str(LITMUS / "spec_ticket_lock.comp")], *args)["kernels"]
    assert list(spec["shapes"]) == ["alone", "occupied"]
    assert spec["shapes"]["alone"]["outputs"] == "a terminal state of the kernel"


def test_the_hlsl_ticket_lock_ends_in_its_terminal_state_not_at_a_loop_cap(engine):
    """hlsl_spec_ticket_lock.hlsl (Slang's `switch 0` wrapper, gfx-rs/naga#1575):
    its 2 rounds end, every invocation returns within 2000 checks (a round
    loop naga never ended would use them all, or meet lavapipe's cut at
    65535), and the outputs are its terminal state: tickets (4, 4), counter
    2 rounds x 2 workgroups x 3 increments = 12."""
    launch, outcome = run(engine, LITMUS / "hlsl_spec_ticket_lock.hlsl", Shape("alone"), iterations=3, budget=2000)
    for it in outcome.iterations:
        assert it.finished(launch.invocations) and it.first_site is None
        assert [(w.done, w.left) for w in it.workgroups] == [(1, 0), (1, 0)]
    tickets, counted = outcome.buffers[:2]
    assert struct.unpack("<2I", tickets) == (4, 4) and struct.unpack("<I", counted) == (12,)
