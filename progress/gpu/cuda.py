"""The CUDA backend: the only module that imports CuPy.

`CudaInterp` is the interpreter (`--codegen interp`): one kernel
(`interp_cuda`), compiled once, runs packs of tests (`gpu.pack`).

`prepare` compiles one module (`cuda_source.module`) with NVRTC through
`cupy.RawModule`: one kernel per test. `run` launches, for each iteration on
one stream and without a host round trip in between: a copy that resets
every instance's memory, `progress_set_deadline` (deadline = the GPU's
`%globaltimer` + budget) and the test's kernel with one thread per block.
The host then waits for an event, polling, at most
`iterations * (deadline + 1 s) + margin` seconds (the wall-clock guard):
past that it raises `DeviceHang` (CuPy cannot kill a kernel; with the
device-side deadline this should never happen).
"""

from __future__ import annotations

import subprocess
import time
from typing import Any

from progress.back import cuda_source, interp_cuda
from progress.back.codegen import initial_cells
from progress.core.program import Program
from progress.gpu.heuristics import CODES, MAX_LAUNCH, Geometry, auto_instances, lane_blocks, lane_instances
from progress.gpu.pack import LAYOUT_CODES, Buffers, Pack
from progress.gpu.runner import BackendUnavailable, DeviceHang


def _cupy():
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # ImportError, or CUDA's own errors without a GPU
        raise BackendUnavailable(f"the cuda backend needs CuPy and a CUDA GPU: {error}") from None
    return cupy


