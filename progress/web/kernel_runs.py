"""The kernel run page's work (`/kernel/run`, `static/kernel.js`): a kernel
made ready for WebGPU (the plan) and a run the page made, joined with the
checker (the report), as `progress run KERNEL` joins them.

The plan: the kernel loaded as the playground loads it (`kernel_check`:
header and launch fields, toolchain, decoder, subset), instrumented by the
same deadline pass as `progress run` (`back/spirv_deadline.py`), leaving by
breaking (WGSL requires a workgroup barrier in uniform control flow, which a
return at a check would break) and with the occupiers' branch only in a
kernel without a barrier (the branch's return would be one too), checked by
spirv-val, then written as WGSL by naga (naga-wasm under Node, on the
server, as the playground reads WGSL: docs/web.md). Its buffers, initial
words and the control buffer's layout go with it; the page launches it.

The report: the page posts, per launch shape, each iteration's control
words and the kernel's buffers after the first iteration; they are read
here by `gpu.kernel_run.read_iteration`, the kernel is loaded and checked
again within the playground's bounds, and `gpu.kernel_report` joins them,
so the page shows exactly what `progress run` prints for such a run.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from progress.back import wgsl_source
from progress.back.codegen import initial_cells
from progress.back.spirv_checks import (
    BUDGET,
    CONTROL_WORDS,
    MAPPING,
    MAPPINGS,
    OCCUPIER_TIMEOUTS,
    OCCUPIERS,
    RECORD_WORDS,
    WORKGROUPS,
)
from progress.back.spirv_deadline import InstrumentError, instrument
from progress.back.spirv_naga import for_naga
from progress.core.analyze import check_system, queries_for
from progress.core.lts import terminal_memories
from progress.errors import Inconclusive, InputError
from progress.front.spirv.buffers import buffer_plans
from progress.front.spirv.kernel import KernelSystem
from progress.front.spirv.load import LoadedKernel, launch_system
from progress.front.spirv.toolchain import validation_errors
from progress.front.wgsl.naga import NagaRefusal, spirv_to_wgsl
from progress.gpu import kernel_report
from progress.gpu.kernel_report import KernelResult
from progress.gpu.kernel_run import (
    SHAPES,
    KernelBuffer,
    KernelLaunch,
    Shape,
    ShapeOutcome,
    instrumented_launch,
    read_iteration,
)
from progress.gpu.wgpu_backend import CALIBRATION
from progress.models.base import ProgressModel
from progress.web.kernel_check import SOURCES, TEST_NAME, LaunchFields, launch_text, load_text, tool_limits
from progress.web.limits import Limits, state_bound

MAX_ITERATIONS = 1000
MAX_OCCUPIERS = 65534
MAX_WORDS = 1 << 20
"""The most 32-bit words a posted run may hold in all (control words and outputs)."""
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,79}")
"""A kernel's name in a report (an example's file name; `kernel.comp` by default)."""


class InstrumentationBug(RuntimeError):
    """The pass wrote SPIR-V that spirv-val refuses (a bug in the project)."""


@dataclass(frozen=True)
class Prepared:
    """A page's kernel ready to launch: loaded, instrumented, in WGSL."""

    loaded: LoadedKernel
    launch: KernelLaunch
    wgsl: str
    shapes: tuple[str, ...]


def prepare(text: str, language: str, fields: LaunchFields, limits: Limits) -> Prepared:
    """The kernel in `text` as the page runs it (see the module's contract);
    an InputError says why it cannot run."""
    if language not in SOURCES:
        raise InputError(f"unknown kernel language {language!r}: {', '.join(SOURCES)}")
    loaded = load_text(text, language, fields, limits)
    name = SOURCES[language]
    barrier = any(i.opcode == "OpControlBarrier" for i in loaded.module.instructions)
    # what naga would mistranslate: rewritten, or refused
    module = for_naga(loaded.module, name, lambda b: validation_errors(b, tool_limits(limits)))
    try:
        done = instrument(module, loaded.entry.name, leave="break", occupiers=not barrier)
    except InstrumentError as error:
        raise InputError(f"{name}: the deadline instrumentation cannot take this kernel: {error}") from None
    complaint = validation_errors(done.binary, tool_limits(limits))
    if complaint:
        raise InstrumentationBug(f"{name}: the instrumented kernel is not valid SPIR-V: {complaint.splitlines()[0]}")
    plans = tuple(KernelBuffer(p.name, p.set, p.binding, p.kind, p.initial) for p in buffer_plans(loaded, name))
    launch = instrumented_launch(name, done, loaded.entry.name, loaded.settings.workgroups or 1, plans)
    try:
        wgsl = spirv_to_wgsl(launch.binary, tool_limits(limits))
    except NagaRefusal as refusal:
        said = refusal.formatted.strip().splitlines()
        reason = said[0] if said else refusal.kind
        raise InputError(f"{name}: naga cannot write this kernel as WGSL: {reason}") from None
    shapes = tuple(s for s in SHAPES if s != "occupied" or launch.occupiers)
    return Prepared(loaded, launch, wgsl, shapes)


