"""The WebGPU backend: the only module that imports wgpu (wgpu-native's Python bindings).

It runs each test's WGSL shader (`wgsl_source`) through Vulkan, Metal or
D3D12, whichever the adapter speaks: the same launches as the CUDA backend,
one invocation per workgroup.

Adapters: WebGPU's primary backends only (Vulkan, Metal, D3D12; OpenGL's
compute support is partial). `adapter=None` asks for the high-performance
adapter; a name picks the adapter whose description ("device (backend,
type)") contains every word of it, case-insensitively, a non-CPU one first.
No adapter at all is `BackendUnavailable` (exit 2) naming what to install.

Launches: `run` records, in one command buffer, for each iteration: a copy
that resets every instance's memory, a clear of the `failed` flags and the
dispatch, each iteration with its own `{count, expired, cut}` cell; then it
submits once and reads the counts back, waiting at most
`iterations * (10 * deadline + 1 s) + margin` seconds (the host guard, past
which it raises `DeviceHang`; a dispatch cannot be cancelled). W workgroups
go along x up to the device's `maxComputeWorkgroupsPerDimension`; beyond it
they are spread over x and y (one launch, ids past W return at once).

Time-outs: WGSL has no clock, so a thread's backward jumps are charged
against a budget (`wgsl_source`). The budget for a launch of W workgroups is
`rate(W) * deadline`, where rate(W) is the measured spin rate: backward jumps
per second of the first thread to spend its budget, in a launch of W
workgroups that all spin (a one-thread test that waits forever, each
instance on its own cell), as the time difference between budgets K and 4K
(launch overhead cancels). Each W a run needs is calibrated once, in
`prepare`, and recorded in the metadata. Where the implementation cuts loops
short (lavapipe: 65535 iterations per invocation), the largest budget a thread
can spend uncut is bisected once and no budget exceeds it.

`prepare` also dispatches every pipeline once with nothing to run, so that a
driver that compiles at the first dispatch (lavapipe) does it there.

Lanes (`scope="lane"`, `progress run --scope lane`): each test's threads are
the lanes of one subgroup of one workgroup, as the paper's intra-warp runs
and the CUDA backend's lane kernels do. The device is opened with the
`subgroup` feature (an adapter without it is `BackendUnavailable`); the
subgroup size S is what a probe shader reads from `subgroup_size` (wgpu-py's
adapter info does not carry it); every pipeline has `@workgroup_size(S)` and
lays instances out as `heuristics.lane_slot(g, b, l, S)` says
(`wgsl_source.lane_shader`); a launch in which a workgroup reported
`num_subgroups` other than 1 is `BackendUnavailable` (its lanes were not one
subgroup). Spin rates are calibrated per block count, with every lane of
every block spinning.
"""

from __future__ import annotations

import os
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from progress.back import wgsl_source
from progress.back.codegen import initial_cells
from progress.core.program import Instr, Program
from progress.gpu.heuristics import (
    CODES,
    MAX_LAUNCH,
    MAX_WORKGROUPS,
    Geometry,
    auto_instances,
    geometry,
    lane_blocks,
    lane_instances,
)
from progress.gpu.runner import BackendUnavailable, DeviceHang, Settings, instances_for

INSTALL = (
    "install a Vulkan driver (Debian/Ubuntu: apt-get install mesa-vulkan-drivers libvulkan1 gives "
    "lavapipe, a software Vulkan; or your GPU vendor's driver), or run on macOS (Metal) or Windows (D3D12)"
)
CPU_WORKGROUPS = 64
"""The workgroup budget that `auto` divides among instances on a CPU adapter (lavapipe)."""
MAX_BUDGET = 2**32 - 2
CALIBRATION = Program("calibration: spin on an own cell forever", ((Instr("x", 0, 0, False, 0),),))
"""One thread that waits forever for x to leave 0: every workgroup spins until its budget runs out."""
PARAMS = struct.Struct("<6I")
STATE = struct.Struct("<3I")
LANE_STATE = struct.Struct("<4I")
"""{count, expired, cut, split} of a lane-scope launch (`wgsl_source.LANE_STATE`)."""
SUBGROUP_PROBE = """
@group(0) @binding(0) var<storage, read_write> sizes: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32, @builtin(subgroup_size) size: u32) {
    sizes[i] = size;
}
"""
"""Each of 64 invocations writes the subgroup size it runs in."""
PROBE_BUDGET = 2**20
"""A budget that a device that cuts loops short (lavapipe) cannot spend."""