class CudaBackend:
    """Runs tests as CUDA kernels; see the module docstring."""

    name = "cuda"
    max_workgroups = MAX_LAUNCH

    def __init__(
        self, guard_margin_s: float = 30.0, poll_s: float = 0.0002, scope: str = "workgroup", arch: str | None = None
    ):
        """`scope` "lane" runs a test's threads as lanes of one warp
        (`cuda_source.LANE_KERNEL`); `arch` (e.g. `compute_60`) is NVRTC's
        target instead of the device's own (a pre-Volta target opts out of
        independent thread scheduling: the paper's SIMT build)."""
        self.cp = _cupy()
        import numpy

        self.np = numpy
        self.guard_margin_s = guard_margin_s
        self.poll_s = poll_s
        self.scope, self.arch = scope, arch
        self.programs: list[Program] = []
        self.module: Any = None  # a cupy.RawModule after prepare (CuPy has no types)
        self.compile_seconds = 0.0

    def auto_instances(self, threads: int) -> int:
        return lane_instances(threads) if self.scope == "lane" else auto_instances(threads)

    def prepare(self, programs: list[Program], progress=None) -> None:
        """Compile every program's kernel in one NVRTC module (`progress(len)` when done)."""
        start = time.perf_counter()
        self.programs = list(programs)
        options: tuple[str, ...] = ("-std=c++17",) + ((f"-arch={self.arch}",) if self.arch else ())
        self.module = self.cp.RawModule(code=cuda_source.module(self.programs, self.scope), options=options)
        self.module.get_function("progress_set_deadline")  # compiles now, not at the first launch
        self.compile_seconds = time.perf_counter() - start
        if progress:
            progress(len(self.programs))

    def run(self, index: int, launch: Geometry, iterations: int, deadline_s: float, trace=None) -> tuple[int, ...]:
        cp, np = self.cp, self.np
        cells = np.array(initial_cells(self.programs[index]) or (0,), dtype=np.int32)
        pristine = cp.asarray(np.tile(cells, launch.instances))
        memory = cp.empty_like(pristine)
        failed = cp.zeros((iterations, launch.instances), dtype=cp.int32)
        counts = cp.zeros(iterations, dtype=cp.uint32)
        deadlines = cp.zeros(iterations, dtype=cp.uint64)
        kernel = self.module.get_function(cuda_source.kernel_name(index))
        set_deadline = self.module.get_function("progress_set_deadline")
        budget = np.uint64(max(1, round(deadline_s * 1e9)))
        trace_arg = trace if trace is not None else np.uint64(0)
        grid, block = lane_blocks(launch) if self.scope == "lane" else (launch.workgroups, 1)
        for it in range(iterations):
            cp.copyto(memory, pristine)
            set_deadline((1,), (1,), (deadlines[it:], budget))
            kernel(
                (grid,),
                (block,),
                (
                    memory,
                    failed[it],
                    counts[it:],
                    deadlines[it:],
                    np.int32(CODES[launch.heuristic]),
                    np.uint32(launch.instances),
                    trace_arg,
                ),
            )
        self._wait(iterations * (deadline_s + 1.0) + self.guard_margin_s)
        return tuple(int(c) for c in counts.get())

    def trace(self, index: int, launch: Geometry) -> list[tuple[int, int]]:
        """(instance, thread) of every workgroup (at the lane scope: of every
        lane of every block, (-1, -1) for an idle one), as the kernel maps it."""
        grid, block = lane_blocks(launch) if self.scope == "lane" else (launch.workgroups, 1)
        buffer = self.cp.full(grid * block, -1, dtype=self.cp.int32)
        self.run(index, launch, 1, 1.0, trace=buffer)
        n = launch.threads
        return [(int(v) // n, int(v) % n) if v >= 0 else (-1, -1) for v in buffer.get()]

    def _wait(self, guard_s: float) -> None:
        _wait(self.cp, guard_s, self.poll_s)

    def metadata(self) -> dict:
        found = {**_device_metadata(self.cp), "compile_seconds": round(self.compile_seconds, 2)}
        if self.scope == "lane":
            found.update(
                scope="lane",
                workgroup="one CUDA block of one warp: each instance's threads are lanes of one warp "
                "(plain: lanes 0..N-1 of one block; rr/chunked: floor(32/N) instances per warp, docs/gpu.md)",
                instances_auto="floor(65532/32) warps x floor(32/N)",
            )
        if self.arch:
            found["nvrtc_arch"] = self.arch
        return found


def _wait(cp, guard_s: float, poll_s: float) -> None:
    """Until the stream's work is done; DeviceHang past `guard_s`."""
    done = cp.cuda.Event()
    done.record()
    start = time.monotonic()
    while not done.done:
        if time.monotonic() - start > guard_s:
            raise DeviceHang(f"a launch ran past the host guard of {guard_s:.1f} s; the GPU may still be running it")
        time.sleep(poll_s)


def _device_metadata(cp) -> dict:
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"]
    return {
        "backend": "cuda",
        "device": name.decode() if isinstance(name, bytes) else str(name),
        "compute_capability": f"{props['major']}.{props['minor']}",
        "multiprocessors": props["multiProcessorCount"],
        "max_blocks_per_multiprocessor": props.get("maxBlocksPerMultiProcessor"),
        "driver": _driver_version(),
        "cuda_driver_api": cp.cuda.runtime.driverGetVersion(),
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "nvrtc": ".".join(map(str, cp.cuda.nvrtc.getVersion())),
        "cupy": cp.__version__,
        "instances_auto": "floor(65532/N)",
        "workgroup": "one CUDA block of one thread",
        "timer": "%globaltimer, deadline from the start of each launch",
    }


def _driver_version() -> str | None:
    """The NVIDIA driver's version string, as nvidia-smi reports it (None if absent)."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None


class CudaInterp:
    """The interpreter backend: `prepare` compiles `interp_cuda` once; `load`
    puts a pack's buffers on the device, `launch` runs iterations of it."""

    name = "cuda"
    max_workgroups = MAX_LAUNCH
    pack_workgroups = 1 << 26
    """Workgroups of one packed launch by default: 1024 tests of 65532."""
    grace_spins = 8
    """Backward jumps a thread takes before it looks at the clock (`interp_cuda`)."""

    def __init__(self, guard_margin_s: float = 30.0, poll_s: float = 0.0002):
        self.cp = _cupy()
        import numpy

        self.np = numpy
        self.guard_margin_s = guard_margin_s
        self.poll_s = poll_s
        self.module: Any = None
        self.compile_seconds = 0.0
        self.memory_limit = int(self.cp.cuda.Device().mem_info[1]) // 2

    def auto_instances(self, threads: int) -> int:
        return auto_instances(threads)

    def prepare(self, programs: list[Program], progress=None) -> None:
        """Compile the interpreter (the programs are encoded, not compiled)."""
        start = time.perf_counter()
        self.module = self.cp.RawModule(code=interp_cuda.module(), options=("-std=c++17",))
        self.module.get_function(interp_cuda.KERNEL_NAME)
        self.compile_seconds = time.perf_counter() - start
        if progress:
            progress(len(programs))

    def load(self, pack: Pack, buffers: Buffers) -> dict:
        """The pack's buffers on the device."""
        cp = self.cp
        return {
            "pack": pack,
            "pristine": cp.asarray(buffers.memory),
            "memory": cp.empty(len(buffers.memory), dtype=cp.int32),
            "code": cp.asarray(buffers.code),
            "starts": cp.asarray(buffers.starts),
            "lengths": cp.asarray(buffers.lengths),
            "cells": cp.asarray(buffers.cells),
            "bases": cp.asarray(buffers.bases),
            "failed": cp.zeros(pack.tests * pack.instances, dtype=cp.int32),
        }

    def launch(self, loaded: dict, iterations: int, deadline_s: float, active, trace=None) -> list[list[int]]:
        """Failed instances [iteration][test] of `iterations` launches, queued
        on one stream with no host round trip between them."""
        cp, np = self.cp, self.np
        pack: Pack = loaded["pack"]
        counts = cp.zeros((iterations, pack.tests), dtype=cp.uint32)
        began = cp.zeros((iterations, pack.tests), dtype=cp.uint64)
        flags = cp.asarray(np.array(active, dtype=np.int32))
        kernel = self.module.get_function(interp_cuda.KERNEL_NAME)
        timing = (np.uint64(max(1, round(deadline_s * 1e9))), np.uint32(self.grace_spins))
        trace_arg = trace if trace is not None else np.uint64(0)
        shape = (
            np.int32(CODES[pack.heuristic]),
            np.int32(LAYOUT_CODES[pack.layout]),
            np.uint32(pack.tests),
            np.uint32(pack.threads),
        )
        for it in range(iterations):
            cp.copyto(loaded["memory"], loaded["pristine"])
            loaded["failed"].fill(0)
            kernel(
                (pack.workgroups,),
                (1,),
                (
                    loaded["memory"],
                    loaded["code"],
                    loaded["starts"],
                    loaded["lengths"],
                    loaded["cells"],
                    loaded["bases"],
                    flags,
                    loaded["failed"],
                    counts[it],
                    began[it],
                    *timing,
                    *shape,
                    np.uint32(pack.instances),
                    trace_arg,
                ),
            )
        _wait(self.cp, iterations * (deadline_s + 1.0) + self.guard_margin_s, self.poll_s)
        return counts.get().tolist()

    def trace(self, loaded: dict) -> list[tuple[int, int, int]]:
        """(test, instance, thread) of every packed workgroup, as the kernel maps it."""
        pack: Pack = loaded["pack"]
        buffer = self.cp.full(pack.workgroups, -1, dtype=self.cp.int32)
        self.launch(loaded, 1, 1.0, [1] * pack.tests, trace=buffer)
        n, m = pack.threads, pack.instances
        return [(int(v) // n // m, int(v) // n % m, int(v) % n) for v in buffer.get()]

    def metadata(self) -> dict:
        return {
            **_device_metadata(self.cp),
            "compile_seconds": round(self.compile_seconds, 2),
            "timer": "%globaltimer; deadline = the test's first block's start + budget; a thread takes "
            f"{self.grace_spins} backward jumps before it looks at the clock",
        }
