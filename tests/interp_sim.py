"""A reference for the interpreter kernels in Python: a `PackedBackend` that
runs a pack's workgroups one after another, each to its end or until it has
taken `spins` backward jumps (then it times out), reading only the pack's
buffers (`gpu.pack.Buffers`) and decoding words with `gpu.encode.fields`.

It is the kernels' contract executed by an in-order, run-to-completion
scheduler: tests that need no other thread to move on pass, a thread that
waits for a later workgroup times out. Used by tests/test_gpu_interp.py."""

from __future__ import annotations

from progress.gpu import pack as packing
from progress.gpu.encode import fields


class SimInterp:
    name = "sim"
    max_workgroups = 1 << 20
    pack_workgroups = 4096

    def __init__(self, spins: int = 8, instances: int = 4):
        self.spins = spins
        self.instances = instances
        self.launches = 0

    def auto_instances(self, threads: int) -> int:
        return self.instances

    def prepare(self, programs, progress=None) -> None:
        if progress:
            progress(len(programs))

    def load(self, pack: packing.Pack, buffers: packing.Buffers):
        return pack, buffers

    def launch(self, loaded, iterations: int, deadline_s: float, active) -> list[list[int]]:
        pack, b = loaded
        out = []
        for _ in range(iterations):
            self.launches += 1
            memory = [int(v) for v in b.memory]
            failed = set()
            for g in range(pack.workgroups):
                test, instance, thread = packing.slot(pack, g)
                if active[test] and not self._thread(pack, b, memory, test, instance, thread):
                    failed.add((test, instance))
            out.append([sum(1 for t, _ in failed if t == k) for k in range(pack.tests)])
        return out

    def _thread(self, pack, b, memory, test, instance, thread) -> bool:
        base = int(b.bases[test]) + instance * int(b.cells[test])
        start, length = int(b.starts[test * pack.threads + thread]), int(b.lengths[test * pack.threads + thread])
        pc, spins = 0, 0
        while pc < length:
            loc, target, xchg, cmp, val = fields(int(b.code[start + pc]))
            old = memory[base + loc]
            if xchg:
                memory[base + loc] = val
            if old == cmp:
                if target <= pc:
                    spins += 1
                    if spins > self.spins:
                        return False
                pc = target
            else:
                pc += 1
        return True

    def metadata(self) -> dict:
        return {"backend": "sim"}
