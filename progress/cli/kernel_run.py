"""`progress run KERNEL...`: a kernel on a device, under launch shapes, joined with the checker.

Each kernel file is loaded as `progress check` loads it (header, launch
options, toolchain, decoder, subset), checked under every model, then
instrumented (`back/spirv_deadline.py`, validated by spirv-val: an invalid
result is a bug, exit 70) and run N iterations per launch shape on a wgpu
device. The outputs of the first finished iteration are compared with the
checker's terminal memory states. The text report goes to standard output,
everything (verdicts, per-iteration records, sites, metadata) to the JSON
file.
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import click

from progress.back.spirv_deadline import InstrumentError, instrument
from progress.back.spirv_naga import for_naga
from progress.cli.inputs import display, read_bytes
from progress.cli.outputs import write_file
from progress.core.analyze import check_system, queries_for
from progress.core.lts import terminal_memories
from progress.core.registry import all_models
from progress.errors import InputError, UsageError
from progress.front.header import LaunchSettings
from progress.front.spirv.buffers import NotRunnable, buffer_plans
from progress.front.spirv.kernel import KernelSystem
from progress.front.spirv.load import LoadedKernel, kind_of, launch_system, load_kernel
from progress.front.spirv.toolchain import validation_errors
from progress.gpu import kernel_report
from progress.gpu.kernel_report import KernelResult
from progress.gpu.kernel_run import KernelBuffer, KernelLaunch, Shape, ShapeOutcome, instrumented_launch
from progress.gpu.runner import BackendUnavailable

H200_SLOTS = 4224
"""Workgroups of one invocation resident at once on the H200 (32 per SM x 132 SMs; docs/gpu.md)."""
MAX_STATES = 2_000_000


class InstrumentationBug(RuntimeError):
    """The pass wrote SPIR-V that spirv-val refuses (exit 70: a bug in the project)."""


def is_kernel_run(paths: list[str]) -> bool:
    """Whether `progress run PATHS` runs kernels (every path a kernel file); mixing is a UsageError."""
    kinds = [kind_of(p) is not None for p in paths]
    if any(kinds) and not all(kinds):
        raise UsageError(
            "progress run takes either .axb tests or kernel files (.comp, .hlsl, .spvasm, .spv, .wgsl), not both"
        )
    return bool(paths) and all(kinds)


def prepared(
    path: str, given: LaunchSettings, check: bool = True, leave: str = "return"
) -> tuple[LoadedKernel, KernelLaunch, KernelSystem | None]:
    """The kernel loaded, instrumented and validated, and its checker System
    (None without `check`: a launch too large to check still runs). `leave`:
    "break" makes the module the WebGPU page runs (no occupiers in a kernel
    with a barrier, as there)."""
    name = display(path)
    loaded = load_kernel(read_bytes(path), name, kind_of(path) or "spv", given, origin=Path(path).parent)
    barrier = any(i.opcode == "OpControlBarrier" for i in loaded.module.instructions)
    launch = kernel_launch(loaded, name, leave, occupiers=leave == "return" or not barrier)
    return loaded, launch, launch_system(loaded, Path(name).stem, name) if check else None


def kernel_launch(loaded: LoadedKernel, name: str, leave: str = "return", occupiers: bool = True) -> KernelLaunch:
    """The loaded kernel instrumented (spirv-val checked) with its buffers, push constants included."""
    plans = buffer_plans(loaded, name)
    module = for_naga(loaded.module, name, validation_errors)  # a branch naga would mistranslate: rewritten, or exit 2
    try:
        done = instrument(module, loaded.entry.name, leave=leave, occupiers=occupiers)
    except InstrumentError as error:
        raise InputError(f"{name}: the deadline instrumentation cannot take this kernel: {error}") from None
    complaint = validation_errors(done.binary)
    if complaint:
        raise InstrumentationBug(f"{name}: the instrumented kernel is not valid SPIR-V: {complaint.splitlines()[0]}")
    buffers = tuple(KernelBuffer(p.name, p.set, p.binding, p.kind, p.initial) for p in plans)
    return instrumented_launch(Path(name).name, done, loaded.entry.name, loaded.settings.workgroups or 1, buffers)


def output_check(system: KernelSystem, launch: KernelLaunch, outputs: tuple[bytes, ...] | None) -> str:
    """Whether a finished iteration's buffers are a terminal memory state of the kernel (buffer cells only)."""
    if outputs is None:
        return "none finished"
    cells = [(name, at) for name, at in system.layout.names if at < system.layout.groups_at]
    return kernel_report.compare_outputs(cells, terminal_memories(system, MAX_STATES, None), outputs)