def plan(prepared: Prepared) -> dict[str, Any]:
    """What the page needs to launch the kernel (the `/api/kernel/plan` answer)."""
    launch = prepared.launch
    system = launch_system(prepared.loaded, TEST_NAME, launch.name)
    return {
        "name": launch.name,
        "entry_point": launch.entry,
        "wgsl": prepared.wgsl,
        "local_size": list(launch.local_size),
        "invocations": launch.invocations,
        "workgroups": launch.workgroups,
        "launch": launch_text(system, prepared.loaded.settings),
        "notes": list(prepared.loaded.notes),
        "buffers": [
            {"name": b.name, "set": b.set, "binding": b.binding, "kind": b.kind, "words": _words(b.initial)}
            for b in launch.buffers
        ],
        "control": {
            "set": launch.control_set,
            "words": CONTROL_WORDS,
            "record_words": RECORD_WORDS,
            "budget": BUDGET,
            "occupiers": OCCUPIERS,
            "workgroups": WORKGROUPS,
            "mapping": MAPPING,
            "occupier_timeouts": OCCUPIER_TIMEOUTS,
            "mappings": list(MAPPINGS),
        },
        "shapes": list(prepared.shapes),
        "mappings": {s: Shape(s).mapping for s in prepared.shapes},
        "sites": [{"kind": s.kind, "function": s.function, "where": s.where, "text": s.text} for s in launch.sites],
        "calibration": {"wgsl": wgsl_source.shader(CALIBRATION), "cells": list(initial_cells(CALIBRATION))},
    }


def _words(data: bytes) -> list[int]:
    padded = data + b"\0" * (-len(data) % 4)
    return list(struct.unpack(f"<{len(padded) // 4}I", padded))


@dataclass(frozen=True)
class PostedRun:
    """A run the page made: the kernel (text, language, launch fields), the
    settings, each shape's posted records, and what the page says of itself."""

    text: str
    language: str
    fields: LaunchFields
    iterations: int
    deadline_s: float
    shapes: tuple[dict[str, Any], ...]
    about: dict[str, Any]
    name: str = ""


