"""Experiments on SwiftShader's compute dispatch in headless Chromium (docs/results/web_swiftshader.md).

    python benchmarks/web_swiftshader.py probe [--workgroups 2,24,64] [--spins 20000] [--iterations 1] [--submits 1]
    python benchmarks/web_swiftshader.py flip TEST.axb:HEURISTIC:M[,M...] ... [--iterations 5] [--deadline-ms 200]

`probe` dispatches a shader of W one-invocation workgroups that take a
ticket when they start and when they end (one atomic counter), count how
many workgroups run at once, and busy-wait in between; it prints, per W, the
most workgroups seen running at once, whether workgroups w and w + 16 ever
overlap (SwiftShader's ComputeProgram runs workgroups batchID, batchID + 16,
... one after another in one task), and the order the workgroups started in.

`flip` runs tests of litmus/oopsla21 with the browser runner's own
launch code (progress/web/static/gpu.js: calibration, budget, one command
buffer of N iterations) and the same WGSL as `--backend wgpu`, under one
heuristic at the instance counts given, and prints F (k/N) or P per count
beside benchmarks/swiftshader_model.py's prediction.

Both write JSON to --out (default: print only). One headless Chromium, nice'd
by the caller; each run takes seconds to a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import http.server
import json
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.swiftshader_model import BATCHES, Dispatch, predict  # noqa: E402
from progress.back import wgsl_source  # noqa: E402
from progress.back.codegen import initial_cells  # noqa: E402
from progress.core.program import Program  # noqa: E402
from progress.front.axb.parse import parse_program  # noqa: E402
from progress.gpu.wgpu_backend import CALIBRATION  # noqa: E402
from tests.browser import launch  # noqa: E402

OOPSLA = REPO / "litmus" / "oopsla21"
GPU_JS = REPO / "progress" / "web" / "static" / "gpu.js"

PROBE = """
struct Params { spins: u32, workgroups: u32 }
@group(0) @binding(0) var<storage, read_write> clock: array<atomic<u32>, 4>; // ticket, running, max, unused
@group(0) @binding(1) var<storage, read_write> rec: array<u32>;              // per workgroup: start, end, seen
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) id: vec3<u32>) {
    let w = id.x;
    let start = atomicAdd(&clock[0], 1u);
    var seen = atomicAdd(&clock[1], 1u) + 1u;
    var i = 0u;
    loop {
        if (i >= params.spins) { break; }
        seen = max(seen, atomicLoad(&clock[1]));
        i += 1u;
    }
    atomicSub(&clock[1], 1u);
    let end = atomicAdd(&clock[0], 1u);
    rec[3u * w] = start;
    rec[3u * w + 1u] = end;
    rec[3u * w + 2u] = seen;
}
"""

PROBE_JS = """
async ([wgsl, workgroups, spins, iterations]) => {
  if (!window.probeDevice) {
    const adapter = await navigator.gpu.requestAdapter();
    window.probeDevice = await adapter.requestDevice();
  }
  const device = window.probeDevice;
  const module = device.createShaderModule({ code: wgsl });
  const pipeline = await device.createComputePipelineAsync({ layout: "auto", compute: { module, entryPoint: "main" } });
  const U = GPUBufferUsage;
  const size = 12 * workgroups;
  const read = device.createBuffer({ size: size * iterations, usage: U.MAP_READ | U.COPY_DST });
  const params = device.createBuffer({ size: 16, usage: U.UNIFORM, mappedAtCreation: true });
  new Uint32Array(params.getMappedRange()).set([spins, workgroups]);
  params.unmap();
  const encoder = device.createCommandEncoder();
  const buffers = [];
  for (let it = 0; it < iterations; it++) {
    const clock = device.createBuffer({ size: 16, usage: U.STORAGE });
    const rec = device.createBuffer({ size, usage: U.STORAGE | U.COPY_SRC });
    buffers.push(clock, rec);
    const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
      { binding: 0, resource: { buffer: clock } }, { binding: 1, resource: { buffer: rec } },
      { binding: 2, resource: { buffer: params } }] });
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline); pass.setBindGroup(0, group); pass.dispatchWorkgroups(workgroups); pass.end();
    encoder.copyBufferToBuffer(rec, 0, read, it * size, size);
  }
  const t0 = performance.now();
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const words = Array.from(new Uint32Array(read.getMappedRange().slice(0)));
  for (const b of [read, params, ...buffers]) b.destroy();
  return { ms: performance.now() - t0, words };
}
"""

RUN_JS = """
async ([wgsl, calibrationWgsl, cells, threads, heuristic, instances, iterations, deadline]) => {
  const { Gpu, geometry } = window.ProgressGpu;
  if (!window.progressGpu) {
    window.progressGpu = await Gpu.open();
    window.progressCalibration = await window.progressGpu.pipeline(calibrationWgsl, "calibration");
  }
  const gpu = window.progressGpu;
  const g = geometry(heuristic, threads, instances);
  const budget = await gpu.budget(window.progressCalibration, g.workgroups, deadline);
  const pipeline = await gpu.pipeline(wgsl, "test");
  const counts = await gpu.launch(pipeline, cells, g, iterations, budget);
  return { budget, workgroups: g.workgroups, failed: counts.filter(([count]) => count > 0).length,
           cut: counts.reduce((s, [, c]) => s + c, 0) };
}
"""


@contextmanager
def blank_page() -> Iterator[str]:
    """A local http://127.0.0.1 page (WebGPU needs a secure context; about:blank is not one)."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "index.html").write_text("<!doctype html><title>probe</title>\n")

        class Quiet(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=folder, **kwargs)

            def log_message(self, *args):
                pass

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{httpd.server_address[1]}/"
        finally:
            httpd.shutdown()


