"""Public projects' GPU kernels, as published, through `progress check`.

    python benchmarks/public_kernels.py --real DIR [--json OUT] > docs/results/public_kernels.md
    python benchmarks/public_kernels.py --real DIR --render OUT   # the page again from saved rows

DIR holds the files of `KERNELS` at DIR/OWNER/REPO/COMMIT7/PATH (COMMIT7: the
first 7 hex digits of the commit listed) (fetched by whoever runs this: they are other projects' code and are
not committed here; a header they include sits beside them at its own path).
Each kernel is checked as a new user would check it: `progress check FILE`
with only the launch a kernel file cannot say itself (`--workgroups`, the
lengths of its runtime-sized arrays, the entry point; and, in the rows that
say so, its `#define`d sizes made small by `--redefine`), under the default
bounds, within `--time-limit` seconds (default 120). One markdown row per
kernel: accepted (the 11 verdicts as P/F, or inconclusive with the bound
hit) or the exact refusal (exit status and the first error line), and the
versions of the tools used. A missing file is reported as missing, not
skipped.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ORDER = [(m, f) for m in ("fair", "HSA", "OBE", "HSA+OBE", "LOBE") for f in ("weak", "strong")]


@dataclass(frozen=True)
class Kernel:
    """One public kernel: where it is published and what launch it needs."""

    project: str
    repo: str
    path: str
    commit: str
    what: str
    args: tuple[str, ...] = ()
    includes: tuple[str, ...] = field(default=())


MESA_REGIONS = tuple(
    part
    for push, region, words in (
        ("args.header", "header", 17),  # radv_ir_header: 10 words, then radv_global_sync_data's 7
        ("args.bvh", "bvh", 64),
        ("args.prefix_scan_partitions", "partitions", 16),
        ("args.ids_0", "ids0", 16),
        ("args.ids_1", "ids1", 16),
    )
    for part in ("--buffer", f"{region}={words}", "--push", f"{push}=@{region}")
)
"""Mesa's PLOC builder binds no buffer: each address its push constants hold, a raw region."""

KERNELS: tuple[Kernel, ...] = ()
"""Filled in below (the manifest)."""


def progress() -> list[str]:
    found = shutil.which("progress", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "progress"]


def check(kernel: Kernel, root: Path, time_limit: float) -> dict[str, object]:
    base = root / kernel.repo / kernel.commit[:7]
    path = base / kernel.path
    row: dict[str, object] = {"project": kernel.project, "repo": kernel.repo, "path": kernel.path}
    row |= {"commit": kernel.commit, "what": kernel.what, "args": list(kernel.args)}
    missing = [p for p in (kernel.path, *kernel.includes) if not (base / p).is_file()]
    if missing:
        return row | {"outcome": "missing", "detail": f"not in {root}: {', '.join(missing)}"}
    command = [*progress(), "check", str(path), *kernel.args, "--format", "json", "--no-witness"]
    command += ["--time-limit", str(time_limit)]
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=time_limit + 120, cwd=root)
    except subprocess.TimeoutExpired:
        return row | {"outcome": "time-out", "detail": f"no answer within {time_limit + 120:g} s"}
    row["seconds"] = round(time.monotonic() - start, 2)
    row["exit"] = done.returncode
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode == 2 or not results:
        errors = [line.replace(str(root) + "/", "") for line in done.stderr.splitlines() if line.strip()]
        first = next((line for line in errors if "error" in line), errors[0] if errors else "(no message)")
        row |= {"outcome": "refused", "detail": first, "errors": errors, "problems": _problems(errors)}
        return row
    verdicts = {(r["model"], r["fairness"]): r["terminates"] for r in results[0]["results"]}
    flags = [_flag(verdicts.get(("unfair", "none")))] + [_flag(verdicts.get(key)) for key in ORDER]
    states = max((r.get("states") or 0) for r in results[0]["results"])
    outcome = "accepted, inconclusive" if set(flags) == {"?"} else "accepted"
    row |= {"outcome": outcome, "verdicts": " ".join(flags), "states": states}
    reasons = {str(r["inconclusive"]) for r in results[0]["results"] if r.get("inconclusive")}
    if reasons:
        row["detail"] = "; ".join(sorted(reasons))
    return row


