"""An instrumented kernel on a wgpu device (Vulkan through wgpu-native).

A `WgpuBackend` (adapter choice, the host guard, the calibrated spin rate
and loop cap; wgpu itself stays in `wgpu_backend`) that takes SPIR-V. wgpu
reads SPIR-V with naga's SPIR-V front end and writes it out again for the
driver (wgpu-native 29 has no pass-through: its `PassthroughShaders`
feature is commented out of `wgpu.h`), so what the driver runs is naga's
translation: naga refuses OpLine among the types (the binary goes with its
line information stripped), has no `OpReadClockKHR` (so the deadline is an
iteration budget), and upgrades every scalar that an atomic instruction
touches to an atomic type. The bind-group layouts are explicit, one per
descriptor set, from the kernel's buffers and the control buffer.

`run(launch, shape, iterations, budget)`: for each iteration the kernel's
buffers and the control buffer are reset from their initial bytes, then
the dispatch (x: occupiers + W, y = z = 1); one submission for all
iterations, one read back, within the host guard (`DeviceHang`, exit 3).
"""

from __future__ import annotations

import time

from progress.back.spirv_checks import CONTROL_WORDS, RECORD_WORDS
from progress.gpu.kernel_run import Iteration, KernelLaunch, Shape, ShapeOutcome, control_words, read_iteration
from progress.gpu.runner import BackendUnavailable
from progress.gpu.wgpu_backend import WgpuBackend

BUDGET_MARGIN = 16
"""Checks kept below the device's loop cap (lavapipe: its loops end after 65535 iterations in all)."""