def analyse_probe(words: list[int], workgroups: int) -> dict:
    """One dispatch's tickets: how many ran at once, whether w and w + 16 overlapped, start order."""
    start = [words[3 * w] for w in range(workgroups)]
    end = [words[3 * w + 1] for w in range(workgroups)]
    seen = [words[3 * w + 2] for w in range(workgroups)]

    def overlap(a: int, b: int) -> bool:
        return start[a] < end[b] and start[b] < end[a]

    same_batch = [(w, w + BATCHES) for w in range(workgroups - BATCHES)]
    return {
        "max_running_seen": max(seen),
        "overlapping_pairs": sum(1 for a in range(workgroups) for b in range(a + 1, workgroups) if overlap(a, b)),
        "batch_pairs_overlapping": sum(1 for a, b in same_batch if overlap(a, b)),
        "batch_pairs_in_order": sum(1 for a, b in same_batch if end[a] < start[b]),
        "started_before_a_lower_id": sum(1 for w in range(workgroups) if any(start[v] > start[w] for v in range(w))),
        "start_order": sorted(range(workgroups), key=lambda w: start[w]),
    }


def probe(page, sizes: list[int], spins: int, iterations: int, submits: int) -> list[dict]:
    """Per W: `submits` command buffers of `iterations` dispatches each, as the runner launches."""
    found = []
    for workgroups in sizes:
        dispatches = []
        for submit in range(submits):
            answer = page.evaluate(PROBE_JS, [PROBE, workgroups, spins, iterations])
            words = answer["words"]
            for it in range(iterations):
                row = analyse_probe(words[3 * workgroups * it : 3 * workgroups * (it + 1)], workgroups)
                dispatches.append({"submit": submit, "iteration": it, "ms": round(answer["ms"], 1), **row})
        alone = [d for d in dispatches if d["overlapping_pairs"] == 0]
        seen = sorted({d["max_running_seen"] for d in dispatches})
        pairs = sum(len(range(workgroups - BATCHES)) for _ in dispatches)
        summary = {
            "workgroups": workgroups,
            "spins": spins,
            "dispatches": len(dispatches),
            "max_running_seen": seen,
            "no_two_overlapped": len(alone),
            "no_two_overlapped_first_of_buffer": sum(1 for d in alone if d["iteration"] == 0),
            "no_two_overlapped_reversed": sum(1 for d in alone if d["start_order"] != sorted(d["start_order"])),
            "batch_pairs": pairs,
            "batch_pairs_overlapping": sum(d["batch_pairs_overlapping"] for d in dispatches),
            "batch_pairs_in_order": sum(d["batch_pairs_in_order"] for d in dispatches),
            "started_before_a_lower_id": sum(d["started_before_a_lower_id"] for d in dispatches),
            "dispatch_rows": dispatches,
        }
        found.append(summary)
        print(
            f"W={workgroups:3d} spins {spins}: {len(dispatches)} dispatches, running at once {seen}; "
            f"no two overlapped in {len(alone)} ({summary['no_two_overlapped_first_of_buffer']} first of their "
            f"buffer, {summary['no_two_overlapped_reversed']} reversed); w,w+16 overlapped "
            f"{summary['batch_pairs_overlapping']}/{pairs}, in order {summary['batch_pairs_in_order']}/{pairs}; "
            f"started before a lower id: {summary['started_before_a_lower_id']}",
            flush=True,
        )
        print("    start order of the first:", " ".join(map(str, dispatches[0]["start_order"])), flush=True)
    return found


