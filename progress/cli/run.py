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
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from progress.cli.inputs import expand, load, read_text
from progress.cli.outputs import LineWriter, write_file
from progress.core.program import Program
from progress.errors import InputError, UsageError, printable
from progress.gpu import results
from progress.gpu.database import record_run, usable_database
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


@click.command()
@click.argument("paths", nargs=-1, required=True)
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
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    callback=lambda ctx, param, value: usable_database(value),
    help="Also record the finished run in this results database (docs/devices.md).",
)
def run(paths, backend, adapter, heuristics_text, iterations, deadline_text, instances_text, output, resume, force, db):
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
    settings = _settings(heuristics_text, iterations, deadline_text, instances_text)
    keyed = _keyed_paths(list(paths))
    tests = [(key, load(path)) for key, path in keyed]
    inputs = _fingerprint(tests)
    if adapter is not None and backend != "wgpu":
        raise UsageError("--adapter applies to --backend wgpu only")
    engine = _backend(backend, adapter, settings)
    try:
        check_launches(engine, [program for _, program in tests], settings)
    except ValueError as error:
        raise UsageError(str(error)) from None
    done = _resumable(output, settings, engine.name, inputs) if resume else _fresh(output, force)
    todo = [(key, program) for key, program in tests if key not in done]
    _compile(engine, [program for _, program in todo])
    meta = results.metadata(engine.metadata(), settings, len(keyed), list(paths))
    meta["inputs"] = inputs
    started = time.monotonic()
    meta["started"] = datetime.now(UTC).isoformat(timespec="seconds")
    _write_json(output.with_suffix(".json"), {**meta, "complete": False})
    all_rows = {**done, **_drive(engine, todo, settings, output, append=bool(done))}
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


def _resumable(output: Path, settings: Settings, backend: str, inputs: str) -> dict[str, dict[str, str]]:
    """The tests already in `output`, after checking it was written by a run of
    the same inputs, options and backend (its .json metadata says so)."""
    if not output.exists():
        return {}
    try:
        heuristics, rows = results.parse_csv(read_text(output))
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
    }
    stored = meta if isinstance(meta, dict) else {}
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


def _backend(name: str, adapter: str | None, settings: Settings):
    """The chosen backend, constructed (it raises BackendUnavailable when it cannot run here).
    wgpu also takes the adapter and the settings (it calibrates for the launches they need)."""
    module, attribute = BACKENDS[name].split(":")
    kind = getattr(importlib.import_module(module), attribute)
    return kind(adapter, settings) if name == "wgpu" else kind()


def _drive(engine, todo, settings: Settings, output: Path, append: bool) -> dict[str, dict[str, str]]:
    """Run everything, writing each test's row and details as they complete;
    the rows run, {key: {heuristic: cell}}."""
    done: dict[str, dict[str, str]] = {}
    per_test = len(settings.heuristics)
    with ExitStack() as stack:
        table = stack.enter_context(LineWriter(output, append))
        detail = stack.enter_context(LineWriter(output.with_suffix(".jsonl"), append))
        bar = stack.enter_context(_progress())
        task = bar.add_task("running", total=len(todo) * per_test)
        if not append:
            table.write(results.header(settings.heuristics))  # an interrupted run keeps at least the header
        cells: list[str] = []
        for index, heuristic, outcome in run_tests(engine, [p for _, p in todo], settings):
            key = todo[index][0]
            detail.write(json.dumps(results.detail(key, heuristic, outcome), separators=(",", ":")) + "\n")
            cells.append(results.cell(outcome))
            bar.update(task, advance=1, description=escape(printable(f"{key} {heuristic}", newlines=False)))
            if len(cells) == per_test:
                table.write(results.row(key, cells))
                done[key] = dict(zip(settings.heuristics, cells))
                cells = []
    return done


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description:<28}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )


def _write_json(path: Path, data: dict) -> None:
    write_file(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
