"""How a wgpu adapter (lavapipe) runs one dispatch's workgroups: order, co-residency, who can unblock whom.

    LP_NUM_THREADS=2 python benchmarks/lavapipe_schedule.py [--workgroups 64] [--repeats 5] [-o FILE.json]

Not a speed benchmark: a probe of the scheduler, with its own small WGSL
shader (not progress's), one invocation per workgroup as progress runs them.

- `order`: every workgroup takes a start ticket from one atomic counter,
  does `--work` atomic adds on a private cell, takes an end ticket. From
  the tickets: the most workgroups open at once (the pool's width), the
  first starts in ticket order, and for every pair of workgroups that were
  open at once their id distance (contiguous chunks of W/T per pool thread
  give distances near W/T; one-at-a-time hand-out gives distances near 1).
- `wait`: workgroup 0 spins (at most `--spin` turns of 4 atomic adds, under
  lavapipe's loop cap) until a flag is set; workgroup b sets it; every other workgroup does
  `--work` adds. For each b: in how many of `--repeats` dispatches did
  workgroup 0 see the flag. On a run-to-completion scheduler a b that
  comes after 0 on the same pool thread can never unblock it.

Writes one JSON with both and prints a summary.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from progress.gpu.wgpu_backend import _wgpu, describe, select_adapter  # noqa: E402

SHADER = """
struct Params { mode: u32, workgroups: u32, work: u32, spin: u32, b: u32, p0: u32, p1: u32, p2: u32 }
@group(0) @binding(0) var<storage, read_write> clock: array<atomic<u32>>;   // [ticket, flag]
@group(0) @binding(1) var<storage, read_write> events: array<u32>;          // [2w] start, [2w+1] end
@group(0) @binding(2) var<storage, read_write> scratch: array<atomic<u32>>; // one cell a workgroup
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) id: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    if (lane != 0u) { return; }
    let w = id.x;
    if (w >= params.workgroups) { return; }
    events[2u * w] = atomicAdd(&clock[0], 1u);
    if (params.mode == 1u && w == 0u) {
        var seen = 0u;
        for (var i = 0u; i < params.spin; i++) {
            // 4 adds a turn (not mergeable, unlike loads): a longer wait under lavapipe's cap of 65535 turns
            atomicAdd(&scratch[params.workgroups], 1u);
            atomicAdd(&scratch[params.workgroups], 1u);
            atomicAdd(&scratch[params.workgroups], 1u);
            atomicAdd(&scratch[params.workgroups], 1u);
            if (atomicLoad(&clock[1]) != 0u) { seen = i + 1u; break; }
        }
        atomicStore(&scratch[0], seen);
    } else if (params.mode == 1u && w == params.b) {
        atomicStore(&clock[1], 1u);
    } else {
        for (var i = 0u; i < params.work; i++) { atomicAdd(&scratch[w], 1u); }
    }
    events[2u * w + 1u] = atomicAdd(&clock[0], 1u);
}
"""


class Probe:
    def __init__(self, adapter: str | None):
        self.wgpu = _wgpu()
        self.adapter = select_adapter(self.wgpu, adapter)
        self.device = self.adapter.request_device_sync(label="schedule probe")
        module = self.device.create_shader_module(code=SHADER)
        self.pipeline = self.device.create_compute_pipeline(
            layout="auto", compute={"module": module, "entry_point": "main"}
        )

    def dispatch(self, mode: int, workgroups: int, work: int, spin: int, b: int) -> tuple[list[int], int]:
        """(events [start0, end0, start1, ...], turns workgroup 0 took to see the flag, 0 if never)."""
        usage = self.wgpu.BufferUsage
        device = self.device
        clock = device.create_buffer(size=16, usage=usage.STORAGE | usage.COPY_SRC)
        events = device.create_buffer(size=8 * workgroups, usage=usage.STORAGE | usage.COPY_SRC)
        scratch = device.create_buffer(size=4 * (workgroups + 1), usage=usage.STORAGE | usage.COPY_SRC)
        params = device.create_buffer_with_data(
            data=struct.pack("<8I", mode, workgroups, work, spin, b, 0, 0, 0), usage=usage.UNIFORM
        )
        group = device.create_bind_group(
            layout=self.pipeline.get_bind_group_layout(0),
            entries=[
                {"binding": 0, "resource": {"buffer": clock}},
                {"binding": 1, "resource": {"buffer": events}},
                {"binding": 2, "resource": {"buffer": scratch}},
                {"binding": 3, "resource": {"buffer": params}},
            ],
        )
        encoder = device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        compute.set_pipeline(self.pipeline)
        compute.set_bind_group(0, group)
        compute.dispatch_workgroups(workgroups, 1, 1)
        compute.end()
        device.queue.submit([encoder.finish()])
        raw = bytes(device.queue.read_buffer(events))
        seen = struct.unpack_from("<I", bytes(device.queue.read_buffer(scratch)))[0]
        return list(struct.unpack(f"<{2 * workgroups}I", raw)), seen


def analyse(events: list[int]) -> dict:
    """Width, first starts and the id distances of workgroups open at once, from the tickets."""
    workgroups = len(events) // 2
    timeline = sorted((t, w, kind) for w in range(workgroups) for kind, t in (("start", events[2 * w]),))
    timeline += sorted((events[2 * w + 1], w, "end") for w in range(workgroups))
    timeline.sort()
    open_now: set[int] = set()
    width = 0
    distances: Counter[int] = Counter()
    for _, w, kind in timeline:
        if kind == "start":
            for other in open_now:
                distances[abs(w - other)] += 1
            open_now.add(w)
            width = max(width, len(open_now))
        else:
            open_now.discard(w)
    starts = sorted(range(workgroups), key=lambda w: events[2 * w])
    return {
        "width": width,
        "first_starts": starts[: min(8, workgroups)],
        "start_order": starts,
        "overlap_distances": dict(sorted(distances.items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default=None)
    parser.add_argument("--workgroups", type=int, default=64)
    parser.add_argument("--work", type=int, default=2000, help="atomic adds a workgroup does in order mode")
    parser.add_argument("--spin", type=int, default=60000, help="turns workgroup 0 waits in wait mode")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("-o", "--out", type=Path, default=None)
    args = parser.parse_args()
    probe = Probe(args.adapter)
    w = args.workgroups
    orders = [analyse(probe.dispatch(0, w, args.work, 0, 0)[0]) for _ in range(args.repeats)]
    unblocks, started_during = {}, {}
    for b in range(1, w):
        seen, overlapped = [], 0
        for _ in range(args.repeats):
            events, turns = probe.dispatch(1, w, args.work, args.spin, b)
            seen.append(turns)
            overlapped += events[2 * b] < events[1]  # b started before workgroup 0 ended
        unblocks[b] = seen
        started_during[b] = overlapped
    result = {
        "adapter": describe(probe.adapter),
        "driver": probe.adapter.info.get("description"),
        "LP_NUM_THREADS": os.environ.get("LP_NUM_THREADS"),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "workgroups": w,
        "work": args.work,
        "spin": args.spin,
        "repeats": args.repeats,
        "order": orders,
        "wait_turns_until_seen": {str(b): seen for b, seen in unblocks.items()},
        "wait_unblocked_by": {str(b): sum(1 for s in seen if s) for b, seen in unblocks.items()},
        "wait_b_started_while_0_ran": {str(b): n for b, n in started_during.items()},
    }
    for k, o in enumerate(orders):
        print(f"order {k}: width {o['width']}, first starts {o['first_starts']}, distances {o['overlap_distances']}")
    hits = {b: sum(1 for s in seen if s) for b, seen in unblocks.items()}
    can = [b for b, n in hits.items() if n == args.repeats]
    never = [b for b, n in hits.items() if n == 0]
    some = [b for b, n in hits.items() if 0 < n < args.repeats]
    print(f"workgroup 0 unblocked by b in every dispatch: {_ranges(can)}; never: {_ranges(never)}; sometimes: {some}")
    ran = [b for b, n in started_during.items() if n]
    print(f"b started while workgroup 0 spun (in some dispatch): {_ranges(ran)}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")


def _ranges(values: list[int]) -> str:
    out: list[str] = []
    for v in values:
        if out and out[-1].endswith(f"-{v - 1}") or out and out[-1] == str(v - 1):
            out[-1] = out[-1].split("-")[0] + f"-{v}"
        else:
            out.append(str(v))
    return ", ".join(out) or "none"


if __name__ == "__main__":
    main()
