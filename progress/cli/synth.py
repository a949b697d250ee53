"""`progress synth`: exhaustive synthesis of the tests wanted by docs/semantics.md section 6."""

from __future__ import annotations

import os
import re
import socket
import time
from collections.abc import Iterable
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from progress.cli.outputs import writing
from progress.errors import EXIT_INCONCLUSIVE, EXIT_OK, UsageError
from progress.synth import export, keys
from progress.synth.driver import (
    DEFAULT_ENGINE,
    Outcome,
    Settings,
    StopReason,
    open_run,
    owner_alive,
    space_summary,
    synthesize,
)
from progress.synth.driver import (
    Progress as RunProgress,
)
from progress.synth.space import UNIT_SIZE, Bounds, Candidate
from progress.synth.store import Store
from progress.synth.work import ENGINES

EXIT_INTERRUPTED = 130


@click.command()
@click.option("--threads", "-t", type=click.IntRange(min=1), default=None, help="Number of threads T (required).")
@click.option(
    "--instructions",
    "-i",
    type=click.IntRange(min=1),
    default=None,
    help="Instructions in total, I (each thread has at least one; required).",
)
@click.option("--locations", type=click.IntRange(min=1), default=2, show_default=True, help="At most L locations.")
@click.option("--values", type=click.IntRange(min=2), default=2, show_default=True, help="Values 0..V-1.")
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default=DEFAULT_ENGINE,
    show_default=True,
    help="compiled: enum's judge in numba over a streamed space (no space to build, memory independent of the "
    "bounds); cuda: the same units judged on the GPU (CuPy), the tests classified in --workers processes; "
    "enum: explicit LTS per candidate in Python; z3: the whole problem in Z3 (both cross-checks).",
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
    type=click.FloatRange(min=0, min_open=True, max=1e9),
    default=None,
    metavar="SECONDS",
    help="Stop after this many seconds, building the space included (resume later with --resume).",
)
@click.option("--resume", is_flag=True, help="Continue the run stored in --out.")
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=4096),
    default=1,
    show_default=True,
    help="Worker processes forked from this one (more than 1: shards of units run in parallel; with --engine "
    "cuda: processes classifying while the GPU judges).",
)
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Use this Dask scheduler (tcp://HOST:PORT) instead.")
@click.option(
    "--status",
    "status_of",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="RUN.db",
    help="Show the state of the run in RUN.db (running or not) and exit.",
)
@click.option(
    "--save-keys",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Also write the tests as a compact keys file (canonical keys + verdict masks, gzip; a FILE ending in .xz: "
    "format 2, sorted indices + verdict-vector ids, about a tenth of the size; docs/synth.md).",
)
@click.option(
    "--from-keys",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Rebuild the tests from a keys file (no search): with --export DIR, write them as a run's export would.",
)
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
    status_of,
    save_keys,
    from_keys,
    throttle,
    unit_size,
):
    """Find every test within the bounds that meets docs/semantics.md section 6, one per
    location-renaming class, classify it under every model, and prove that
    no other exists (or say how much was covered).

    `--status RUN.db` shows a run's state, also while it runs; `--resume
    --out RUN.db` continues a stopped run (the bounds are read from it).
    `--from-keys FILE --export DIR` rebuilds the export from a keys file
    written by `--save-keys FILE`.

    Exit status: 0 complete, 2 bad usage, 3 stopped at the time limit,
    130 interrupted.
    """
    try:
        if status_of:
            click.echo(_status(Path(status_of)))
            raise SystemExit(EXIT_OK)
        if from_keys:
            if not export_dir:
                raise UsageError("--from-keys FILE needs --export DIR")
            _export_keys(Path(from_keys), Path(export_dir))
            raise SystemExit(EXIT_OK)
        if resume and out and threads is None and instructions is None:
            threads, instructions, locations, values, engine, unit_size = _stored_run(Path(out))
        if threads is None or instructions is None:
            raise UsageError("--threads and --instructions are required (or --resume --out RUN.db, or --status RUN.db)")
        if instructions < threads:
            raise UsageError(f"--instructions {instructions} < --threads {threads}: every thread needs one")
        if engine == "cuda":
            _require_cuda(scheduler)
        bounds = Bounds(threads, instructions, locations, values)
        settings = Settings(bounds, engine, time_limit, workers, scheduler, throttle, unit_size)
        path = Path(out or f"synth-{bounds.label}.db")
        _run(path, settings, resume, Path(export_dir) if export_dir else None, Path(save_keys) if save_keys else None)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        raise SystemExit(EXIT_INTERRUPTED) from None


def _require_cuda(scheduler: str | None) -> None:
    """--engine cuda needs CuPy and a GPU here (exit 2, one line, before any store is made)."""
    if scheduler:
        raise UsageError(
            "--engine cuda judges on this machine's GPU and classifies in --workers processes: no --scheduler"
        )
    from progress.synth.cuda_judge import CudaUnavailable, require

    try:
        require()
    except CudaUnavailable as error:
        raise UsageError(f"--engine cuda: {error}") from None


def _run(path: Path, settings: Settings, resume: bool, export_dir: Path | None, keys_path: Path | None) -> None:
    bounds = settings.bounds
    with _open_store(path) as store:
        open_run(store, settings, resume)
        started = time.monotonic()
        outcome = _run_reaching_scheduler(store, settings)
        elapsed = store.params().get("elapsed", 0.0) + time.monotonic() - started
        store.set_params({"elapsed": round(elapsed, 3)})
        click.echo(_summary(outcome, bounds, path, store, elapsed))
        if export_dir:
            written = _write_export(export_dir, store.tests(), store.labels(), bounds)
            click.echo(f"exported {written} test(s) to {export_dir / bounds.label}")
        if keys_path:
            with writing(keys_path), open(keys_path, "wb") as file:
                if keys_path.name.endswith(".xz"):  # format 2: a tenth of the size, two passes over the store
                    written = keys.write_xz(file, bounds, store.labels(), store.count_tests(), store.packed_tests)
                else:
                    written = keys.write_packed(file, bounds, store.labels(), store.count_tests(), store.packed_tests())
            click.echo(f"wrote {written} test(s) to {keys_path}")
    raise SystemExit(
        {
            StopReason.EXHAUSTED: EXIT_OK,
            StopReason.TIME_LIMIT: EXIT_INCONCLUSIVE,
            StopReason.INTERRUPTED: EXIT_INTERRUPTED,
        }[outcome.stop]
    )


def _stored_run(path: Path) -> tuple:
    """The bounds, engine and unit size of the run stored in `path` (for --resume without bounds)."""
    if not path.is_file():
        raise UsageError(f"--resume: {path} does not exist")
    with Store(path, readonly=True) as store:
        p = store.params()
    try:
        return (
            int(p["threads"]),
            int(p["instructions"]),
            int(p["locations"]),
            int(p["values"]),
            str(p["engine"]),
            int(p["unit_size"]),
        )
    except (KeyError, TypeError, ValueError):
        raise UsageError(f"--resume: {path} holds no run to resume") from None


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


def _rates(p: RunProgress) -> str:
    """Candidates judged and tests classified per second, and which one bounds the run."""
    return (
        f"judging {_count(p.judge_rate)}/s, classifying {_count(p.classify_rate)} tests/s "
        f"({100 * p.classify_share:.0f}% of worker time)"
    )


def _workers(p: RunProgress) -> str:
    """`; N workers, S shards of W s` on a run with workers (local, or N as the
    Dask scheduler counts them now; W the mean worker time per shard, against
    milliseconds of scheduling), nothing otherwise."""
    if not p.workers:
        return ""
    mean = (p.judging + p.classifying) / p.shards if p.shards else 0.0
    return f"; {p.workers} worker{'s' if p.workers != 1 else ''}, {p.shards} shards of {mean:.2f} s"


def _count(number: float) -> str:
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if number >= limit:
            return f"{number / limit:.1f}{suffix}"
    return f"{number:.0f}"


def _run_with_progress(store: Store, settings: Settings) -> Outcome:
    console = Console(stderr=True)
    if not console.is_terminal:
        return synthesize(store, settings, _plain_reporter())
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%  {task.fields[line]}"),
        TimeRemainingColumn(),
    ]
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(f"synth {settings.bounds.label}", total=None, line="building the space")

        def show(p: RunProgress):
            if p.phase != "searching":
                bar.update(task, total=None, line=f"{p.phase} ({p.elapsed:.0f} s)")
                return
            bar.update(
                task,
                total=p.candidates_total,
                completed=p.candidates_done,
                line=f"{p.found} tests, {p.judged} judged; {_rates(p)}{_workers(p)}",
            )

        return synthesize(store, settings, show)


