"""The CPU backend: the generated C program on real OS threads.

Each test becomes a C program (`c_source`), compiled with the system C
compiler (`$CC`, default `cc`) and pthreads, cached by the hash of its
source in the user's private cache (`progress.cache`: `~/.cache/progress/cpu`,
mode 0700, refused if another user could write it; an entry is installed
atomically and checked before every use), and run once per (test, heuristic)
with all iterations. One OS thread per workgroup, so the instance count is small:
`auto` is floor(16 / N) here (the CUDA backend's floor(65532 / N) would start
tens of thousands of threads). The host guard is a subprocess time-out.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from progress.back.c_source import program_source
from progress.cache import cache_root, check_entry, install, private_dir
from progress.core.program import Program
from progress.gpu.heuristics import CODES, Geometry, auto_instances
from progress.gpu.runner import BackendUnavailable, DeviceHang

CPU_WORKGROUPS = 16
"""The workgroup budget that `auto` divides among instances on the CPU."""
CPU_MAX_WORKGROUPS = 4096
"""The most OS threads one launch may start (`--instances` beyond it is refused)."""


class CpuBackend:
    """Runs tests as C programs; see the module docstring."""

    name = "cpu"
    max_workgroups = CPU_MAX_WORKGROUPS

    def __init__(
        self,
        cache_dir: Path | None = None,
        compiler: str | None = None,
        guard_margin_s: float = 30.0,
        workers: int | None = None,
    ):
        self.compiler = compiler or os.environ.get("CC", "cc")
        if shutil.which(self.compiler) is None:
            raise BackendUnavailable(f"the cpu backend needs a C compiler; {self.compiler!r} was not found")
        self.cache = cache_dir or cache_root() / "cpu"
        self.guard_margin_s = guard_margin_s
        self.workers = workers or os.cpu_count() or 1
        """Compilers run at once by `prepare` (default: one per core)."""
        self.programs: list[Program] = []
        self.executables: list[Path] = []

    def auto_instances(self, threads: int) -> int:
        return auto_instances(threads, CPU_WORKGROUPS)

    def prepare(self, programs: list[Program], progress: Callable[[int], None] | None = None) -> None:
        """Compile (or find in the cache) one executable per program, one
        compiler per core at a time; `progress(done)` after each (called from
        this thread)."""
        private_dir(self.cache)
        self.programs = list(programs)
        sources = [program_source(p) for p in programs]
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures = [pool.submit(self._compile, source) for source in sources]
            try:
                for done, _ in enumerate(as_completed(futures), 1):
                    if progress:
                        progress(done)
            finally:
                for future in futures:  # an error or an interrupt: start no more compilers
                    future.cancel()
        self.executables = [future.result() for future in futures]

    def _compile(self, source: str) -> Path:
        digest = hashlib.sha256((self.compiler + "\0" + source).encode()).hexdigest()[:24]
        target = self.cache / f"test-{digest}"
        check_entry(target)
        if target.exists():
            return target
        try:
            with tempfile.TemporaryDirectory(dir=self.cache, prefix="build-") as work:
                c_file = Path(work) / "test.c"
                c_file.write_text(source, encoding="utf-8")
                built = Path(work) / "test"
                result = subprocess.run(
                    [self.compiler, "-O2", "-pthread", "-o", str(built), str(c_file)], capture_output=True, text=True
                )
                if result.returncode != 0:
                    raise BackendUnavailable(f"{self.compiler} failed on generated C:\n{result.stderr}")
                install(built, target)
        except OSError as error:
            raise BackendUnavailable(
                f"cannot write the compile cache {self.cache}: {error.strerror or error}"
            ) from None
        return target

    def command(self, index: int, launch: Geometry, iterations: int, deadline_s: float) -> list[str]:
        return [
            str(self.executables[index]),
            str(CODES[launch.heuristic]),
            str(launch.instances),
            str(iterations),
            str(max(1, round(deadline_s * 1e9))),
        ]

    def run(self, index: int, launch: Geometry, iterations: int, deadline_s: float) -> tuple[int, ...]:
        lines = self._execute(self.command(index, launch, iterations, deadline_s), iterations, deadline_s)
        return tuple(int(line.split()[2]) for line in lines if line.startswith("iteration "))

    def trace(self, index: int, launch: Geometry) -> list[tuple[int, int]]:
        """(instance, thread) of every workgroup, as the generated program maps it."""
        lines = self._execute(self.command(index, launch, 1, 1.0) + ["trace"], 1, 1.0)
        return [(int(f[2]), int(f[3])) for f in (line.split() for line in lines) if f[0] == "trace"]

    def _execute(self, argv: list[str], iterations: int, deadline_s: float) -> list[str]:
        check_entry(Path(argv[0]))
        guard = iterations * deadline_s + self.guard_margin_s
        try:
            result = subprocess.run(
                argv, capture_output=True, text=True, timeout=guard, env={**os.environ, **self.child_env()}
            )
        except subprocess.TimeoutExpired:
            raise DeviceHang(f"{argv[0]} ran past the host guard of {guard:.1f} s and was killed") from None
        if result.returncode != 0:
            raise BackendUnavailable(f"{argv[0]} exited with {result.returncode}: {result.stderr.strip()}")
        return result.stdout.splitlines()

    @staticmethod
    def child_env() -> dict[str, str]:
        """Tells a test program who its parent is (see `c_source`: it dies with it)."""
        return {"PROGRESS_PARENT_PID": str(os.getpid())}

    def metadata(self) -> dict:
        version = subprocess.run([self.compiler, "--version"], capture_output=True, text=True).stdout
        return {
            "backend": "cpu",
            "device": f"{os.cpu_count()} CPU cores (POSIX threads)",
            "compiler": version.splitlines()[0] if version else self.compiler,
            "instances_auto": f"floor({CPU_WORKGROUPS}/N)",
            "workgroup": "one POSIX thread",
            "timer": "CLOCK_MONOTONIC",
        }