def _problems(errors: list[str]) -> str:
    """A refusal's problems in short: how many, at how many lines, and the reasons by count
    (the reason: the message after the instruction's name, up to its first parenthesis)."""
    total = next((int(line.split()[0]) for line in errors if re.fullmatch(r"\d+ problems", line)), 1)
    located = [line for line in errors if re.match(r"\S+:\d+:\d+: error: ", line)]
    places = {tuple(line.split(":")[:2]) for line in located}
    reasons: Counter[str] = Counter()
    for line in located:
        message = line.split(": error: ", 1)[1]
        reason = message.split(": ", 1)[1] if re.match(r"Op\w+: ", message) else message
        reasons[reason.split(" (")[0]] += 1
    shown = "; ".join(f"{reason} x{count}" for reason, count in reasons.most_common())
    if total > len(located):
        return f"{total} problems, the {len(located)} shown at {len(places)} lines: {shown}"
    return f"{total} problems at {len(places)} lines: {shown}"


def _flag(terminates: bool | None) -> str:
    return {True: "P", False: "F", None: "?"}[terminates]


def versions() -> list[str]:
    """The versions of the tools the toolchain runs (its own, not PATH's)."""
    sys.path.insert(0, str(REPO))
    from progress.front.spirv.toolchain import tool_version

    return [f"{tool}: {tool_version(tool).splitlines()[0]}" for tool in ("glslangValidator", "slang", "spirv-val")]