def run_kernels(
    paths: list[str],
    given: LaunchSettings,
    shapes: tuple[str, ...],
    iterations: int,
    deadline_s: float,
    occupy: str,
    adapter: str | None,
    output: Path,
    force: bool,
    check: bool = True,
    leave: str = "return",
) -> None:
    """The command (see the module docstring); `check=False`: no verdicts, no output comparison."""
    target = output.with_suffix(".json")
    if target.exists() and not force:
        raise UsageError(f"{target} exists: give --force to replace it")
    _occupiers(occupy, cpu=True)  # a bad --occupy is refused before anything is loaded
    kernels, records = [], []
    for path in paths:
        try:
            kernels.append(prepared(path, given, check, leave))
        except NotRunnable as refusal:  # said, and the other kernels run
            click.echo(f"not run: {refusal}")
            records.append({"kernel": Path(path).name, "refused": str(refusal)})
    from progress.gpu.wgpu_kernel import WgpuKernel

    engine = WgpuKernel(adapter)
    occupiers = _occupiers(occupy, engine.cpu)
    started = time.monotonic()
    results = []
    for loaded, launch, system in kernels:
        verdicts = (
            () if system is None else check_system(system, queries_for(all_models()), max_states=MAX_STATES).verdicts
        )
        try:
            pipeline = engine.kernel_pipeline(launch)
        except BackendUnavailable as refusal:  # the device's compiler refuses this kernel: say so, run the next
            click.echo(f"{launch.name}: not run: {refusal}")
            records.append({"kernel": launch.name, "refused": str(refusal)})
            continue
        outcomes: list[ShapeOutcome] = []
        for name in shapes:
            if name == "occupied" and not launch.occupiers:
                continue  # leaving by breaking: a kernel with a barrier has no occupiers' branch
            shape = Shape(name, occupiers if name == "occupied" else 0)
            total = shape.occupiers + launch.workgroups
            budget = engine.kernel_budget(total, deadline_s)
            guard = iterations * (10 * deadline_s + 1.0) + 30.0
            outcomes.append(engine.run_kernel(launch, pipeline, shape, iterations, budget, guard))
        outputs = {
            o.shape.name: "not compared (--no-check)" if system is None else output_check(system, launch, o.buffers)
            for o in outcomes
        }
        result = KernelResult(launch, verdicts, tuple(outcomes), outputs)
        click.echo(kernel_report.text(result))
        results.append(result)
        records.append(kernel_report.record(result, loaded.settings.buffers, loaded.settings.init))
    meta = engine.metadata()
    meta.update(
        command="progress run " + " ".join(paths),
        started=datetime.now(UTC).isoformat(timespec="seconds"),
        elapsed_s=round(time.monotonic() - started, 1),
        iterations=iterations,
        deadline_s=deadline_s,
        shapes=list(shapes),
        checked=check,
        leave=leave,
        occupiers=occupiers,
        LP_NUM_THREADS=os.environ.get("LP_NUM_THREADS", "unset"),
        kernels=records,
    )
    write_file(target, json.dumps(meta, indent=1, sort_keys=True) + "\n")
    click.echo(f"{len(results)} kernel(s); results in {target}", err=True)


def _occupiers(text: str, cpu: bool) -> int:
    if text == "auto":
        threads = int(os.environ.get("LP_NUM_THREADS") or os.cpu_count() or 1)
        return max(threads - 1, 1) if cpu else H200_SLOTS - 1
    if not text.isdigit() or not 1 <= int(text) <= 65534:
        raise UsageError(f"--occupy takes auto or a number from 1 to 65534, not {text!r}")
    return int(text)


def refuse_backend(backend: str) -> None:
    if backend not in ("wgpu", "cuda"):
        raise UsageError(f"kernels run on --backend wgpu only (a SPIR-V kernel has no {backend} path)")