def _wgpu():
    try:
        import wgpu
        from wgpu.backends.wgpu_native import extras
    except ImportError as error:
        raise BackendUnavailable(
            f"the wgpu backend needs the wgpu package (pip install 'progress-litmus[wgpu]'): {error}"
        ) from None
    try:
        extras.set_instance_extras(backends=["Primary"])
    except Exception:  # the instance exists already (a second backend in one process)
        pass
    return wgpu


def describe(adapter) -> str:
    """An adapter as `--adapter` matches it: "device (backend, type)"."""
    info = adapter.info
    return f"{info.get('device', '?')} ({info.get('backend_type', '?')}, {info.get('adapter_type', '?')})"


def select_adapter(wgpu, name: str | None):
    """The adapter `name` picks (see the module docstring); BackendUnavailable if none."""
    if name is None:
        adapter = None
        try:
            adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
        except Exception:
            adapter = None
        if adapter is None:
            raise BackendUnavailable(f"the wgpu backend found no GPU adapter (Vulkan, Metal or D3D12): {INSTALL}")
        return adapter
    adapters = list(wgpu.gpu.enumerate_adapters_sync())
    if not adapters:
        raise BackendUnavailable(f"the wgpu backend found no GPU adapter (Vulkan, Metal or D3D12): {INSTALL}")
    words = name.lower().split()
    chosen = [a for a in adapters if all(word in describe(a).lower() for word in words)]
    if not chosen:
        names = "; ".join(describe(a) for a in adapters)
        raise BackendUnavailable(f"no wgpu adapter matches --adapter {name!r}; adapters here: {names}")
    chosen.sort(key=lambda a: a.info.get("adapter_type") == "CPU")
    return chosen[0]


@dataclass(frozen=True)
class Grid:
    """A dispatch of `workgroups` workgroups as width x height (w = y * width + x)."""

    workgroups: int
    width: int
    height: int


