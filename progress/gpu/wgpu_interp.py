"""The WGSL interpreter's backend (`--backend wgpu --codegen interp`): packs of tests on one pipeline.

A `WgpuBackend` (adapter choice, bind-group layout, calibration, host guard:
wgpu itself stays in `wgpu_backend`) whose `prepare` builds the one
interpreter pipeline (`back/interp_wgsl.py`) and whose `load`/`launch` run
packs (`gpu/pack.py`), the `PackedBackend` protocol of `gpu/packed.py`.
A launch's budget is `rate(W) x deadline` loop turns, W = N * M the
workgroups of one test's launch, from the per-test shaders' calibration (one
spinning thread per workgroup, one instruction a turn: the rate
`--codegen per-test` uses). Where the implementation caps loops (lavapipe),
the budget leaves room for the turns a thread takes after spending it.
On a CPU adapter every pack is laid out `concat` (`pack.CPU_LAYOUTS`): each
test then lies in one lavapipe thread's chunk of the dispatch.
"""

from __future__ import annotations

import struct
import time

import numpy as np

from progress.back import interp_wgsl
from progress.core.program import Program
from progress.gpu.heuristics import CODES
from progress.gpu.pack import CPU_LAYOUTS, LAYOUT_CODES, LAYOUTS, Buffers, Pack
from progress.gpu.runner import BackendUnavailable
from progress.gpu.wgpu_backend import WgpuBackend, grid

PARAMS = struct.Struct("<16I")
GRACE = 8
"""Backward jumps a thread takes before its budget counts (as `CudaInterp.grace_spins`)."""


class WgpuInterp(WgpuBackend):
    """See the module docstring."""

    pack_workgroups = 1 << 20

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.launch_budgets: dict[int, set[int]] = {}

    @property
    def layouts(self) -> dict[str, str]:
        """Each heuristic's pack layout here (`run_packed` reads it)."""
        return CPU_LAYOUTS if self.cpu else LAYOUTS

    def prepare(self, programs: list[Program], progress=None) -> None:
        start = time.perf_counter()
        self.interp = self.pipeline(interp_wgsl.shader(), "interpreter")
        self._warm_up([self.interp])
        self.compile_seconds = time.perf_counter() - start
        if progress is not None:
            progress(len(programs))

    def _warm_up(self, pipelines: list) -> None:
        """Dispatch the interpreter once with no workgroup to run (lavapipe compiles at the first dispatch)."""
        self._dispatch_empty(pipelines, PARAMS.pack(*([1] * 5), 0, *([1] * 10)), {})

    def load(self, pack: Pack, buffers: Buffers) -> dict:
        """The pack's buffers on the device (BackendUnavailable past its limits)."""
        usage = self.wgpu.BufferUsage
        try:
            shape = grid(pack.workgroups, self.max_per_dimension)
        except ValueError as error:
            raise BackendUnavailable(str(error)) from None
        code = buffers.code.astype(np.uint32)
        parts = [code, buffers.starts, buffers.lengths, buffers.cells, buffers.bases, np.ones(pack.tests)]
        offsets = np.cumsum([0] + [len(p) for p in parts])
        tables = np.concatenate([p.astype(np.uint32) for p in parts])
        limit = int(self.limits["max-storage-buffer-binding-size"])
        if 4 * max(len(buffers.memory), len(tables)) > limit or buffers.bases.max() >= 2**32:
            raise BackendUnavailable(
                f"a pack of {pack.tests} tests exceeds this device's storage binding ({limit} bytes)"
            )
        device = self.device
        return {
            "pack": pack,
            "shape": shape,
            "offsets": [int(o) for o in offsets],
            "longest": int(buffers.lengths.max()),
            "memory_bytes": 4 * len(buffers.memory),
            "pristine": device.create_buffer_with_data(data=buffers.memory.tobytes(), usage=usage.COPY_SRC),
            "memory": device.create_buffer(size=4 * len(buffers.memory), usage=usage.STORAGE | usage.COPY_DST),
            "failed": device.create_buffer(size=4 * pack.tests * pack.instances, usage=usage.STORAGE | usage.COPY_DST),
            "tables": tables,
        }

    def launch(self, loaded: dict, iterations: int, deadline_s: float, active, trace=None) -> list[list[int]]:
        """Failed instances [iteration][test], every launch in one submission."""
        device, usage = self.device, self.wgpu.BufferUsage
        pack: Pack = loaded["pack"]
        offsets = loaded["offsets"]
        tables = loaded["tables"].copy()
        tables[offsets[5] : offsets[6]] = np.array(active, dtype=np.uint32)
        table_buffer = device.create_buffer_with_data(data=tables.tobytes(), usage=usage.STORAGE)
        budget = self.budget(pack.launch.workgroups, deadline_s)
        if self.max_budget is not None and self.max_budget < 2**32 - 2:
            # past the budget a thread turns at most (GRACE + 1) * (longest + 1) more times
            budget = max(1, min(budget, self.max_budget - (GRACE + 1) * (loaded["longest"] + 1)))
        self.launch_budgets.setdefault(pack.launch.workgroups, set()).add(budget)
        shape = loaded["shape"]
        values = (CODES[pack.heuristic], LAYOUT_CODES[pack.layout], pack.tests, pack.threads, pack.instances)
        params = device.create_buffer_with_data(
            data=PARAMS.pack(*values, pack.workgroups, shape.width, budget, GRACE, *offsets[1:6], 0, 0),
            usage=usage.UNIFORM,
        )
        state_size = 4 * (2 * pack.tests + 1)
        stride = -(-state_size // self.stride) * self.stride
        state = device.create_buffer(size=stride * iterations, usage=usage.STORAGE | usage.COPY_SRC)
        encoder = device.create_command_encoder()
        for it in range(iterations):
            group = device.create_bind_group(
                layout=self.layout[1],
                entries=[
                    {"binding": 0, "resource": {"buffer": loaded["memory"]}},
                    {"binding": 1, "resource": {"buffer": loaded["failed"]}},
                    {"binding": 2, "resource": {"buffer": state, "offset": it * stride, "size": state_size}},
                    {"binding": 3, "resource": {"buffer": params}},
                    {"binding": 4, "resource": {"buffer": table_buffer}},
                ],
            )
            encoder.copy_buffer_to_buffer(loaded["pristine"], 0, loaded["memory"], 0, loaded["memory_bytes"])
            encoder.clear_buffer(loaded["failed"])
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(self.interp)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(shape.width, shape.height, 1)
            compute.end()
        device.queue.submit([encoder.finish()])
        raw = self._wait(state, iterations * (10 * deadline_s + 1.0) + self.guard_margin_s)
        rows = [
            np.frombuffer(raw, dtype=np.uint32, count=2 * pack.tests + 1, offset=it * stride)
            for it in range(iterations)
        ]
        self.cut_threads += sum(int(row[-1]) for row in rows)
        return [[int(c) for c in row[0 : 2 * pack.tests : 2]] for row in rows]

    def metadata(self) -> dict:
        meta = super().metadata()
        meta["workgroup"] = "one invocation (@workgroup_size(1)) of the interpreter shader"
        meta["grace_spins"] = GRACE
        meta["cut_threads"] = self.cut_threads
        meta["calibration"]["interp_budgets"] = {
            str(w): sorted(budgets) for w, budgets in sorted(self.launch_budgets.items())
        }
        return meta
