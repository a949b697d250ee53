"""`progress run`: run tests on a GPU (or on CPU threads) under the launch heuristics."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from progress.cli.inputs import expand, load, read_text
from progress.cli.launch_options import constant_options
from progress.cli.outputs import LineWriter, write_file
from progress.cli.run_inputs import encoded, keyed_tests, selected
from progress.core.program import Program
from progress.errors import InputError, UsageError, printable
from progress.gpu import results
from progress.gpu.database import record_run, usable_database
from progress.gpu.pack import LAYOUTS
from progress.gpu.packed import STOP_EARLY_RULE, layouts, plan, run_packed
from progress.gpu.runner import (
    MAX_ITERATIONS,
    Settings,
    check_launches,
    check_settings,
    parse_duration,
    parse_heuristics,
    parse_instances,
    run_tests,
)

BACKENDS = {
    "cuda": "progress.gpu.cuda:CudaBackend",
    "wgpu": "progress.gpu.wgpu_backend:WgpuBackend",
    "cpu": "progress.gpu.cpu:CpuBackend",
}
"""Each --backend name and its class ("module:class"), imported only when chosen."""
INTERPRETERS = {"cuda": "progress.gpu.cuda:CudaInterp", "wgpu": "progress.gpu.wgpu_interp:WgpuInterp"}
"""The backends with an interpreter (`--codegen interp`) and its class."""
DEFAULT_INTERP = {"cuda", "wgpu"}
"""The backends whose default codegen is the interpreter (the others: per-test)."""
MAX_PACK = 2**31 - 1


@click.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--keys",
    "keys_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Run the tests of a keys file (progress synth --save-keys) instead of PATHS, keyed as its export names them.",
)
@click.option(
    "--only",
    "only_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Run only the tests whose keys this file lists, one per line (e.g. the failures of an earlier run, "
    "to rerun them).",
)
@click.option(
    "--codegen",
    type=click.Choice(["interp", "per-test"]),
    default=None,
    help="interp: one interpreter kernel, many tests per launch (default where the backend has one: cuda, wgpu); "
    "per-test: a generated kernel per test, one test per launch.",
)
@click.option(
    "--scope",
    type=click.Choice(["workgroup", "lane"]),
    default="workgroup",
    show_default=True,
    help="workgroup: one test thread per workgroup (the paper's inter-workgroup runs); lane: a test's threads "
    "as the lanes of one subgroup of one workgroup (its intra-warp runs; cuda or wgpu, --codegen per-test; "
    "docs/gpu.md).",
)
@click.option(
    "--cuda-arch",
    default=None,
    metavar="ARCH",
    help="cuda: NVRTC's target instead of the device's own, e.g. compute_60 (pre-Volta: no independent "
    "thread scheduling, the paper's SIMT build).",
)
@click.option(
    "--stop-early",
    is_flag=True,
    help="interp: stop a test under a heuristic once it both passed and failed (its class, F (k/n), "
    "cannot change); the cell's n says how many iterations ran.",
)
@click.option(
    "--pack",
    "pack_text",
    default="auto",
    show_default=True,
    help="interp: the most workgroups of one launch, as many tests as fit (auto: the backend's choice); "
    "1: one test per launch (what rr's livelocks need; docs/gpu.md, Test power).",
)
@click.option(
    "--backend",
    type=click.Choice(list(BACKENDS)),
    default="cuda",
    show_default=True,
    help="cuda: kernels on the GPU through CuPy; wgpu: WGSL shaders through Vulkan, Metal or D3D12; "
    "cpu: generated C on POSIX threads.",
)
@click.option(
    "--adapter",
    default=None,
    help="wgpu only: the adapter whose description contains these words (default: the high-performance one).",
)
@click.option(
    "--heuristics",
    "heuristics_text",
    default="plain,rr,chunked",
    show_default=True,
    help="Comma-separated launch heuristics.",
)
@click.option(
    "--iterations",
    type=click.IntRange(min=1, max=MAX_ITERATIONS),
    default=20,
    show_default=True,
    help=f"Launches per test and heuristic (1 to {MAX_ITERATIONS}).",
)
@click.option(
    "--deadline",
    "deadline_text",
    default="50ms",
    show_default=True,
    help="Per-launch time budget with its unit (1s, 300ms, 20us; 1us to 1h); a spinning thread past it "
    "times out. 50ms: chosen from the H200 deadline sweep (docs/results/gpu/report.md).",
)
@click.option(
    "--instances",
    "instances_text",
    default="auto",
    show_default=True,
    help="Instances M for rr/chunked: auto (cuda and wgpu floor(65532/N), a CPU wgpu adapter floor(64/N), "
    "cpu floor(16/N)) or a number; "
    "N*M must fit one launch of the backend.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("results.csv"),
    show_default=True,
    help="Results CSV; metadata goes to .json and detail to .jsonl beside it.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Keep the rows already in the CSV and run only the missing tests (same inputs and options only).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing results CSV.")
@click.option("--workgroups", metavar="N", help="Kernels: dispatch N workgroups (default: the header's, else 1).")
@click.option("--buffer", "buffers", multiple=True, metavar="NAME=LEN", help="Kernels: a runtime array's length.")
@click.option("--init", "inits", multiple=True, metavar="NAME[i]=V", help="Kernels: a buffer cell's initial value.")
@click.option("--entry", metavar="NAME", help="Kernels: the compute entry point (default: the first).")
@click.option(
    "--shapes",
    "shapes_text",
    default="alone,occupied,reverse,interleave",
    show_default=True,
    help="Kernels: launch shapes (docs/gpu.md, Running a kernel).",
)
@click.option(
    "--check/--no-check",
    "check_kernels",
    default=True,
    show_default=True,
    help="Kernels: check each kernel under every model first (--no-check for launches too large to check).",
)
@click.option(
    "--occupy",
    default="auto",
    show_default=True,
    help="Kernels: occupying workgroups of the occupied shape (auto: 4223 on a GPU, lavapipe's threads - 1).",
)
@click.option(
    "--leave",
    type=click.Choice(["return", "break"]),
    default="return",
    show_default=True,
    help="Kernels: how a timed-out invocation leaves: return, or break out of its loop "
    "(the module the WebGPU page runs: WGSL's uniformity rule; docs/gpu.md).",
)
@constant_options
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    callback=lambda ctx, param, value: usable_database(value),
    help="Also record the finished run in this results database (docs/devices.md).",
)
def run(
    paths,
    keys_path,
    only_path,
    codegen,
    scope,
    cuda_arch,
    stop_early,
    pack_text,
    backend,
    adapter,
    heuristics_text,
    iterations,
    deadline_text,
    instances_text,
    output,
    resume,
    force,
    db,
    workgroups,
    buffers,
    inits,
    entry,
    shapes_text,
    occupy,
    check_kernels,
    leave,
    specs,
    pushes,
    local_size,
    subgroup_size,
):
    """Run each test under each heuristic and record P or F (k/N).

    PATHS are .axb files, directories or @LIST files; a test's key in the CSV
    is its path relative to the directory named (or to the @LIST's directory),
    else the path as given. Two different tests with the same key are refused.
    Rows are written as they complete, so an interrupted run keeps its rows.
    An existing CSV is refused unless --resume (continue it) or --force.

    Exit status: 0 the run completed (whatever the tests did), 2 bad input or
    no usable backend, 3 the host's wall-clock guard stopped a launch,
    130/143 interrupted by SIGINT/SIGTERM (the rows written are kept).
    """
    if resume and force:
        raise UsageError("--resume keeps the results and --force overwrites them: give one")
    from progress.cli import kernel_run

    if kernel_run.is_kernel_run(list(paths)):
        _run_kernels(
            list(paths),
            backend,
            adapter,
            iterations,
            deadline_text,
            output,
            force,
            workgroups,
            buffers,
            inits,
            specs,
            pushes,
            local_size,
            leave,
            entry,
            shapes_text,
            occupy,
            check_kernels,
            subgroup_size,
        )
        return
    settings = _settings(heuristics_text, iterations, deadline_text, instances_text)
    codegen = _codegen(codegen, backend, stop_early, scope)
    if adapter is not None and backend != "wgpu":
        raise UsageError("--adapter applies to --backend wgpu only")
    if cuda_arch is not None and backend != "cuda":
        raise UsageError("--cuda-arch applies to --backend cuda only")
    pack = _pack_option(pack_text, codegen)
    tests, inputs, files = _tests(list(paths), keys_path)
    if only_path is not None:
        tests, inputs = selected(tests, inputs, only_path)
    engine = _backend(backend, adapter, settings, codegen, scope, cuda_arch)
    if scope == "lane":
        lanes = getattr(engine, "lanes", 32)
        wide = next((key for key, program in tests if len(program.threads) > lanes), None)
        if wide is not None:
            raise UsageError(
                f"--scope lane: {wide} has {len(dict(tests)[wide].threads)} threads, more than the {lanes} lanes "
                f"of a subgroup on this {engine.name} device"
            )
    limit = _pack_limit(engine, pack) if codegen == "interp" else 0
    try:
        check_launches(engine, [program for _, program in tests], settings)
    except ValueError as error:
        raise UsageError(str(error)) from None
    run_options = {"codegen": codegen, "stop_early": stop_early, "pack": pack if pack is not None else "auto"}
    if scope != "workgroup":
        run_options["scope"] = scope
    if codegen == "interp":
        run_options["layouts"] = dict(layouts(engine))
    done = _resumable(output, settings, engine.name, inputs, run_options) if resume else _fresh(output, force)
    todo = [(key, program) for key, program in tests if key not in done]
    words = list(encoded(todo, files)) if codegen == "interp" else []
    if codegen == "interp":
        _check_packs(engine, words, settings, limit)
    _compile(engine, [program for _, program in todo])
    meta = results.metadata(engine.metadata(), settings, len(tests), list(paths) or [str(keys_path)])
    meta.update(inputs=inputs, **run_options)
    if only_path is not None:
        meta["only"] = str(only_path)
    if codegen == "interp":
        meta["pack_workgroups"] = limit
        meta["packing"] = (
            "tests of one thread count, as many as fit pack_workgroups under the largest launch, run K at a time "
            "in one launch, laid out as layouts says: concat, packed workgroup g runs workgroup g mod W of test "
            "g div W (W = one test's workgroups); interleave, workgroup g div K of test g mod K (docs/gpu.md, Packing)"
        )
    if stop_early:
        meta["stop_early_rule"] = STOP_EARLY_RULE
    started = time.monotonic()
    meta["started"] = datetime.now(UTC).isoformat(timespec="seconds")
    _write_json(output.with_suffix(".json"), {**meta, "complete": False})
    outcomes = (
        run_packed(engine, words, settings, limit, stop_early)
        if codegen == "interp"
        else run_tests(engine, [p for _, p in todo], settings)
    )
    all_rows = {**done, **_drive(outcomes, todo, settings, output, append=bool(done))}
    meta.update(engine.metadata())  # what the run measured: calibrations, budgets, cut loops
    meta.update(
        complete=True,
        elapsed_s=round(time.monotonic() - started, 1),
        failed_tests=results.summary(settings.heuristics, all_rows),
    )
    _write_json(output.with_suffix(".json"), meta)
    if db is not None:
        run_id, new = record_run(db, meta, all_rows, tests, str(output))
        click.echo(f"run {run_id} in {db}" + ("" if new else " (already there)"), err=True)
    fails = ", ".join(f"{h} {n}" for h, n in meta["failed_tests"].items())
    click.echo(
        f"{len(all_rows)} tests ({len(todo)} run now) in {meta['elapsed_s']} s; failed: {fails}; results in {output}",
        err=True,
    )


def _run_kernels(paths, backend, adapter, iterations, deadline_text, output, force, *kernel_options) -> None:
    """`progress run KERNEL...` (progress/cli/kernel_run.py)."""
    from progress.cli.kernel import given_settings
    from progress.cli.kernel_run import refuse_backend, run_kernels
    from progress.gpu.kernel_run import parse_shapes

    workgroups, buffers, inits, specs, pushes, local_size, leave, entry, shapes_text, occupy, check, subgroup = (
        kernel_options
    )
    refuse_backend(backend)
    try:
        deadline_s = parse_duration(deadline_text)
        shapes = parse_shapes(shapes_text)
    except ValueError as error:
        raise UsageError(str(error)) from None
    from progress.front.header import DEVICE_WORKGROUPS

    given = given_settings(
        workgroups,
        buffers,
        inits,
        entry,
        False,
        specs,
        pushes,
        local_size,
        workgroup_limit=None if check else DEVICE_WORKGROUPS,
        subgroup_size=subgroup,
    )
    run_kernels(paths, given, shapes, iterations, deadline_s, occupy, adapter, output, force, check, leave)


def _settings(heuristics_text, iterations, deadline_text, instances_text) -> Settings:
    """The options as Settings; a value out of its range is a UsageError naming it."""
    try:
        heuristics = parse_heuristics(heuristics_text)
    except ValueError as error:
        raise UsageError(f"--heuristics: {error}") from None
    try:
        deadline = parse_duration(deadline_text)
    except ValueError as error:
        raise UsageError(f"--deadline: {error}") from None
    try:
        settings = Settings(heuristics, iterations, deadline, parse_instances(instances_text))
        check_settings(settings)
    except ValueError as error:
        raise UsageError(str(error)) from None
    return settings


def _codegen(codegen: str | None, backend: str, stop_early: bool, scope: str = "workgroup") -> str:
    """The codegen to use: the interpreter where the backend has one, unless told
    (per-test at the lane scope, which the cuda and wgpu backends' generated kernels have)."""
    if scope == "lane":
        if backend not in ("cuda", "wgpu"):
            raise UsageError(f"--scope lane runs on --backend cuda or wgpu (not on {backend})")
        if codegen == "interp" or stop_early:
            raise UsageError("--scope lane runs generated kernels: --codegen per-test, without --stop-early")
        return "per-test"
    chosen = codegen or ("interp" if backend in DEFAULT_INTERP else "per-test")
    if chosen == "interp" and backend not in INTERPRETERS:
        raise UsageError(
            f"--codegen interp: the {backend} backend has no interpreter "
            f"(it has: {', '.join(INTERPRETERS)}); use --codegen per-test"
        )
    if stop_early and chosen != "interp":
        raise UsageError("--stop-early needs --codegen interp")
    return chosen


def _pack_option(text: str, codegen: str) -> int | None:
    """--pack: None (auto) or the most workgroups of a packed launch."""
    raw = text.strip()
    if raw == "auto":
        return None
    if codegen != "interp":
        raise UsageError("--pack applies to --codegen interp only")
    if not raw.isdigit() or len(raw) > 12 or not 1 <= int(raw) <= MAX_PACK:
        raise UsageError(f"--pack takes auto or a number of workgroups from 1 to {MAX_PACK}, not {text!r}")
    return int(raw)


def _pack_limit(engine, pack: int | None) -> int:
    """The workgroups of one packed launch: --pack, at most what the device launches."""
    if pack is None:
        return min(engine.pack_workgroups, engine.max_workgroups)
    if pack > engine.max_workgroups:
        raise UsageError(
            f"--pack {pack}: the {engine.name} backend launches at most {engine.max_workgroups} workgroups at once"
        )
    return pack


def _check_packs(engine, words, settings: Settings, limit: int) -> None:
    """Every pack fits one launch and the device's memory, before anything runs."""
    from progress.gpu.pack import memory_bytes
    from progress.gpu.packed import instances

    try:
        batches = plan(engine, words, settings, limit)
    except ValueError as error:
        raise UsageError(f"--pack {limit}: {error}; give a larger --pack or fewer --instances") from None
    budget: int = getattr(engine, "memory_limit", 0)
    for batch in batches if budget else ():
        chosen = [words[i] for i in batch]
        need = memory_bytes(chosen, instances(engine, settings, chosen[0].threads))
        if need > budget:
            raise UsageError(
                f"--pack {limit}: a pack of {len(chosen)} tests needs {need} bytes of device memory, more than the "
                f"{budget} this run allows itself (half the device's); give a smaller --pack or fewer --instances"
            )


def _tests(paths: list[str], keys_path: Path | None) -> tuple[list[tuple[str, Program]], str, dict[str, Path]]:
    """(key, program) per test, the inputs' digest, and each key's file (none for keys files)."""
    if keys_path is not None:
        if paths:
            raise UsageError("give PATHS or --keys, not both")
        tests, inputs = keyed_tests(keys_path)
        return tests, inputs, {}
    if not paths:
        raise UsageError("no tests: give PATHS (.axb files, directories, @LISTs) or --keys FILE")
    keyed = _keyed_paths(paths)
    tests = [(key, load(path)) for key, path in keyed]
    return tests, _fingerprint(tests), dict(keyed)


def _keyed_paths(paths: list[str]) -> list[tuple[str, Path]]:
    """(key, file) per test: keys relative to a named directory (or @LIST's
    directory), else the path. A file named twice runs once; two different
    files with one key are a UsageError (one would silently not run)."""
    keyed: dict[str, Path] = {}
    seen: set[str] = set()
    for raw in paths:
        base = Path(raw[1:]).parent if raw.startswith("@") else Path(raw) if Path(raw).is_dir() else None
        for path in expand([raw]):
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            key = path.relative_to(base).as_posix() if base else path.as_posix()
            if key in keyed:
                raise UsageError(
                    f"two tests would have the key {key}: {keyed[key]} and {path} (keys are relative to the "
                    "directory named); name their common directory instead, or run them into separate CSVs"
                )
            keyed[key] = path
    return list(keyed.items())


def _fingerprint(tests: list[tuple[str, Program]]) -> str:
    """A digest of the keys and programs run (in key order, so naming the inputs
    in another order is the same run), so --resume can tell another run's CSV."""
    digest = hashlib.sha256()
    for key, program in sorted(tests, key=lambda test: test[0]):
        digest.update(f"{key}\0{program.to_axb()}\0".encode())
    return digest.hexdigest()[:32]


def _fresh(output: Path, force: bool) -> dict[str, dict[str, str]]:
    """Nothing done yet. Unless --force, an existing results CSV, metadata or
    detail file is kept (refused), and so is a symbolic link in any of their
    places (writing through one planted in a shared directory would
    overwrite whatever it points to)."""
    if force:
        return {}
    for path in (output, output.with_suffix(".json"), output.with_suffix(".jsonl")):
        if path.is_symlink() or path.is_file():
            raise UsageError(
                f"{path} exists: pass --resume to continue that run, --force to overwrite it, or choose another -o"
            )
    return {}


def _resumable(
    output: Path, settings: Settings, backend: str, inputs: str, run_options: dict
) -> dict[str, dict[str, str]]:
    """The tests already in `output`, after checking it was written by a run of
    the same inputs, options and backend (its .json metadata says so). A last
    line without its newline (the run was killed while writing it) is dropped
    from the file: that test runs again."""
    if not output.exists():
        return {}
    text = read_text(output)
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
        with open(output, "r+b") as file:
            file.truncate(len(text.encode("utf-8")))
    try:
        heuristics, rows = results.parse_csv(text)
    except ValueError as error:
        raise UsageError(f"cannot resume from {output}: {error}") from None
    meta_path = output.with_suffix(".json")
    try:
        meta = json.loads(read_text(meta_path))
    except (InputError, ValueError):
        raise UsageError(
            f"--resume: cannot tell which run wrote {output} ({meta_path} is missing or not JSON); "
            "run again with --force to overwrite it"
        ) from None
    wanted = {
        "backend": backend,
        "heuristics": list(settings.heuristics),
        "iterations": settings.iterations,
        "deadline_s": settings.deadline_s,
        "instances": settings.instances if settings.instances is not None else "auto",
        "inputs": inputs,
        **run_options,
    }
    stored = {"layouts": dict(LAYOUTS), **meta} if isinstance(meta, dict) else {}  # runs before CPU_LAYOUTS
    differ = [f"{k}={stored.get(k)} (not {v})" for k, v in wanted.items() if stored.get(k) != v]
    if heuristics != settings.heuristics:
        differ.insert(0, f"CSV heuristics {','.join(heuristics)} (not {','.join(settings.heuristics)})")
    if differ:
        raise UsageError(f"--resume: {output} holds another run: {'; '.join(dict.fromkeys(differ))}")
    return rows


def _compile(engine, programs: list[Program]) -> None:
    """`engine.prepare`, with a progress line while it compiles."""
    if not programs:
        engine.prepare(programs)
        return
    with _progress() as bar:
        task = bar.add_task(f"compiling {len(programs)} test{'s' * (len(programs) != 1)}", total=len(programs))
        engine.prepare(programs, progress=lambda done: bar.update(task, completed=done))


def _backend(name: str, adapter: str | None, settings: Settings, codegen: str, scope: str = "workgroup", arch=None):
    """The chosen backend, constructed (it raises BackendUnavailable when it cannot run here).
    wgpu also takes the adapter and the settings (it calibrates for the launches they need);
    cuda's generated kernels the scope and the NVRTC target."""
    module, attribute = (INTERPRETERS if codegen == "interp" else BACKENDS)[name].split(":")
    kind = getattr(importlib.import_module(module), attribute)
    if name == "wgpu":
        return kind(adapter, settings, scope=scope) if codegen == "per-test" else kind(adapter, settings)
    if name == "cuda" and codegen == "per-test":
        return kind(scope=scope, arch=arch)
    if arch is not None:
        raise UsageError("--cuda-arch applies to --codegen per-test")
    return kind()


def _drive(outcomes, todo, settings: Settings, output: Path, append: bool) -> dict[str, dict[str, str]]:
    """Write each test's row and details as its outcomes arrive (every
    heuristic of a test together, in `outcomes`' order); the rows run,
    {key: {heuristic: cell}}."""
    done: dict[str, dict[str, str]] = {}
    per_test = len(settings.heuristics)
    with ExitStack() as stack:
        table = stack.enter_context(LineWriter(output, append))
        detail = stack.enter_context(LineWriter(output.with_suffix(".jsonl"), append))
        bar = stack.enter_context(_progress(tests_rate=True))
        task = bar.add_task("running", total=len(todo))
        if not append:
            table.write(results.header(settings.heuristics))  # an interrupted run keeps at least the header
        cells: list[str] = []
        for index, heuristic, outcome in outcomes:
            key = todo[index][0]
            detail.write(json.dumps(results.detail(key, heuristic, outcome), separators=(",", ":")) + "\n")
            cells.append(results.cell(outcome))
            if len(cells) == per_test:
                table.write(results.row(key, cells))
                done[key] = dict(zip(settings.heuristics, cells))
                cells = []
                bar.update(task, advance=1, description=escape(printable(key, newlines=False)))
    return done


class TestsPerSecond(ProgressColumn):
    """Tests (every heuristic done) per second so far."""

    def render(self, task) -> Text:
        elapsed = task.elapsed or 0.0
        rate = task.completed / elapsed if elapsed > 0 else 0.0
        return Text(f"{rate:,.1f} tests/s")


def _progress(tests_rate: bool = False) -> Progress:
    columns = [
        TextColumn("{task.description:<28}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    ]
    if tests_rate:
        columns.append(TestsPerSecond())
    return Progress(*columns, console=Console(stderr=True))


def _write_json(path: Path, data: dict) -> None:
    write_file(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