def grid(workgroups: int, max_per_dimension: int) -> Grid:
    """Along x if it fits, else spread over x and y; ValueError past max^2."""
    width = min(workgroups, max_per_dimension)
    height = -(-workgroups // width)
    if height > max_per_dimension:
        raise ValueError(
            f"{workgroups} workgroups exceed this device's dispatch grid "
            f"({max_per_dimension} x {max_per_dimension}); use fewer --instances"
        )
    return Grid(workgroups, width, height)


class WgpuBackend:
    """Runs tests as WGSL compute shaders; see the module docstring."""

    name = "wgpu"

    def __init__(
        self,
        adapter: str | None = None,
        settings: Settings | None = None,
        guard_margin_s: float = 30.0,
        calibration_target_s: float = 0.02,
        scope: str = "workgroup",
    ):
        """`scope` "lane" runs a test's threads as the lanes of one subgroup
        (see the module docstring)."""
        self.wgpu = _wgpu()
        self.adapter = select_adapter(self.wgpu, adapter)
        self.scope = scope
        features = []
        if scope == "lane":
            if "subgroup" not in self.adapter.features:
                raise BackendUnavailable(
                    f"--scope lane: {describe(self.adapter)} has no 'subgroup' feature, so its subgroup size "
                    "cannot be read and a workgroup cannot be checked to be one subgroup"
                )
            features = ["subgroup"]
        try:
            self.device = self.adapter.request_device_sync(label="progress", required_features=features)
        except Exception as error:
            raise BackendUnavailable(f"wgpu could not open {describe(self.adapter)}: {error}") from None
        self.settings = settings
        self.guard_margin_s = guard_margin_s
        self.calibration_target_s = calibration_target_s
        self.limits = dict(self.device.limits)
        self.max_per_dimension = int(self.limits["max-compute-workgroups-per-dimension"])
        self.max_workgroups = min(MAX_LAUNCH, self.max_per_dimension**2)
        self.stride = max(16, int(self.limits["min-storage-buffer-offset-alignment"]))
        self.cpu = self.adapter.info.get("adapter_type") == "CPU"
        self.layout = self._layout()
        self.programs: list[Program] = []
        self.pipelines: list = []
        self.compile_seconds = 0.0
        self.rates: dict[int, float] = {}
        self.calibration_seconds = 0.0
        self.max_budget: int | None = None
        self.cut_threads = 0
        self._calibration_pipeline = None
        self.lanes = self._subgroup_size() if scope == "lane" else 1
        """Lanes of one subgroup (the lane pipelines' workgroup size); 1 at the workgroup scope."""
        self.state = LANE_STATE if scope == "lane" else STATE

    # -- setup -------------------------------------------------------------

    def _layout(self):
        usage = self.wgpu.ShaderStage.COMPUTE
        storage = {"type": self.wgpu.BufferBindingType.storage}
        entries = [{"binding": b, "visibility": usage, "buffer": storage} for b in (0, 1, 2, 4)]
        entries.append({"binding": 3, "visibility": usage, "buffer": {"type": self.wgpu.BufferBindingType.uniform}})
        group = self.device.create_bind_group_layout(entries=sorted(entries, key=lambda e: e["binding"]))
        return self.device.create_pipeline_layout(bind_group_layouts=[group]), group

    def _subgroup_size(self) -> int:
        """The smallest `subgroup_size` any invocation of a 64-invocation
        probe workgroup reports (BackendUnavailable if the probe fails)."""
        usage = self.wgpu.BufferUsage
        try:
            module = self.device.create_shader_module(label="subgroup probe", code=SUBGROUP_PROBE)
            probe = self.device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": "main"}
            )
            sizes = self.device.create_buffer(size=4 * 64, usage=usage.STORAGE | usage.COPY_SRC)
            group = self.device.create_bind_group(
                layout=probe.get_bind_group_layout(0), entries=[{"binding": 0, "resource": {"buffer": sizes}}]
            )
            encoder = self.device.create_command_encoder()
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(probe)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(1, 1, 1)
            compute.end()
            self.device.queue.submit([encoder.finish()])
            found = min(struct.unpack("<64I", self._wait(sizes, self.guard_margin_s)))
        except (BackendUnavailable, DeviceHang):
            raise
        except Exception as error:
            raise BackendUnavailable(
                f"--scope lane: the subgroup-size probe failed on {describe(self.adapter)}: {error}"
            ) from None
        if found < 1:
            raise BackendUnavailable(f"--scope lane: {describe(self.adapter)} reports a subgroup size of {found}")
        return found

    def shader(self, program: Program) -> str:
        """The program's WGSL at this backend's scope."""
        return wgsl_source.lane_shader(program, self.lanes) if self.scope == "lane" else wgsl_source.shader(program)

    def dispatched(self, launch: Geometry) -> int:
        """Workgroups one launch dispatches: N x M, or the blocks of `lane_blocks` at the lane scope."""
        return lane_blocks(launch, self.lanes)[0] if self.scope == "lane" else launch.workgroups

    def pipeline(self, source: str, label: str = ""):
        """A compute pipeline for one WGSL shader (shader errors raise)."""
        module = self.device.create_shader_module(label=label, code=source)
        return self.device.create_compute_pipeline(
            label=label, layout=self.layout[0], compute={"module": module, "entry_point": wgsl_source.ENTRY_POINT}
        )

    def _warm_up(self, pipelines: list) -> None:
        """Dispatch each pipeline once with no workgroups to run (every
        invocation returns at once): drivers that compile at the first
        dispatch (lavapipe's JIT, about 0.5 s a shader) do it now, in
        `compile_seconds`, not in the first test's time."""
        if not pipelines:
            return
        self._dispatch_empty(pipelines, PARAMS.pack(0, 1, 0, 1, 1, 0), {2: self.state.size})

    def _dispatch_empty(self, pipelines: list, params_data: bytes, sizes: dict[int, int]) -> None:
        """Dispatch each pipeline once over one workgroup that has nothing to
        run, with `params_data` as the uniform and storage bindings 0, 1, 2, 4
        of 4 bytes (or `sizes[binding]`); wait for the device."""
        usage = self.wgpu.BufferUsage
        storage = self.device.create_buffer(size=self.stride, usage=usage.STORAGE | usage.COPY_SRC)
        params = self.device.create_buffer_with_data(data=params_data, usage=usage.UNIFORM)
        entries = [
            {"binding": b, "resource": {"buffer": storage, "offset": 0, "size": sizes.get(b, 4)}} for b in (0, 1, 2, 4)
        ]
        group = self.device.create_bind_group(
            layout=self.layout[1], entries=[*entries, {"binding": 3, "resource": {"buffer": params}}]
        )
        encoder = self.device.create_command_encoder()
        for pipeline in pipelines:
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(1, 1, 1)
            compute.end()
        self.device.queue.submit([encoder.finish()])
        self._wait(storage, self.guard_margin_s + 10.0 * len(pipelines))

    def auto_instances(self, threads: int) -> int:
        budget = CPU_WORKGROUPS if self.cpu else MAX_WORKGROUPS
        if self.scope == "lane":
            return lane_instances(threads, self.lanes, budget)
        return auto_instances(threads, budget)

    def prepare(self, programs: list[Program], progress: Callable[[int], None] | None = None) -> None:
        """Compile every program's pipeline (`progress(done)` after each),
        then calibrate the spin rate for every launch size the settings use."""
        start = time.perf_counter()
        self.programs = list(programs)
        self.pipelines = []
        for program in self.programs:
            self.pipelines.append(self.pipeline(self.shader(program), program.name))
            if progress is not None:
                progress(len(self.pipelines))
        self._warm_up(self.pipelines)
        self.compile_seconds = time.perf_counter() - start
        if self.settings is not None:
            sizes = {
                self.dispatched(geometry(h, len(p.threads), instances_for(self, self.settings, len(p.threads))))
                for p in self.programs
                for h in self.settings.heuristics
            }
            for size in sorted(sizes):
                self.rate(size)

    # -- calibration -------------------------------------------------------

    def rate(self, workgroups: int) -> float:
        """Backward jumps per second of the fastest spinner in a launch of
        `workgroups` spinning workgroups (at the lane scope: blocks, every
        lane spinning; measured once per size)."""
        if workgroups not in self.rates:
            start = time.perf_counter()
            self.rates[workgroups] = self._measure_rate(workgroups)
            self.calibration_seconds += time.perf_counter() - start
        return self.rates[workgroups]

    def _spin(self, workgroups: int, budget: int) -> tuple[float, int, int]:
        """(seconds, instances timed out, loops cut) of one calibration launch."""
        if self._calibration_pipeline is None:
            self._calibration_pipeline = self.pipeline(self.shader(CALIBRATION), "calibration")
        start = time.perf_counter()
        ((count, cut),) = self._launch(
            self._calibration_pipeline, CALIBRATION, geometry("rr", 1, workgroups * self.lanes), 1, budget, 60.0
        )
        return time.perf_counter() - start, count, cut

    def budget_limit(self) -> int:
        """The largest budget a thread can spend: MAX_BUDGET, unless the
        implementation cuts loops short (lavapipe: 65535 iterations), then the
        largest budget one spinning thread spent without a cut (bisected)."""
        if self.max_budget is None:
            if self._spin(1, PROBE_BUDGET)[2] == 0:
                self.max_budget = MAX_BUDGET
            else:
                good, bad = 0, PROBE_BUDGET
                while bad - good > 1:
                    middle = (good + bad) // 2
                    good, bad = (middle, bad) if self._spin(1, middle)[2] == 0 else (good, middle)
                if good < 64:
                    raise BackendUnavailable(f"{describe(self.adapter)} cuts shader loops after {bad} iterations")
                self.max_budget = good
        return self.max_budget

    def _measure_rate(self, workgroups: int) -> float:
        limit = self.budget_limit()

        def seconds(budget: int) -> float:
            elapsed, count, cut = self._spin(workgroups, budget)
            if count != workgroups * self.lanes or cut:
                raise BackendUnavailable(
                    f"calibration on {describe(self.adapter)}: {count} of {workgroups * self.lanes} spinning instances "
                    f"timed out (expected all), {cut} loops cut; the device does not run the shader as written"
                )
            return elapsed

        budget = 256
        while 4 * budget <= limit:
            elapsed = seconds(budget)
            if elapsed >= self.calibration_target_s:
                break
            budget *= 8 if elapsed < self.calibration_target_s / 8 else 2
        budget = min(budget, limit // 4)
        short = min(seconds(budget) for _ in range(2))
        long = min(seconds(4 * budget) for _ in range(2))
        return 3 * budget / (long - short) if long > short else 4 * budget / long

    def budget(self, workgroups: int, deadline_s: float) -> int:
        """Backward jumps a thread may take in a launch of `workgroups`:
        rate x deadline, at most `budget_limit()`."""
        return max(1, min(self.budget_limit(), round(self.rate(workgroups) * deadline_s)))

    # -- launches ----------------------------------------------------------

    def run(self, index: int, launch: Geometry, iterations: int, deadline_s: float, trace=None) -> tuple[int, ...]:
        budget = self.budget(self.dispatched(launch), deadline_s)
        guard = iterations * (10 * deadline_s + 1.0) + self.guard_margin_s
        counts = self._launch(self.pipelines[index], self.programs[index], launch, iterations, budget, guard, trace)
        self.cut_threads += sum(cut for _, cut in counts)
        return tuple(count for count, _ in counts)

    def _launch(
        self, pipeline, program: Program, launch: Geometry, iterations: int, budget: int, guard_s: float, trace=None
    ) -> list[tuple[int, int]]:
        """(instances timed out, loops cut) per iteration of one launch."""
        wgpu, device = self.wgpu, self.device
        dispatched = self.dispatched(launch)
        try:
            shape = grid(dispatched, self.max_per_dimension)
        except ValueError as error:
            raise BackendUnavailable(str(error)) from None
        usage = wgpu.BufferUsage
        cells = initial_cells(program) or (0,)
        memory_bytes = 4 * len(cells) * launch.instances
        if memory_bytes > int(self.limits["max-storage-buffer-binding-size"]):
            raise BackendUnavailable(
                f"{launch.instances} instances of {len(cells)} cells exceed this device's largest storage binding "
                f"({self.limits['max-storage-buffer-binding-size']} bytes); use fewer --instances"
            )
        pristine = device.create_buffer_with_data(
            data=struct.pack(f"<{len(cells) * launch.instances}i", *(cells * launch.instances)), usage=usage.COPY_SRC
        )
        memory = device.create_buffer(size=memory_bytes, usage=usage.STORAGE | usage.COPY_DST)
        failed = device.create_buffer(size=4 * launch.instances, usage=usage.STORAGE | usage.COPY_DST)
        state = device.create_buffer(size=self.stride * iterations, usage=usage.STORAGE | usage.COPY_SRC)
        traced = trace is not None
        params = device.create_buffer_with_data(
            data=PARAMS.pack(CODES[launch.heuristic], launch.instances, dispatched, shape.width, budget, int(traced)),
            usage=usage.UNIFORM,
        )
        trace_buffer = device.create_buffer(
            size=4 * (dispatched * self.lanes if traced else 1), usage=usage.STORAGE | usage.COPY_SRC
        )
        encoder = device.create_command_encoder()
        for it in range(iterations):
            group = device.create_bind_group(
                layout=self.layout[1],
                entries=[
                    {"binding": 0, "resource": {"buffer": memory}},
                    {"binding": 1, "resource": {"buffer": failed}},
                    {"binding": 2, "resource": {"buffer": state, "offset": it * self.stride, "size": self.state.size}},
                    {"binding": 3, "resource": {"buffer": params}},
                    {"binding": 4, "resource": {"buffer": trace_buffer}},
                ],
            )
            encoder.copy_buffer_to_buffer(pristine, 0, memory, 0, memory_bytes)
            encoder.clear_buffer(failed)
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(shape.width, shape.height, 1)
            compute.end()
        device.queue.submit([encoder.finish()])
        raw = self._wait(state, guard_s)
        states = [self.state.unpack_from(raw, it * self.stride) for it in range(iterations)]
        split = sum(cell[3] for cell in states) if self.scope == "lane" else 0
        if split:
            raise BackendUnavailable(
                f"--scope lane: {split} workgroup(s) of {self.lanes} invocations ran as more than one "
                f"subgroup on {describe(self.adapter)}; its lanes are not one subgroup"
            )
        counts = [(cell[0], cell[2]) for cell in states]
        if traced:
            size = dispatched * self.lanes
            trace[:] = struct.unpack(f"<{size}i", bytes(self._wait(trace_buffer, guard_s)))
        return counts

    def _wait(self, buffer, guard_s: float) -> bytes:
        """The buffer's bytes once the queue is done, or DeviceHang past the guard."""
        box: dict = {}

        def read() -> None:
            try:
                box["data"] = bytes(self.device.queue.read_buffer(buffer))
            except Exception as error:  # reported on the caller's thread
                box["error"] = error

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(guard_s)
        if reader.is_alive():
            raise DeviceHang(f"a launch ran past the host guard of {guard_s:.1f} s; the GPU may still be running it")
        if "error" in box:
            raise box["error"]
        return box["data"]

    def trace(self, index: int, launch: Geometry) -> list[tuple[int, int]]:
        """(instance, thread) of every workgroup (at the lane scope: of every
        lane of every block, (-1, -1) for an idle one), as the shader maps it."""
        values = [-1] * (self.dispatched(launch) * self.lanes)
        self.run(index, launch, 1, 1.0, trace=values)
        n = launch.threads
        return [(v // n, v % n) if v >= 0 else (-1, -1) for v in values]

    # -- metadata ----------------------------------------------------------

    def metadata(self) -> dict:
        import wgpu
        from wgpu.backends import wgpu_native

        info = self.adapter.info
        deadline = self.settings.deadline_s if self.settings else None
        keep = (
            "max-compute-workgroups-per-dimension",
            "max-storage-buffer-binding-size",
            "max-buffer-size",
            "min-storage-buffer-offset-alignment",
            "max-bind-groups",
        )
        found = {
            "backend": "wgpu",
            "device": info.get("device"),
            "api": info.get("backend_type"),
            "adapter_type": info.get("adapter_type"),
            "driver": info.get("description"),
            "vendor": info.get("vendor"),
            "vendor_id": info.get("vendor_id"),
            "device_id": info.get("device_id"),
            "limits": {key: self.limits[key] for key in keep if key in self.limits},
            "wgpu": wgpu.__version__,
            "wgpu_native": wgpu_native.__version__,
            "compile_seconds": round(self.compile_seconds, 2),
            **({"LP_NUM_THREADS": os.environ.get("LP_NUM_THREADS", "unset")} if self.cpu else {}),
            "instances_auto": f"floor({CPU_WORKGROUPS}/N) (CPU adapter)" if self.cpu else "floor(65532/N)",
            "workgroup": "one invocation (@workgroup_size(1))",
            "dispatch": f"W workgroups along x up to {self.max_per_dimension}, beyond that spread over x and y",
            "timer": "no clock in WGSL: each backward jump charges a budget of rate(W) x deadline jumps; "
            "the first thread to spend it expires the launch and every later spin times out",
            "calibration": {
                "program": "one thread spinning on its own cell; W instances in one launch",
                "method": "rate = 3K / (t(4K) - t(K)), best of 2 launches each, K grown until t(K) >= "
                f"{self.calibration_target_s} s",
                "spins_per_second": {str(w): round(r) for w, r in sorted(self.rates.items())},
                "budget_at_deadline": {str(w): self.budget(w, deadline) for w in sorted(self.rates)}
                if deadline
                else {},
                "deadline_effective_s": {
                    str(w): round(self.budget(w, deadline) / r, 6) for w, r in sorted(self.rates.items())
                }
                if deadline
                else {},
                "loop_cap": None if self.max_budget in (None, MAX_BUDGET) else self.max_budget,
                "seconds": round(self.calibration_seconds, 2),
            },
        }
        if self.scope == "lane":
            budget = CPU_WORKGROUPS if self.cpu else MAX_WORKGROUPS
            found["calibration"]["program"] = (
                f"one thread spinning on its own cell, on every lane: W workgroups of {self.lanes} lanes in one launch"
            )
            found.update(
                scope="lane",
                subgroup_size=self.lanes,
                workgroup=f"one subgroup: @workgroup_size({self.lanes}), the subgroup size a probe shader read; "
                "each instance's threads are lanes of it (plain: lanes 0..N-1 of one workgroup; rr/chunked: "
                f"floor({self.lanes}/N) instances per workgroup, docs/gpu.md); a workgroup whose num_subgroups "
                "was not 1 stops the run",
                instances_auto=f"floor({budget}/{self.lanes}) workgroups x floor({self.lanes}/N)",
            )
        return found
