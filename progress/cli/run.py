"""`progress run`: run tests on a GPU (or on CPU threads) under the launch heuristics."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..errors import UsageError
from ..gpu import results
from ..gpu.runner import Settings, parse_duration, parse_heuristics, run_tests
from .inputs import expand, load, read_text
from .outputs import write_file


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--backend",
    type=click.Choice(["cuda", "cpu"]),
    default="cuda",
    show_default=True,
    help="cuda: kernels on the GPU through CuPy; cpu: generated C on POSIX threads.",
)
@click.option(
    "--heuristics",
    "heuristics_text",
    default="plain,rr,chunked",
    show_default=True,
    help="Comma-separated launch heuristics.",
)
@click.option("--iterations", type=click.IntRange(min=1), default=20, show_default=True)
@click.option(
    "--deadline",
    "deadline_text",
    default="50ms",
    show_default=True,
    help="Per-launch time budget (e.g. 1s, 300ms); a spinning thread past it times out. "
    "50ms: chosen from the H200 deadline sweep (docs/results/gpu/report.md).",
)
@click.option(
    "--instances",
    "instances_text",
    default="auto",
    show_default=True,
    help="Instances M for rr/chunked: auto (cuda floor(65532/N), cpu floor(16/N)) or a number.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("results.csv"),
    show_default=True,
    help="Results CSV; metadata goes to .json and detail to .jsonl beside it.",
)
@click.option("--resume", is_flag=True, help="Keep the rows already in the CSV and run only the missing tests.")
def run(paths, backend, heuristics_text, iterations, deadline_text, instances_text, output, resume):
    """Run each test under each heuristic and record P or F (k/N).

    PATHS are .axb files, directories or @LIST files; a test's key in the CSV
    is its path relative to the directory named (or to the @LIST's directory),
    else the path as given.
    Rows are written as they complete, so an interrupted run keeps its rows.

    Exit status: 0 the run completed (whatever the tests did), 2 bad input or
    no usable backend, 3 the host's wall-clock guard stopped a launch.
    """
    settings = _settings(heuristics_text, iterations, deadline_text, instances_text)
    keyed = _keyed_paths(list(paths))
    done = _resumable(output, settings) if resume else set()
    todo = [(key, load(path)) for key, path in keyed if key not in done]
    engine = _backend(backend)
    engine.prepare([program for _, program in todo])
    meta = results.metadata(engine.metadata(), settings, len(keyed), list(paths))
    started = time.monotonic()
    meta["started"] = datetime.now(UTC).isoformat(timespec="seconds")
    _write_json(output.with_suffix(".json"), {**meta, "complete": False})
    rows = _drive(engine, todo, settings, output, append=bool(done))
    _, all_rows = results.parse_csv(read_text(output))
    meta.update(
        complete=True,
        elapsed_s=round(time.monotonic() - started, 1),
        failed_tests=results.summary(settings.heuristics, all_rows),
    )
    _write_json(output.with_suffix(".json"), meta)
    fails = ", ".join(f"{h} {n}" for h, n in meta["failed_tests"].items())
    click.echo(
        f"{len(all_rows)} tests ({rows} run now) in {meta['elapsed_s']} s; failed: {fails}; results in {output}",
        err=True,
    )


def _settings(heuristics_text, iterations, deadline_text, instances_text) -> Settings:
    try:
        heuristics = parse_heuristics(heuristics_text)
        deadline = parse_duration(deadline_text)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if instances_text == "auto":
        instances = None
    elif instances_text.isdigit() and int(instances_text) > 0:
        instances = int(instances_text)
    else:
        raise UsageError(f"--instances takes auto or a positive number, not {instances_text!r}")
    return Settings(heuristics, iterations, deadline, instances)


def _keyed_paths(paths: list[str]) -> list[tuple[str, Path]]:
    """(key, file) per test: keys relative to a named directory, else the path."""
    keyed: dict[str, Path] = {}
    for raw in paths:
        base = Path(raw[1:]).parent if raw.startswith("@") else Path(raw) if Path(raw).is_dir() else None
        for path in expand([raw]):
            key = path.relative_to(base).as_posix() if base else path.as_posix()
            keyed.setdefault(key, path)
    return list(keyed.items())


def _resumable(output: Path, settings: Settings) -> set[str]:
    if not output.exists():
        return set()
    try:
        heuristics, rows = results.parse_csv(read_text(output))
    except ValueError as error:
        raise UsageError(f"cannot resume from {output}: {error}") from None
    if heuristics != settings.heuristics:
        raise UsageError(f"cannot resume: {output} has heuristics {','.join(heuristics)}")
    return set(rows)


def _backend(name: str):
    if name == "cpu":
        from ..gpu.cpu import CpuBackend

        return CpuBackend()
    from ..gpu.cuda import CudaBackend

    return CudaBackend()


def _drive(engine, todo, settings: Settings, output: Path, append: bool) -> int:
    """Run everything, writing each test's row and details as they complete."""
    per_test = len(settings.heuristics)
    with ExitStack() as stack:
        table = stack.enter_context(output.open("a" if append else "w", encoding="utf-8", newline=""))
        detail = stack.enter_context(output.with_suffix(".jsonl").open("a" if append else "w", encoding="utf-8"))
        bar = stack.enter_context(_progress())
        task = bar.add_task("running", total=len(todo) * per_test)
        if not append:
            table.write(results.header(settings.heuristics))
        cells: list[str] = []
        for index, heuristic, outcome in run_tests(engine, [p for _, p in todo], settings):
            key = todo[index][0]
            detail.write(json.dumps(results.detail(key, heuristic, outcome), separators=(",", ":")) + "\n")
            detail.flush()
            cells.append(results.cell(outcome))
            bar.update(task, advance=1, description=f"{key} {heuristic}")
            if len(cells) == per_test:
                table.write(results.row(key, cells))
                table.flush()
                cells = []
    return len(todo)


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
