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
from progress.back.spirv_edit import without_line_info
from progress.back.spirv_encode import encode
from progress.cli.inputs import display, read_bytes
from progress.cli.kernel import terminal_memories
from progress.cli.outputs import write_file
from progress.core.analyze import check_system, queries_for
from progress.core.registry import all_models
from progress.errors import InputError, UsageError
from progress.front.header import LaunchSettings
from progress.front.spirv.buffers import NotRunnable, buffer_plans
from progress.front.spirv.kernel import KernelSystem
from progress.front.spirv.load import LoadedKernel, kind_of, launch_system, load_kernel
from progress.front.spirv.toolchain import validation_errors
from progress.gpu import kernel_report
from progress.gpu.kernel_report import KernelResult
from progress.gpu.kernel_run import Iteration, KernelBuffer, KernelLaunch, Shape, ShapeOutcome
from progress.gpu.runner import BackendUnavailable

RECORDED_WORKGROUPS = 64
"""Launches of more workgroups record per iteration counts, not each workgroup's record."""
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
    path: str, given: LaunchSettings, check: bool = True
) -> tuple[LoadedKernel, KernelLaunch, KernelSystem | None]:
    """The kernel loaded, instrumented and validated, and its checker System
    (None without `check`: a launch too large to check still runs)."""
    name = display(path)
    loaded = load_kernel(read_bytes(path), name, kind_of(path) or "spv", given)
    launch = kernel_launch(loaded, name)
    return loaded, launch, launch_system(loaded, Path(name).stem, name) if check else None


def kernel_launch(loaded: LoadedKernel, name: str, leave: str = "return", occupiers: bool = True) -> KernelLaunch:
    """The loaded kernel instrumented (spirv-val checked) with its buffers, push constants included."""
    plans = buffer_plans(loaded, name)
    try:
        done = instrument(loaded.module, loaded.entry.name, leave=leave, occupiers=occupiers)
    except InstrumentError as error:
        raise InputError(f"{name}: the deadline instrumentation cannot take this kernel: {error}") from None
    complaint = validation_errors(done.binary)
    if complaint:
        raise InstrumentationBug(f"{name}: the instrumented kernel is not valid SPIR-V: {complaint.splitlines()[0]}")
    buffers = tuple(
        KernelBuffer(p.name, p.set, p.binding, p.kind, p.initial)
        if p.kind != "push"
        else KernelBuffer(p.name, done.descriptor_set, done.push_bindings[p.binding], "read-only", p.initial)
        for p in plans
    )
    return KernelLaunch(
        Path(name).name,
        encode(without_line_info(done.module)),
        loaded.entry.name,
        done.local_size,
        loaded.settings.workgroups or 1,
        buffers,
        done.descriptor_set,
        done.sites,
    )


def output_check(system: KernelSystem, launch: KernelLaunch, outputs: tuple[bytes, ...] | None) -> str:
    """Whether a finished iteration's buffers are a terminal memory state of the kernel (buffer cells only)."""
    if outputs is None:
        return "none finished"
    words = b"".join(outputs)
    values = [int.from_bytes(words[i : i + 4], "little") for i in range(0, len(words), 4)]
    names = [(name, at) for name, at in system.layout.names if at < system.layout.groups_at]
    device = tuple((name, values[at]) for name, at in names if at < len(values))
    kept = {name for name, _ in device}
    expected = {tuple((n, v & 0xFFFFFFFF) for n, v in memory if n in kept) for memory in _terminal(system)}
    if not expected:
        return "finished, but the checker has no state in which every invocation returned"
    return "a terminal state of the kernel" if device in expected else "NOT a terminal state of the kernel"


def _terminal(system: KernelSystem) -> frozenset:
    return terminal_memories(system, MAX_STATES, None)


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
) -> None:
    """The command (see the module docstring); `check=False`: no verdicts, no output comparison."""
    target = output.with_suffix(".json")
    if target.exists() and not force:
        raise UsageError(f"{target} exists: give --force to replace it")
    _occupiers(occupy, cpu=True)  # a bad --occupy is refused before anything is loaded
    kernels, records = [], []
    for path in paths:
        try:
            kernels.append(prepared(path, given, check))
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
        records.append(_record(result, loaded))
    meta = engine.metadata()
    meta.update(
        command="progress run " + " ".join(paths),
        started=datetime.now(UTC).isoformat(timespec="seconds"),
        elapsed_s=round(time.monotonic() - started, 1),
        iterations=iterations,
        deadline_s=deadline_s,
        shapes=list(shapes),
        checked=check,
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


def _record(result: KernelResult, loaded: LoadedKernel) -> dict:
    launch, n = result.launch, result.launch.invocations
    return {
        "kernel": launch.name,
        "workgroups": launch.workgroups,
        "local_size": list(launch.local_size),
        "buffers": [{"name": b.name, "set": b.set, "binding": b.binding, "kind": b.kind} for b in launch.buffers],
        "sites": [vars(s) for s in launch.sites],
        "verdicts": {kernel_report.label(v): v.terminates for v in result.verdicts},
        "table": kernel_report.rows(result),
        "violations": kernel_report.violations(result),
        "shapes": {
            o.shape.name: {
                "occupiers": o.shape.occupiers,
                "mapping": o.shape.mapping,
                "budget": o.budget,
                "cell": o.cell(n),
                "first_sites": {str(k): v for k, v in sorted(o.sites().items())},
                "outputs": result.outputs.get(o.shape.name),
                "iterations": [
                    {
                        "finished": it.finished(n),
                        "seconds": round(it.seconds, 6),
                        "occupier_timeouts": it.occupier_timeouts,
                        "workgroups": _workgroups(it, launch.workgroups),
                    }
                    for it in o.iterations
                ],
            }
            for o in result.outcomes
        },
        "settings": {"buffers": dict(loaded.settings.buffers), "init": [list(i) for i in loaded.settings.init]},
    }


def _workgroups(iteration: Iteration, count: int) -> list | dict:
    """Each workgroup's [returned, left, site, expired], or past RECORDED_WORKGROUPS their counts."""
    if count <= RECORDED_WORKGROUPS:
        return [[w.done, w.left, w.site, w.expired] for w in iteration.workgroups]
    return {
        "returned_all": sum(1 for w in iteration.workgroups if not w.left),
        "left": sum(1 for w in iteration.workgroups if w.left),
        "left_by_own_deadline": sum(1 for w in iteration.workgroups if w.left and not w.expired),
    }


def refuse_backend(backend: str) -> None:
    if backend not in ("wgpu", "cuda"):
        raise UsageError(f"kernels run on --backend wgpu only (a SPIR-V kernel has no {backend} path)")