def parse_run(body: bytes) -> PostedRun:
    """A posted run, its shape checked (an InputError says what is wrong)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise InputError("the run is not JSON") from None
    if not isinstance(data, dict):
        raise InputError("the run is not a JSON object")
    text, language = data.get("text"), data.get("lang")
    fields = data.get("fields") or {}
    iterations, deadline = data.get("iterations"), data.get("deadline_s")
    shapes = data.get("shapes")
    if not isinstance(text, str) or not isinstance(language, str):
        raise InputError("the run needs the kernel's text and lang")
    if not isinstance(fields, dict) or any(
        k not in LaunchFields.NAMES or not isinstance(v, str) for k, v in fields.items()
    ):
        raise InputError(f"fields: an object of the launch fields ({', '.join(LaunchFields.NAMES)}) as text")
    if not isinstance(iterations, int) or not 1 <= iterations <= MAX_ITERATIONS:
        raise InputError(f"iterations: 1 to {MAX_ITERATIONS}")
    if not isinstance(deadline, int | float) or not 0.0001 <= deadline <= 10:
        raise InputError("deadline_s: 0.0001 to 10 seconds")
    if not isinstance(shapes, list) or not shapes or not all(isinstance(s, dict) for s in shapes):
        raise InputError("shapes: a list of each launch shape's records")
    about = {k: data[k] for k in ("adapter", "browser", "software") if k in data}
    if len(json.dumps(about)) > 2000:
        raise InputError("adapter, browser and software: at most 2,000 characters of JSON")
    name = data.get("name", "")
    if name and (not isinstance(name, str) or NAME.fullmatch(name) is None):
        raise InputError("name: a file name of letters, digits, '_', '.' and '-' (at most 80)")
    fields_given = LaunchFields(**fields)
    return PostedRun(text, language, fields_given, iterations, float(deadline), tuple(shapes), about, name)


def outcomes(posted: PostedRun, launch: KernelLaunch, offered: Sequence[str]) -> tuple[ShapeOutcome, ...]:
    """Each posted shape read back with the pass's own record layout."""
    size = CONTROL_WORDS + RECORD_WORDS * launch.workgroups
    sizes = [len(b.initial) + (-len(b.initial) % 4) for b in launch.buffers]
    found, names, total = [], set(), 0
    for shape in posted.shapes:
        name, occupiers, budget = shape.get("name"), shape.get("occupiers", 0), shape.get("budget")
        controls, seconds, outputs = shape.get("control"), shape.get("seconds"), shape.get("outputs")
        if name not in offered or name in names:
            raise InputError(f"shapes: {name!r} is not a launch shape this kernel can run here, or comes twice")
        names.add(name)
        if not isinstance(occupiers, int) or not 0 <= occupiers <= MAX_OCCUPIERS or (occupiers and name != "occupied"):
            raise InputError(f"{name}: occupiers 0 to {MAX_OCCUPIERS}, and only under occupied")
        if not isinstance(budget, int) or not 1 <= budget < 2**32:
            raise InputError(f"{name}: budget 1 to 2^32 - 1")
        if not isinstance(controls, list) or len(controls) != posted.iterations:
            raise InputError(f"{name}: one control buffer per iteration ({posted.iterations})")
        if not isinstance(seconds, list) or len(seconds) != posted.iterations:
            raise InputError(f"{name}: one time per iteration")
        total += size * len(controls)
        if total > MAX_WORDS:
            raise InputError(f"the run holds more than {MAX_WORDS} words")
        iterations = tuple(
            read_iteration(_packed(words, size, f"{name}: control"), launch.workgroups, _seconds(s))
            for words, s in zip(controls, seconds)
        )
        first = None
        if outputs is not None:
            if not isinstance(outputs, list) or len(outputs) != len(sizes):
                raise InputError(f"{name}: outputs, one list of words per buffer ({len(sizes)})")
            first = tuple(
                _packed(words, n // 4, f"{name}: outputs")[: len(b.initial)]
                for words, n, b in zip(outputs, sizes, launch.buffers)
            )
        if first is not None and not iterations[0].finished(launch.invocations):
            first = None  # outputs count only from a finished first iteration, as progress run keeps them
        found.append(ShapeOutcome(Shape(str(name), occupiers), iterations, first, budget))
    return tuple(found)


def _packed(words: object, count: int, what: str) -> bytes:
    if not isinstance(words, list) or len(words) != count:
        raise InputError(f"{what}: {count} words expected")
    if not all(isinstance(w, int) and 0 <= w < 2**32 for w in words):
        raise InputError(f"{what}: words are integers from 0 to 2^32 - 1")
    return struct.pack(f"<{count}I", *words)


def _seconds(value: object) -> float:
    if not isinstance(value, int | float) or not 0 <= value <= 3600:
        raise InputError("seconds: a number from 0 to 3600 per iteration")
    return float(value)


def report(posted: PostedRun, models: Sequence[ProgressModel], limits: Limits) -> dict[str, Any]:
    """The joined report of a posted run (the `/api/kernel/report` answer):
    the text `progress run` prints and its JSON record."""
    prepared = prepare(posted.text, posted.language, posted.fields, limits)
    launch = replace(prepared.launch, name=posted.name) if posted.name else prepared.launch
    found = outcomes(posted, launch, prepared.shapes)
    system = launch_system(prepared.loaded, TEST_NAME, launch.name)
    bound = state_bound(limits, len(system.groups), len(system.layout.initial))
    checked = check_system(system, queries_for(models), max_states=bound, time_limit=limits.time_limit_s)
    compared = {o.shape.name: _compared(system, o.buffers, bound, limits) for o in found}
    result = KernelResult(launch, checked.verdicts, found, compared)
    settings = prepared.loaded.settings
    record = kernel_report.record(result, settings.buffers, settings.init)
    return {
        "ok": True,
        "text": kernel_report.text(result),
        "record": record,
        "run": _run_meta(posted, record, launch),
    }


def _compared(system: KernelSystem, outputs: tuple[bytes, ...] | None, bound: int, limits: Limits) -> str:
    cells = [(name, at) for name, at in system.layout.names if at < system.layout.groups_at]
    try:
        terminal = terminal_memories(system, bound, limits.time_limit_s) if outputs is not None else frozenset()
    except Inconclusive:
        return "not compared (past the page's state or time bound)"
    return kernel_report.compare_outputs(cells, terminal, outputs)


def _run_meta(posted: PostedRun, record: dict[str, Any], launch: KernelLaunch) -> dict[str, Any]:
    """The run as `progress run` writes its JSON (one kernel), with the browser's facts."""
    adapter = posted.about.get("adapter") or {}
    words = " ".join(str(adapter.get(k, "")) for k in ("vendor", "architecture", "device") if adapter.get(k))
    occupiers = max((o.get("occupiers", 0) for o in posted.shapes), default=0)
    return {
        "backend": "webgpu",
        "device": words or "unknown adapter",
        "driver": str(posted.about.get("browser", "")),
        "LP_NUM_THREADS": "n/a",
        "software": bool(posted.about.get("software", False)),
        "adapter": adapter,
        "iterations": posted.iterations,
        "deadline_s": posted.deadline_s,
        "occupiers": occupiers,
        "shapes": [o["name"] for o in posted.shapes],
        "leave": "break",
        "kernels": [{**record, "kernel": Path(launch.name).name}],
    }