def open_page(browser, url: str):
    """A page of `url` with the browser runner's code (gpu.js: Gpu, geometry) loaded."""
    page = browser.new_page()
    page.goto(url)
    page.add_script_tag(content=GPU_JS.read_text())
    return page


def run_test(page, program: Program, heuristic: str, instances: int, iterations: int, deadline_s: float) -> dict:
    """One launch of `program` as the browser runner makes it: {budget, workgroups, failed, cut}."""
    wgsl = wgsl_source.shader(program)
    cells = list(initial_cells(program)) or [0]
    calibration = wgsl_source.shader(CALIBRATION)
    n = len(program.threads)
    return page.evaluate(RUN_JS, [wgsl, calibration, cells, n, heuristic, instances, iterations, deadline_s])


def flip(page, specs: list[str], iterations: int, deadline_s: float, samples: int) -> list[dict]:
    found = []
    for spec in specs:
        name, heuristic, counts = spec.split(":")
        path = OOPSLA / name
        program = parse_program(path.read_text(), str(path))
        for m in (int(c) for c in counts.split(",")):
            answer = run_test(page, program, heuristic, m, iterations, deadline_s)
            model = predict(program, Dispatch(heuristic, m), samples=samples)
            loose = predict(program, Dispatch(heuristic, m, placement="random"), samples=samples)
            cell = "P" if answer["failed"] == 0 else f"F ({answer['failed']}/{iterations})"
            row = {
                "test": name,
                "heuristic": heuristic,
                "instances": m,
                **answer,
                "cell": cell,
                "model_failed": model,
                "random_model_failed": loose,
                "model_samples": samples,
            }
            found.append(row)
            print(
                f"{name:14s} {heuristic:7s} M={m:3d} W={answer['workgroups']:3d}  observed {cell:10s} "
                f"model F in {model}/{samples}, random placement {loose}/{samples}  "
                f"(budget {answer['budget']}, cut {answer['cut']})",
                flush=True,
            )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("probe")
    p.add_argument("--workgroups", default="4,12,16,17,24,32,64")
    p.add_argument("--spins", type=int, default=20000)
    p.add_argument("--iterations", type=int, default=1, help="dispatches per command buffer")
    p.add_argument("--submits", type=int, default=1, help="command buffers per W")
    f = sub.add_parser("flip")
    f.add_argument("specs", nargs="+", help="TEST:HEURISTIC:M[,M...], TEST relative to oopsla21")
    f.add_argument("--iterations", type=int, default=5)
    f.add_argument("--deadline-ms", type=int, default=200)
    f.add_argument("--samples", type=int, default=20)
    for s in (p, f):
        s.add_argument("--out", type=Path)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with blank_page() as url, sync_playwright() as playwright:
        browser = launch(playwright)
        page = open_page(browser, url)
        if args.command == "probe":
            rows = probe(page, [int(w) for w in args.workgroups.split(",")], args.spins, args.iterations, args.submits)
        else:
            rows = flip(page, args.specs, args.iterations, args.deadline_ms / 1000, args.samples)
        agent = page.evaluate("navigator.userAgent")
        browser.close()
    load = Path("/proc/loadavg").read_text().split()[:3]
    print("load average", " ".join(load))
    if args.out:
        record = {
            "command": " ".join(["python", "benchmarks/web_swiftshader.py", *sys.argv[1:]]),
            "browser": agent,
            "load": load,
            "rows": rows,
        }
        args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