def _plain_reporter():
    """Progress lines on stderr, at most one a second, when stderr is not a terminal."""
    last = [0.0]

    def show(p: RunProgress):
        now = time.monotonic()
        if p.phase != "searching":
            click.echo(f"progress: {p.phase} ({p.elapsed:.1f} s)", err=True)
            return
        if now - last[0] < 1.0 and p.units_done < p.units_total:
            return
        last[0] = now
        eta = "?" if p.eta is None else f"{p.eta:.0f}s"
        click.echo(
            f"progress: {p.candidates_done}/{p.candidates_total} candidates covered, "
            f"units {p.units_done}/{p.units_total}, {p.judged} judged, {p.found} tests, "
            f"{p.rate:.0f}/s, ETA {eta}; {_rates(p)}{_workers(p)}",
            err=True,
        )

    return show


def _summary(outcome: Outcome, bounds: Bounds, path: Path, store: Store, elapsed: float) -> str:
    p = outcome.progress
    engine = outcome.params["engine"]
    if p.phase != "searching":  # stopped while the space was built: do not build it now to describe it
        space = "space: not built (stopped while building it)"
    else:
        sizes = space_summary(bounds, outcome.params.get("unit_size", UNIT_SIZE), engine)
        pruned = sizes["after_static_pruning"]
        if pruned is None:  # a streamed space counts them as it judges
            pruned = p.judged if outcome.stop is StopReason.EXHAUSTED else "(counted as judged)"
        space = (
            f"space: {sizes['programs']} programs meeting constraint 4, {sizes['canonical']} up to renaming "
            f"locations, {pruned} left after static pruning"
        )
    lines = [
        f"synth {bounds.label}: {bounds.threads} threads, {bounds.instructions} instructions, "
        f"<= {bounds.locations} locations, values 0..{bounds.values - 1}; engine {outcome.params['engine']}",
        space,
        f"{_judged(outcome.params['engine'], p.judged)}; tests found: {store.count_tests()}; time: {elapsed:.2f} s; "
        f"stored in {path}",
    ]
    covered = f"{p.candidates_done} of {p.candidates_total} candidates ({_percent(p)})"
    if p.phase != "searching":
        covered = "nothing, the time went to building the space"
    lines.append(
        {
            StopReason.EXHAUSTED: "complete: no other test exists within these bounds",
            StopReason.TIME_LIMIT: f"stopped at the time limit: covered {covered}; continue with --resume",
            StopReason.INTERRUPTED: f"interrupted: covered {covered}; continue with --resume",
        }[outcome.stop]
    )
    if p.peak_rss:
        lines.append(_memory(p.peak_rss))
    lines += _table(store.verdict_counts())
    return "\n".join(lines)


