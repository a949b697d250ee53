"""`progress synth`: exhaustive synthesis of the tests wanted by SPEC section 6."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from ..errors import EXIT_INCONCLUSIVE, EXIT_OK, UsageError
from ..synth import export
from ..synth.driver import DEFAULT_ENGINE, Outcome, Settings, StopReason, open_run, space_summary, synthesize
from ..synth.space import UNIT_SIZE, Bounds
from ..synth.store import Store
from ..synth.work import ENGINES
from .outputs import writing

EXIT_INTERRUPTED = 130


@click.command()
@click.option("--threads", "-t", type=click.IntRange(min=1), required=True, help="Number of threads T.")
@click.option(
    "--instructions",
    "-i",
    type=click.IntRange(min=1),
    required=True,
    help="Instructions in total, I (each thread has at least one).",
)
@click.option("--locations", type=click.IntRange(min=1), default=2, show_default=True, help="At most L locations.")
@click.option("--values", type=click.IntRange(min=2), default=2, show_default=True, help="Values 0..V-1.")
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default=DEFAULT_ENGINE,
    show_default=True,
    help="enum: explicit LTS per candidate; z3: the whole problem in Z3.",
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False),
    default=None,
    help="The run's SQLite file [default: synth-<T>t<I>i.db].",
)
@click.option(
    "--export",
    "export_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Write the tests as DIR/<T>t<I>i/<n>.axb (+ verdicts.csv).",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop after this many seconds (resume later with --resume).",
)
@click.option("--resume", is_flag=True, help="Continue the run stored in --out.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes (a Dask LocalCluster when more than 1).",
)
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Use this Dask scheduler instead.")
@click.option("--throttle", type=click.FloatRange(min=0), default=0.0, hidden=True)
@click.option("--unit-size", type=click.IntRange(min=1), default=UNIT_SIZE, hidden=True)
def synth(
    threads,
    instructions,
    locations,
    values,
    engine,
    out,
    export_dir,
    time_limit,
    resume,
    workers,
    scheduler,
    throttle,
    unit_size,
):
    """Find every test within the bounds that meets SPEC section 6, one per
    location-renaming class, classify it under every model, and prove that
    no other exists (or say how much was covered).

    Exit status: 0 complete, 2 bad usage, 3 stopped at the time limit,
    130 interrupted.
    """
    if instructions < threads:
        raise UsageError(f"--instructions {instructions} < --threads {threads}: every thread needs one")
    bounds = Bounds(threads, instructions, locations, values)
    settings = Settings(bounds, engine, time_limit, workers, scheduler, throttle, unit_size)
    path = Path(out or f"synth-{bounds.label}.db")
    with _open_store(path) as store:
        open_run(store, settings, resume)
        started = time.monotonic()
        outcome = _run_reaching_scheduler(store, settings)
        elapsed = store.params().get("elapsed", 0.0) + time.monotonic() - started
        store.set_params({"elapsed": round(elapsed, 3)})
        tests = store.tests()
    click.echo(_summary(outcome, bounds, path, tests, elapsed))
    if export_dir:
        written = _write_export(Path(export_dir), export.files(tests, bounds))
        click.echo(f"exported {written} test(s) to {Path(export_dir) / bounds.label}")
    raise SystemExit(
        {
            StopReason.EXHAUSTED: EXIT_OK,
            StopReason.TIME_LIMIT: EXIT_INCONCLUSIVE,
            StopReason.INTERRUPTED: EXIT_INTERRUPTED,
        }[outcome.stop]
    )


def _run_reaching_scheduler(store: Store, settings: Settings) -> Outcome:
    """The run; with --scheduler, an address Dask cannot parse or reach is a
    usage error (what was done is kept for --resume), not a traceback."""
    if not settings.scheduler:
        return _run_with_progress(store, settings)
    try:
        return _run_with_progress(store, settings)
    except (OSError, ValueError) as error:
        raise UsageError(
            f"--scheduler {settings.scheduler}: {error} (the run in {store.path} is kept: continue it with --resume)"
        ) from None


def _run_with_progress(store: Store, settings: Settings) -> Outcome:
    console = Console(stderr=True)
    if not console.is_terminal:
        return synthesize(store, settings, _plain_reporter())
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn(
            "{task.percentage:>3.0f}%  {task.fields[found]} tests, {task.fields[judged]} judged, "
            "{task.fields[rate]:.0f}/s"
        ),
        TimeRemainingColumn(),
    ]
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(f"synth {settings.bounds.label}", total=None, found=0, judged=0, rate=0.0)

        def show(p):
            bar.update(
                task, total=p.candidates_total, completed=p.candidates_done, found=p.found, judged=p.judged, rate=p.rate
            )

        return synthesize(store, settings, show)


def _plain_reporter():
    """Progress lines on stderr, at most one a second, when stderr is not a terminal."""
    last = [0.0]

    def show(p):
        now = time.monotonic()
        if now - last[0] < 1.0 and p.units_done < p.units_total:
            return
        last[0] = now
        eta = "?" if p.eta is None else f"{p.eta:.0f}s"
        click.echo(
            f"progress: {p.candidates_done}/{p.candidates_total} candidates covered, {p.judged} judged, "
            f"{p.found} tests, {p.rate:.0f}/s, ETA {eta}",
            err=True,
        )

    return show


def _summary(outcome: Outcome, bounds: Bounds, path: Path, tests, elapsed: float) -> str:
    p = outcome.progress
    sizes = space_summary(bounds, outcome.params.get("unit_size", UNIT_SIZE))
    lines = [
        f"synth {bounds.label}: {bounds.threads} threads, {bounds.instructions} instructions, "
        f"<= {bounds.locations} locations, values 0..{bounds.values - 1}; engine {outcome.params['engine']}",
        f"space: {sizes['programs']} programs meeting constraint 4, {sizes['canonical']} up to renaming "
        f"locations, {sizes['after_static_pruning']} left after static pruning",
        f"{_judged(outcome.params['engine'], p.judged)}; tests found: {len(tests)}; time: {elapsed:.2f} s; "
        f"stored in {path}",
    ]
    covered = f"{p.candidates_done} of {p.candidates_total} candidates ({_percent(p)})"
    lines.append(
        {
            StopReason.EXHAUSTED: "complete: no other test exists within these bounds",
            StopReason.TIME_LIMIT: f"stopped at the time limit: covered {covered}; continue with --resume",
            StopReason.INTERRUPTED: f"interrupted: covered {covered}; continue with --resume",
        }[outcome.stop]
    )
    lines += _table(tests)
    return "\n".join(lines)


def _judged(engine: str, count: int) -> str:
    if engine == "z3":
        return f"solver answers: {count} (one per test, one unsat per partition)"
    return f"judged: {count} candidates"


def _percent(p) -> str:
    return f"{100.0 * p.candidates_done / p.candidates_total:.1f}%" if p.candidates_total else "100%"


def _table(tests) -> list[str]:
    if not tests:
        return []
    labels = [label for label, _ in tests[0].verdicts]
    width = max(len(label) for label in labels)
    lines = [f"{'verdict':<{width}}  {'P':>6}  {'F':>6}"]
    for index, label in enumerate(labels):
        passes = sum(1 for t in tests if t.verdicts[index][1] == "P")
        fails = sum(1 for t in tests if t.verdicts[index][1] == "F")
        lines.append(f"{label:<{width}}  {passes:>6}  {fails:>6}")
    return lines


def _open_store(path: Path) -> Store:
    """The run's database, its directory made; a file that cannot be one is a usage error."""
    with writing(path):
        try:
            return Store(path)
        except sqlite3.Error as error:
            raise UsageError(f"cannot use {path} as the run's database: {error}") from None


def _write_export(root: Path, files: list[tuple[str, str]]) -> int:
    """Write the files; remove numbered .axb files left by an earlier, larger export."""
    written = {root / name for name, _ in files}
    with writing(root):
        for target in sorted({path.parent for path in written}):
            target.mkdir(parents=True, exist_ok=True)
            for stale in target.glob("*.axb"):
                if re.fullmatch(r"\d+\.axb", stale.name) and stale not in written:
                    stale.unlink()
        for name, text in files:
            (root / name).write_text(text, encoding="utf-8")
    return len(files) - 1