def markdown(rows: list[dict[str, object]], tools: list[str]) -> str:
    published = [r for r in rows if "--redefine" not in r["args"]]  # type: ignore[operator]
    smaller = [r for r in rows if r not in published]
    accepted = sum(str(r["outcome"]).startswith("accepted") for r in published)
    decided = sum(r["outcome"] == "accepted" for r in published)
    lines = [
        "# Public kernels, as published",
        "",
        "Written by `python benchmarks/public_kernels.py --real DIR` (DIR: the files below, fetched at",
        "the commits listed; not committed here). Tools: " + "; ".join(tools) + ".",
        "",
        f"{accepted} of {len(published)} kernels accepted as published (with only the launch options shown), "
        f"{decided} with a verdict; {sum(r['outcome'] == 'accepted' for r in smaller)} of the {len(smaller)} "
        "runs at a smaller size (their `#define`d sizes given by `--redefine`, the files unedited) decided.",
        "Verdicts: unfair, then fair, HSA, OBE, HSA+OBE, LOBE, each weak then strong (P terminates,",
        "F may not, ? inconclusive: a bound was hit).",
        "",
        "| project | file (repo/path@commit) | what | options | outcome | verdicts / refusal |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        where = f"{r['repo']}/{r['path']}@{str(r['commit'])[:10]}"
        options = " ".join(str(a) for a in r["args"]) or "(none)"  # type: ignore[union-attr]
        if str(r["outcome"]).startswith("accepted"):
            result = f"`{r['verdicts']}` ({r['states']} states, {r['seconds']} s)"
            if r.get("detail"):
                result += f"; {r['detail']}"
        else:
            result = f"exit {r.get('exit', '-')}: {r.get('detail', '')}"
            if r.get("problems"):
                result += f"; in all, {r['problems']}"
        result = result.replace("|", "\\|")
        lines.append(f"| {r['project']} | `{where}` | {r['what']} | `{options}` | {r['outcome']} | {result} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--real", type=Path, required=True, help="the folder of fetched files (OWNER/REPO/COMMIT7/PATH)"
    )
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--render", type=Path, help="only write the page of the rows a --json run saved")
    options = parser.parse_args()
    if options.render:
        saved = json.loads(options.render.read_text())
        print(markdown(saved["rows"], saved["tools"]), end="")
        return
    root = options.real.resolve()
    rows = [check(kernel, root, options.time_limit) for kernel in KERNELS]
    if options.json:
        options.json.write_text(json.dumps({"tools": versions(), "rows": rows}, indent=1) + "\n")
    print(markdown(rows, versions()), end="")


PREFIX_SUMS_BUFFERS = ("--buffer", "b_scanIn=1536", "--buffer", "b_scanOut=1536") + (
    "--buffer",
    "b_scanBump=1",
    "--buffer",
    "b_threadBlockReduction=2",
)
"""The buffer lengths both GPUPrefixSums scans are checked with (their runtime-sized arrays)."""

ANKI_QUEUE = ("--buffer", "g_queue=1", "--buffer", "g_ringBuffer=4", "--buffer", "g_finalResult=2") + (
    "--push",  # a push constant: its `#if defined(__spirv__)` branch, as DXC compiles it for Vulkan
    "g_consts.m_ringBufferSizeMinusOne=3",
    "--init",
    "g_queue[0].m_head=1",
    "--init",
    "g_ringBuffer[0]=65537",
)
"""A ring of 4 items holding one work item, level 1 payload 1 (`1 << 16 | 1`), as the host would seed it.
Slang does not define `__spirv__`, so the kernel's D3D branch declares the constants: a constant buffer."""
WGPU_SCAN_BUFFERS = ("--buffer", "scan=6656", "--buffer", "reduction=2", "--buffer", "index=1") + (
    "--buffer",
    "info=1",
    "--init",
    "info=6656",
)
"""2 tiles of PART_SIZE 3328 (256 x 13); `info[0]`, the input's size, 6656 (the last tile full)."""
ONESWEEP_PUBLISHED = ("--init", "cbParallelSort.e_threadBlocks=2", "--init", "cbParallelSort.e_numKeys=7680") + (
    "--buffer",
    "b_index=4",
    "--buffer",
    "b_passHist=2048",
    "--buffer",
    "b_sort=7680",
    "--buffer",
    "b_alt=7680",
)
"""Two partition tiles of 3840 keys (PART_SIZE), the pass histograms of 2 tiles x 256 digits x 4 passes."""
ONESWEEP_SMALL = tuple(
    part
    for name, value in (
        ("PASS_DIM", 2),
        ("KEYS_PER_THREAD", 1),
        ("PART_SIZE", 2),
        ("RADIX", 2),
        ("RADIX_MASK", 1),
        ("RADIX_LOG", 1),
        ("HALF_RADIX", 1),
        ("HALF_MASK", 0),
        ("MAX_PASS_SMEM", 8),
    )
    for part in ("--redefine", f"{name}={value}")
) + (
    "--init",
    "cbParallelSort.e_threadBlocks=2",
    "--init",
    "cbParallelSort.e_numKeys=4",
    "--init",
    "b_passHist[0]=2",
    "--init",
    "b_passHist[1]=2",
    "--buffer",
    "b_index=1",
    "--buffer",
    "b_passHist=4",
    "--buffer",
    "b_sort=4",
    "--buffer",
    "b_alt=4",
)
"""OneSweep's sizes (plain #defines in SortCommon.hlsl) at their smallest: 2 invocations (one wave
of 2: the kernel's waves-below-16 path), 1 key each, a 1-bit digit (2 bins); 2 tiles of 2 keys; the
tile-0 slots of the pass histogram as the Scan kernel leaves them (`count << 2 | FLAG_INCLUSIVE`,
count 0): the look-back of tile 0 reads them, and without them it waits forever."""
SMALL_VELLO = ("--redefine", "N_ROWS=1")
"""Vello's items per invocation, 16 as published, at 1 (its sizes are plain #defines)."""
VELLO_SMALL_BUFFERS = ("--buffer", "inbuf=4", "--buffer", "outbuf=4", "--buffer", "state=2")
"""Its buffers at that size: 2 workgroups' partitions and 2 tile states."""
JIMARA_INCLUDE = "TheDonsky/Jimara/cb2332b/__Source__/Jimara"
"""Jimara's include root (its kernels include "Graphics/Memory/Jimara_Atomics.glh"), relative to DIR."""

KERNELS = (
    Kernel(
        "Vello (piet-gpu's tests)",
        "linebender/vello",
        "tests/shader/prefix.comp",
        "19fedf36db2bc558c97d193dcbdba1182777e271",
        "decoupled look-back scan with fallback (GLSL, plain volatile loads, 512 invocations)",
        ("--workgroups", "2", "--buffer", "inbuf=16384", "--buffer", "outbuf=16384", "--buffer", "state=2"),
    ),
    Kernel(
        "Vello (piet-gpu's tests)",
        "linebender/vello",
        "tests/shader/prefix.comp",
        "747473bc1817994c5c5f7471a1f49fa3df36f0d6",
        "the same scan, atomic flags (`-D ATOMIC`) in the Vulkan memory model (`-D VKMM`)",
        ("--workgroups", "2", "-D", "ATOMIC", "-D", "VKMM")
        + ("--buffer", "inbuf=16384", "--buffer", "outbuf=16384", "--buffer", "state=2"),
    ),
    Kernel(
        "GPUPrefixSums (D3D12)",
        "b0nes164/GPUPrefixSums",
        "GPUPrefixSumsD3D12/Shaders/ChainedScanDecoupledLookback.hlsl",
        "f23b5a1c47f6b359196fa5f8dd68edca1f08e00a",
        "chained scan, decoupled look-back without fallback (HLSL, waves)",
        ("--workgroups", "2", "--entry", "ChainedScanDecoupledLookbackExclusive") + PREFIX_SUMS_BUFFERS,
        ("GPUPrefixSumsD3D12/Shaders/ScanCommon.hlsl",),
    ),
    Kernel(
        "GPUPrefixSums (D3D12)",
        "b0nes164/GPUPrefixSums",
        "GPUPrefixSumsD3D12/Shaders/ChainedScanDecoupledLookbackDecoupledFallback.hlsl",
        "f23b5a1c47f6b359196fa5f8dd68edca1f08e00a",
        "chained scan, decoupled look-back with decoupled fallback (HLSL, waves)",
        ("--workgroups", "2", "--entry", "ChainedScanDecoupledLookbackDecoupledFallbackInclusive")
        + PREFIX_SUMS_BUFFERS,
        ("GPUPrefixSumsD3D12/Shaders/ScanCommon.hlsl",),
    ),
    Kernel(
        "GPUSorting (D3D12)",
        "b0nes164/GPUSorting",
        "GPUSortingD3D12/Shaders/OneSweep.hlsl",
        "ac4d437c0f4c723577ba4bb7ee0df461bd3760a5",
        "OneSweep radix sort, digit binning pass: decoupled look-back over the pass histograms (HLSL, waves)",
        ("--workgroups", "2", "--entry", "DigitBinningPass", "-D", "KEY_UINT", *ONESWEEP_PUBLISHED),
        ("GPUSortingD3D12/Shaders/SortCommon.hlsl",),
    ),
    Kernel(
        "GPUPrefixSums (WGPU)",
        "b0nes164/GPUPrefixSums",
        "GPUPrefixSumsWGPU/src/Shaders/csdl.wgsl",
        "091bea1666bb10d3d64ec6a35b0c1fe74b281b75",
        "chained scan, decoupled look-back without fallback, one invocation looks back (WGSL, 256 "
        "invocations, sizes `const`)",
        ("--workgroups", "2") + WGPU_SCAN_BUFFERS,
    ),
    Kernel(
        "GPUPrefixSums (WGPU)",
        "b0nes164/GPUPrefixSums",
        "GPUPrefixSumsWGPU/src/Shaders/csdldf.wgsl",
        "03c1b4d29dace6a3ae0957cba1634ff4aa73b654",
        "chained scan, decoupled look-back with decoupled fallback (a workgroup-wide `while (s_lock == LOCKED)`, "
        "MAX_SPIN_COUNT 4) (WGSL, 256 invocations)",
        ("--workgroups", "2") + WGPU_SCAN_BUFFERS,
    ),
    Kernel(
        "MetalMinRepro (a forward-progress repro)",
        "b0nes164/MetalMinRepro",
        "Shaders/stress.wgsl",
        "f8d94209b59fe68864399e0ddc15d85ca7f8e082",
        "a look-back whose flags are split over two invocations and joined by subgroup ballots and shuffles, "
        "written to show Apple GPUs starving the lowest tile (WGSL, `enable subgroups;`, 32 invocations, a `const`)",
        ("--workgroups", "2", "--buffer", "scan=2", "--buffer", "errors=2"),
    ),
    Kernel(
        "forward_progress_litmus_tests (UCSC)",
        "ucsc-chpl/forward_progress_litmus_tests",
        "litmus_test_web/src/2_2_5.wgsl",
        "ae6041e4db35f0354fc16ac43368c9fc943e33d1",
        "a forward-progress litmus test for browsers: invocation 0 stores a flag, invocation 1 spins until it "
        "sees it; one invocation a workgroup, the flag a `var<workgroup>` (WGSL)",
        ("--workgroups", "2"),
    ),
    Kernel(
        "wgsl-loop",
        "suguruwataru/wgsl-loop",
        "src/loop.wgsl",
        "4e3b5389e3cbf6426b489d776a94313b8ae175a4",
        "a spin lock on a `var<workgroup>` atomic between the 2 invocations of one workgroup, "
        "`loop { if atomicOr(&lock, 1u) == 1u { continue; } ... break; }` (WGSL)",
        ("--workgroups", "1", "--entry", "loop_atomic"),
    ),
    Kernel(
        "wgsl-loop",
        "suguruwataru/wgsl-loop",
        "src/loop.wgsl",
        "4e3b5389e3cbf6426b489d776a94313b8ae175a4",
        "the same lock as `while atomicOr(&lock, 1u) == 1u { }` (WGSL)",
        ("--workgroups", "1", "--entry", "while_atomic"),
    ),
    Kernel(
        "AnKi (game engine)",
        "godlikepanos/anki-3d-engine",
        "Tests/Gr/JobManagerCompute.hlsl",
        "248fede4fbda326d57b1e36a614feddbe44d4cba",
        "a persistent-threads job queue: every workgroup loops taking a CAS spin lock (LOCK/UNLOCK macros) "
        "to pop work items and push their children until no work is pending (HLSL, 128 invocations)",
        ("--workgroups", "2", *ANKI_QUEUE),
    ),
    Kernel(
        "AnKi (game engine)",
        "godlikepanos/anki-3d-engine",
        "Tests/Gr/JobManagerCompute.hlsl",
        "248fede4fbda326d57b1e36a614feddbe44d4cba",
        "the job queue at 1 invocation a workgroup, 2 children per item (--redefine, file unedited), one item "
        "of level 1 queued",
        ("--workgroups", "2", "--redefine", "NUMTHREADS=1", "--redefine", "MAX_CHILDREN=2", *ANKI_QUEUE),
    ),
    Kernel(
        "Jimara (game engine)",
        "TheDonsky/Jimara",
        "__Source__/Jimara-Tests/Graphics/Atomics/CriticalSection_SingleLock_Compute.comp",
        "cb2332b98e2e5d77117dd77d4f3e4582f3162cdb",
        "the engine's CAS-lock macros (Jimara_StartCriticalSection/EndCriticalSection, atomicCompSwap) "
        "around one global lock, 128 invocations (GLSL, include through -I)",
        ("--workgroups", "2", "-I", JIMARA_INCLUDE, "--buffer", "values=2"),
        ("__Source__/Jimara/Graphics/Memory/Jimara_Atomics.glh",),
    ),
    Kernel(
        "Jimara (game engine)",
        "TheDonsky/Jimara",
        "__Source__/Jimara-Tests/Graphics/Atomics/CriticalSection_MultiLock_Compute.comp",
        "cb2332b98e2e5d77117dd77d4f3e4582f3162cdb",
        "the same CAS-lock macros, one lock per element, 512 invocations",
        ("--workgroups", "2", "-I", JIMARA_INCLUDE, "--buffer", "values=2"),
        ("__Source__/Jimara/Graphics/Memory/Jimara_Atomics.glh",),
    ),
    Kernel(
        "Vello (piet-gpu's tests)",
        "linebender/vello",
        "tests/shader/prefix.comp",
        "19fedf36db2bc558c97d193dcbdba1182777e271",
        "the first scan at 1 invocation a workgroup and 1 item (its #defines given by --redefine, file unedited)",
        ("--workgroups", "2", *SMALL_VELLO, "--redefine", "LG_WG_SIZE=0", *VELLO_SMALL_BUFFERS),
    ),
    Kernel(
        "Vello (piet-gpu's tests)",
        "linebender/vello",
        "tests/shader/prefix.comp",
        "19fedf36db2bc558c97d193dcbdba1182777e271",
        "the first scan at 2 invocations a workgroup (--redefine, file unedited)",
        ("--workgroups", "2", *SMALL_VELLO, "--redefine", "LG_WG_SIZE=1", *VELLO_SMALL_BUFFERS),
    ),
    Kernel(
        "Vello (piet-gpu's tests)",
        "linebender/vello",
        "tests/shader/prefix.comp",
        "747473bc1817994c5c5f7471a1f49fa3df36f0d6",
        "the atomic, Vulkan-memory-model scan at 2 invocations a workgroup (--redefine, file unedited)",
        ("--workgroups", "2", "-D", "ATOMIC", "-D", "VKMM", *SMALL_VELLO, "--redefine", "LG_WG_SIZE=1")
        + VELLO_SMALL_BUFFERS,
    ),
    Kernel(
        "Jimara (game engine)",
        "TheDonsky/Jimara",
        "__Source__/Jimara-Tests/Graphics/Atomics/CriticalSection_SingleLock_Compute.comp",
        "cb2332b98e2e5d77117dd77d4f3e4582f3162cdb",
        "the single-lock kernel at 1 invocation a workgroup (--redefine BLOCK_SIZE=1, file unedited)",
        ("--workgroups", "2", "-I", JIMARA_INCLUDE, "--redefine", "BLOCK_SIZE=1", "--buffer", "values=2"),
        ("__Source__/Jimara/Graphics/Memory/Jimara_Atomics.glh",),
    ),
    Kernel(
        "Jimara (game engine)",
        "TheDonsky/Jimara",
        "__Source__/Jimara-Tests/Graphics/Atomics/CriticalSection_MultiLock_Compute.comp",
        "cb2332b98e2e5d77117dd77d4f3e4582f3162cdb",
        "the multi-lock kernel at 1 invocation a workgroup, both workgroups on one lock (values=1)",
        ("--workgroups", "2", "-I", JIMARA_INCLUDE, "--redefine", "BLOCK_SIZE=1", "--buffer", "values=1"),
        ("__Source__/Jimara/Graphics/Memory/Jimara_Atomics.glh",),
    ),
    Kernel(
        "GPUSorting (D3D12)",
        "b0nes164/GPUSorting",
        "GPUSortingD3D12/Shaders/OneSweep.hlsl",
        "ac4d437c0f4c723577ba4bb7ee0df461bd3760a5",
        "the digit binning pass at 2 invocations a workgroup, 1 key each, 2 digits (1-bit radix; its "
        "#defines given by --redefine, file unedited), the Scan kernel's flags for tile 0 set "
        "(FLAG_INCLUSIVE, count 0)",
        ("--workgroups", "2", "--entry", "DigitBinningPass", "-D", "KEY_UINT", *ONESWEEP_SMALL),
        ("GPUSortingD3D12/Shaders/SortCommon.hlsl",),
    ),
    Kernel(
        "Mesa (radv's BVH builder)",
        "Saikatsaha1996/mesa-Panfrost-G610",
        "src/amd/vulkan/bvh/ploc_internal.comp",
        "40f78e74c023992a470cec670486846a7de83c15",
        "PLOC BVH build: phases synchronized across workgroups by spinning on global counters, "
        "a decoupled look-back prefix scan (GLSL, buffer references; a Mesa mirror: bminor/mesa-mesa "
        "holds this file without its headers at the same commit); no buffer is bound: every address is "
        "a push constant, here raw regions (memory 0: no leaves) at its literal 1024 invocations a workgroup",
        ("--workgroups", "2", *MESA_REGIONS),
        tuple(f"src/amd/vulkan/bvh/{h}" for h in ("build_interface.h", "build_helpers.h", "bvh.h")),
    ),
    Kernel(
        "vulkan-tut (a Vulkan compute tutorial)",
        "planetis-m/vulkan-tut",
        "shaders/reduce_spinlock.comp.glsl",
        "3145c568c70a7d9a06b410341905d5935142b837",
        "grid reduction: each workgroup's invocation 0 adds its sum under a CAS spin lock (`acquire()`: "
        "atomicCompSwap, then a wait on atomicOr) shared by all workgroups; the workgroup size and the "
        "shared array's length are one specialization constant (id 0), correct from 128 up (it reads "
        "sharedData[localIdx + 64]), so checked at 128 (the uniform `n` 0: no input read)",
        ("--workgroups", "2", "--spec", "0=128", "--buffer", "inputData=256"),
    ),
)

if __name__ == "__main__":
    main()