def _memory(workers: dict[int, int]) -> str:
    """Peak resident memory of this process and of each classifying process (getrusage, MB)."""
    import resource

    mine = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    others = sorted(workers.items())
    return f"peak resident memory: this process {mine:.0f} MB; classifying processes (pid: MB): " + ", ".join(
        f"{pid}: {rss / 2**20:.0f}" for pid, rss in others
    )


def _judged(engine: str, count: int) -> str:
    if engine == "z3":
        return f"solver answers: {count} (one per test, one unsat per partition)"
    return f"judged: {count} candidates"


def _percent(p) -> str:
    return f"{100.0 * p.candidates_done / p.candidates_total:.1f}%" if p.candidates_total else "100%"


def _table(counts: list[tuple[str, int, int]]) -> list[str]:
    if not counts:
        return []
    width = max(len(label) for label, _, _ in counts)
    lines = [f"{'verdict':<{width}}  {'P':>6}  {'F':>6}"]
    for label, passes, fails in counts:
        lines.append(f"{label:<{width}}  {passes:>6}  {fails:>6}")
    return lines


def _status(path: Path) -> str:
    """A run's state from its store alone (read-only: safe while the run goes on)."""
    with Store(path, readonly=True) as store:
        p = store.params()
        totals = store.running_totals()
        if "threads" not in p:
            raise UsageError(f"{path} holds no run")
    label = f"{p.get('threads')}t{p.get('instructions')}i"
    lines = [
        f"run {path}: {label} ({p.get('threads')} threads, {p.get('instructions')} instructions, "
        f"<= {p.get('locations')} locations, values 0..{int(p.get('values', 2)) - 1}); engine {p.get('engine')}"
    ]
    ago = time.time() - totals.updated if totals.updated else None
    last = "no unit committed yet" if ago is None else f"last commit {ago:.0f} s ago"
    who = p.get("owner") if isinstance(p.get("owner"), dict) else None
    if who and owner_alive(p, totals.updated):
        where = "" if who.get("host") == socket.gethostname() else f" on {who.get('host')}"
        lines.append(f"state: running (process {who.get('pid')}{where}); {last}")
    elif who:
        lines.append(f"state: not running: its process ended without a stop reason (killed?); {last}")
    else:
        lines.append(f"state: stopped ({p.get('stop', 'before the search')}); {last}")
    units, candidates = p.get("units_total"), p.get("candidates_total")
    if isinstance(units, int) and units:
        lines.append(f"units: {totals.units} of {units} done ({100.0 * totals.units / units:.1f}%)")
    else:
        lines.append(f"units: {totals.units} done (the space was not built yet)")
    lines.append(f"judged: {totals.judged} candidates; tests found: {totals.tests}")
    since = who.get("since") if who else None
    if who and owner_alive(p, totals.updated) and isinstance(since, (int, float)) and totals.units:
        lines.append(_status_rate(p, totals, since, candidates))
    if p.get("elapsed"):
        lines.append(f"time in finished sessions: {float(p['elapsed']):.1f} s")
    stop = p.get("stop")
    if stop and stop != "exhausted" and not (who and owner_alive(p, totals.updated)):
        lines.append(f"continue with: progress synth --resume --out {path}")
    return "\n".join(lines)