class WgpuKernel(WgpuBackend):
    """See the module docstring."""

    def kernel_pipeline(self, launch: KernelLaunch):
        """The compute pipeline of `launch` (naga's refusals raise BackendUnavailable, naming the kernel)."""
        device, wgpu = self.device, self.wgpu
        stage = wgpu.ShaderStage.COMPUTE
        kinds = {
            "storage": wgpu.BufferBindingType.storage,
            "read-only": wgpu.BufferBindingType.read_only_storage,
            "uniform": wgpu.BufferBindingType.uniform,
        }
        sets: dict[int, list[dict]] = (
            {} if launch.control_set is None else {launch.control_set: [_entry(0, stage, kinds["storage"])]}
        )
        for buffer in launch.buffers:
            sets.setdefault(buffer.set, []).append(_entry(buffer.binding, stage, kinds[buffer.kind]))
        if sets and max(sets) >= int(self.limits.get("max-bind-groups", 4)):
            raise BackendUnavailable(f"{launch.name}: descriptor set {max(sets)} is beyond this device's bind groups")
        layouts = [
            device.create_bind_group_layout(entries=sorted(sets.get(n, []), key=lambda e: e["binding"]))
            for n in range(max(sets) + 1)
        ]
        try:
            module = device.create_shader_module(label=launch.name, code=launch.binary)
            pipeline = device.create_compute_pipeline(
                label=launch.name,
                layout=device.create_pipeline_layout(bind_group_layouts=layouts),
                compute={"module": module, "entry_point": launch.entry},
            )
        except Exception as error:  # wgpu raises its own GPUValidationError and friends
            raise BackendUnavailable(f"{launch.name}: wgpu (naga) refuses the kernel: {_one_line(error)}") from None
        return pipeline, layouts

    def kernel_budget(self, workgroups: int, deadline_s: float) -> int:
        """Checks an invocation may pass in a launch of `workgroups`: the
        calibrated spin rate x deadline, below the loop cap less a margin."""
        cap = self.budget_limit()
        return max(1, min(cap - BUDGET_MARGIN if cap < 2**31 else cap, round(self.rate(workgroups) * deadline_s)))

    def run_kernel(
        self, launch: KernelLaunch, pipeline, shape: Shape, iterations: int, budget: int, guard_s: float
    ) -> ShapeOutcome:
        pipeline, layouts = pipeline
        device, usage = self.device, self.wgpu.BufferUsage
        total = shape.occupiers + launch.workgroups
        if total > self.max_per_dimension:
            raise BackendUnavailable(f"{total} workgroups exceed this device's {self.max_per_dimension} along x")
        buffers = [
            (b, device.create_buffer_with_data(data=_padded(b.initial), usage=usage.COPY_SRC)) for b in launch.buffers
        ]
        plain = usage.STORAGE | usage.COPY_DST | usage.COPY_SRC
        live = [
            device.create_buffer(
                size=len(_padded(b.initial)), usage=plain | usage.UNIFORM if b.kind == "uniform" else plain
            )
            for b, _ in buffers
        ]
        control_size = 4 * (CONTROL_WORDS + RECORD_WORDS * launch.workgroups)
        pristine = device.create_buffer_with_data(data=control_words(launch, shape, budget), usage=usage.COPY_SRC)
        stride = -(-control_size // self.stride) * self.stride
        controls = device.create_buffer(size=stride * iterations, usage=usage.STORAGE | usage.COPY_DST | usage.COPY_SRC)
        outputs = [
            device.create_buffer(size=len(_padded(b.initial)), usage=usage.COPY_DST | usage.COPY_SRC)
            for b, _ in buffers
        ]
        encoder = device.create_command_encoder()
        start = time.perf_counter()
        for it in range(iterations):
            for (b, source), target in zip(buffers, live):
                encoder.copy_buffer_to_buffer(source, 0, target, 0, len(_padded(b.initial)))
            encoder.copy_buffer_to_buffer(pristine, 0, controls, it * stride, control_size)
            groups = self._groups(launch, layouts, live, controls, it * stride, control_size)
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(pipeline)
            for n, group in enumerate(groups):
                compute.set_bind_group(n, group)
            compute.dispatch_workgroups(total, 1, 1)
            compute.end()
            if it == 0:
                for (b, _), source, target in zip(buffers, live, outputs):
                    encoder.copy_buffer_to_buffer(source, 0, target, 0, len(_padded(b.initial)))
        device.queue.submit([encoder.finish()])
        raw = self._wait(controls, guard_s)
        seconds = (time.perf_counter() - start) / iterations
        records = tuple(
            read_iteration(raw[it * stride : it * stride + control_size], launch.workgroups, seconds)
            for it in range(iterations)
        )
        first = self._first_output(launch, records, outputs, guard_s, launch.control_set is None)
        return ShapeOutcome(shape, records, first, budget)

    def _groups(self, launch: KernelLaunch, layouts, live, controls, offset: int, size: int) -> list:
        entries: dict[int, list[dict]] = (
            {} if launch.control_set is None else {launch.control_set: [_bound(0, controls, offset, size)]}
        )
        for buffer, target in zip(launch.buffers, live):
            entries.setdefault(buffer.set, []).append(_bound(buffer.binding, target, 0, len(_padded(buffer.initial))))
        return [
            self.device.create_bind_group(layout=layout, entries=sorted(entries.get(n, []), key=lambda e: e["binding"]))
            for n, layout in enumerate(layouts)
        ]

    def _first_output(self, launch: KernelLaunch, records: tuple[Iteration, ...], outputs, guard_s: float, plain: bool):
        """The kernel buffers after the first iteration, if it finished (a
        kernel without instrumentation: always)."""
        if not plain and (not records or not records[0].finished(launch.invocations)):
            return None
        return tuple(self._wait(buffer, guard_s)[: len(b.initial)] for b, buffer in zip(launch.buffers, outputs))


def _entry(binding: int, stage, kind) -> dict:
    return {"binding": binding, "visibility": stage, "buffer": {"type": kind}}


def _bound(binding: int, buffer, offset: int, size: int) -> dict:
    return {"binding": binding, "resource": {"buffer": buffer, "offset": offset, "size": size}}


def _padded(data: bytes) -> bytes:
    """At least 4 bytes, a multiple of 4 (wgpu copies whole words)."""
    return data + b"\0" * (-len(data) % 4) if data else b"\0" * 4


def _one_line(error: Exception) -> str:
    return " | ".join(line.strip() for line in str(error).splitlines() if line.strip())