def _status_rate(p: dict, totals, since: float, candidates) -> str:
    seconds = max(1e-9, time.time() - since)
    at_start = p.get("owner", {}).get("judged_at_start", 0)
    rate = (totals.judged - at_start) / seconds
    eta = "?"
    if rate > 0 and isinstance(candidates, int) and p.get("engine") == "enum":
        eta = f"{max(0.0, candidates - totals.judged) / rate:.0f} s"
    return f"this session: {seconds:.0f} s, {rate:.0f} candidates/s, ETA {eta}"


def _open_store(path: Path) -> Store:
    """The run's database, its directory made; a file that cannot be one is a usage error."""
    with writing(path):
        return Store(path)


def _write_small(path: str, data: bytes) -> None:
    """Write a small file with three system calls (no buffered text layer: an
    export writes hundreds of thousands of them)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _export_keys(path: Path, root: Path) -> None:
    """`--from-keys FILE --export DIR`: the export, from a keys file."""
    with keys.open_keys(path) as source:
        written = _write_export(root, source.tests(), source.labels, source.bounds)
    click.echo(f"exported {written} test(s) from {path} to {root / source.bounds.label}")


def _write_export(root: Path, tests: Iterable[tuple[Candidate, int]], labels: tuple[str, ...], bounds: Bounds) -> int:
    """Stream the tests out one file at a time; remove numbered .axb files
    left by an earlier, larger export. Memory does not grow with the tests."""
    folder = root / bounds.label
    written = 0
    with writing(root / export.csv_name(bounds)):
        folder.mkdir(parents=True, exist_ok=True)
        with open(root / export.csv_name(bounds), "w", encoding="utf-8", newline="") as csv:
            csv.write(export.csv_header(labels) + "\n")
            for name, text, row in export.entries(tests, labels, bounds):
                _write_small(str(root / name), text.encode())
                csv.write(row + "\n")
                written += 1
        with os.scandir(folder) as entries:  # streamed (Path.glob lists the whole directory first)
            for entry in entries:
                match = re.fullmatch(r"(\d+)\.axb", entry.name)
                if match and (int(match.group(1)) >= written or entry.name != f"{int(match.group(1))}.axb"):
                    os.unlink(entry.path)
    return written
