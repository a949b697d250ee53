"""`progress classify`: the verdict matrix and the classification of a suite."""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from progress.cli.inputs import display, expand_names, load, read_text, suite_names
from progress.cli.outputs import write_file
from progress.core.analyze import Query, check_program, queries_for
from progress.core.canonical import Parts, hash_of_text, text_of_parts
from progress.core.classify import (
    LATTICE,
    PAPER,
    RULES,
    Classification,
    Column,
    Matrix,
    Row,
    classify,
    columns_for,
    compare,
    matrix_row,
)
from progress.core.program import Program
from progress.core.registry import all_models
from progress.errors import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_OK, EXIT_USAGE, InputError, UsageError
from progress.front.axb.parse import parse_program
from progress.front.axb.quickparse import quick_parts
from progress.report.tables import FORMATS, mismatch_line, parse_verdict_csv, render_classification, render_matrix


@click.command("classify")
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--rule",
    type=click.Choice(RULES),
    default=LATTICE,
    show_default=True,
    help="lattice: docs/semantics.md section 5's definitions; paper: how the paper's Table 4 was counted.",
)
@click.option(
    "--table4",
    is_flag=True,
    help="The paper's Table 4: the classification table by the paper's rule (--rule paper; not with --matrix).",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="md", show_default=True)
@click.option(
    "--matrix",
    is_flag=True,
    help="Print the verdict matrix (test x model/fairness, P/F) instead of the classification table.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the table or matrix to FILE instead of standard output.",
)
@click.option(
    "--suites",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="Write DIR/conformance/<model>-<fairness>.txt and DIR/distinguishing/... (@list files).",
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Draw weak/strong and distinguishing shares (like the paper's Fig. 10) to FILE.png|.svg.",
)
@click.option(
    "--expect",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Compare with a verdict CSV: print every mismatching cell; exit 1 if any.",
)
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=None,
    help="Stop a test's exploration past this many states (its verdicts are `?`).",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop a test's check after this many seconds (its verdicts are `?`).",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Worker processes checking a big suite (2048+ tests, no --time-limit); default: one per available CPU "
    "from 20,000 tests on, else 1. The output is the same for any number.",
)
@click.option(
    "--scope",
    type=click.Choice(["workgroup", "subgroup", "lane"]),
    default="workgroup",
    show_default=True,
    help="Place each test's threads as workgroups, as the subgroups of one workgroup, or as the lanes of one "
    "subgroup, and judge every model at that scope, fair at the others (docs/semantics.md section 10).",
)
def classify_command(
    paths, rule, table4, fmt, matrix, output, suites, plot, expect, max_states, time_limit, jobs, scope
):
    """Check every test under every model and classify the suite.

    PATHS are .axb files, directories (searched recursively) or @LIST files.
    A test is named by its path relative to the inputs' common directory.
    Exit status: 0 done (and no mismatch), 1 --expect found a mismatch,
    2 bad input, 3 some verdict was inconclusive.
    """
    if table4:
        rule = _table4_rule(rule, matrix)
    if plot is not None and plot.suffix.lower() not in (".png", ".svg"):
        raise UsageError(f"--plot writes .png or .svg files, not {plot.name!r}")
    models = list(all_models())
    labels = tuple(column.label for column in columns_for(models))
    expected = parse_verdict_csv(read_text(expect), str(expect), labels) if expect else None
    files, unreadable = [], 0
    for item in expand_names(list(paths)):
        if isinstance(item, InputError):
            click.echo(item.render(), err=True)
            unreadable += 1
        else:
            files.append(item)
    if not files:
        raise UsageError("no .axb tests found in " + " ".join(paths))
    locations = dict(zip(suite_names(list(paths), files), files))
    with _without_gc():
        verdicts, bad = check_suite(
            locations,
            models,
            max_states,
            time_limit,
            batch=False if scope != "workgroup" else None,
            jobs=default_jobs(len(locations)) if jobs is None else jobs,
            scope=scope,
        )
        classification = classify(verdicts, models, rule)
        text = render_matrix(verdicts, fmt) if matrix else render_classification(classification, fmt)
    bad += unreadable
    if output is not None:
        write_file(output, text)
    elif expected is None:
        click.echo(text, nl=False)
    if suites is not None:
        write_suites(suites, classification, locations)
    if plot is not None:
        from progress.report.plot import draw_shares  # matplotlib: only when asked for

        write_file(plot, draw_shares(verdicts, classification, plot.suffix.lower()[1:]))
    mismatches, compared = _report_expect(verdicts, expected, expect) if expected is not None else (0, None)
    inconclusive = sum(cell is None for row in verdicts.rows for cell in row.cells)
    click.echo(
        f"classified {len(verdicts.rows)} test(s), {rule} rule; {inconclusive} inconclusive verdict(s)"
        + (f"; {bad} file(s) with bad input" if bad else ""),
        err=True,
    )
    if compared == 0:
        click.echo(f"error: no test of the suite is in {expect}: nothing was compared", err=True)
    raise SystemExit(
        EXIT_USAGE
        if bad or compared == 0
        else EXIT_FAIL
        if mismatches
        else EXIT_INCONCLUSIVE
        if inconclusive
        else EXIT_OK
    )


BATCH_FROM = 2048
"""Suites of at least this many tests (and no --time-limit) go through the
compiled batch classifier, `progress.core.batch`. Its start-up (importing numba,
loading the compiled kernels: about 0.9 s of CPU) is won back from about
2000 tests on: the published suite (483 tests) stays on `check_program`,
at a quarter of a second."""
CHUNK = 4096
"""Tests loaded, checked and let go at a time on the batch path."""
JOBS_FROM = 20_000
"""Suites of at least this many tests get a worker per available CPU by
default: a worker costs a fork and learning the suite's threads (well
under a second), won back from about this size on."""


def default_jobs(tests: int) -> int:
    """--jobs when not given (JOBS_FROM)."""
    if tests < JOBS_FROM:
        return 1
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@contextmanager
def _without_gc() -> Iterator[None]:
    """The cyclic garbage collector off while a suite is checked and its table
    made: the rows, hashes and verdicts hold no cycle, and on a big suite each
    full collection walks all of them (3-4 s of CPU on 341,727 tests)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def check_suite(
    locations: dict[str, Path] | dict[str, str],
    models,
    max_states=None,
    time_limit=None,
    batch: bool | None = None,
    jobs: int = 1,
    scope: str = "workgroup",
) -> tuple[Matrix, int]:
    """The verdict matrix of the tests {name: file}, in order, and how many files
    had bad input (reported on standard error and left out). `batch` forces
    the batch classifier on or off (default: by suite size, see BATCH_FROM);
    `jobs` worker processes share the batch path's chunks. Every path and
    number of jobs gives the same matrix. `scope` places each test's threads
    (`check_program`'s; the batch classifier knows only the workgroup scope)."""
    columns = columns_for(models)
    if batch is None:
        batch = time_limit is None and len(locations) >= BATCH_FROM
    if batch and time_limit is not None:
        raise ValueError("the batch classifier has no time limit")
    if batch and scope != "workgroup":
        raise ValueError("the batch classifier checks the workgroup scope only")
    with _progress(len(locations)) as advance:
        if batch:
            return _check_batched(locations, models, columns, max_states, advance, jobs)
        queries = queries_for(models)
        rows, bad = [], 0
        for name, path in locations.items():
            advance()
            program = _load_or_report(path)
            if program is None:
                bad += 1
                continue
            report = check_program(
                program, queries, max_states=max_states, time_limit=time_limit, witnesses=False, scope=scope
            )
            rows.append(matrix_row(name, report, columns))
    return Matrix(columns, tuple(rows)), bad


def _check_batched(
    locations: dict[str, Path] | dict[str, str], models, columns, max_states, advance, jobs: int
) -> tuple[Matrix, int]:
    """The batch path: chunks of CHUNK tests read, checked and let go, in
    order, in this process or (jobs > 1) in forked worker processes, which
    get file names and send back hashes and verdict codes (no objects)."""
    by_name = {model.name: model for model in models}
    queries = [Query(by_name[column.model], column.fairness) for column in columns]
    names = list(locations)
    paths = [os.fspath(path) for path in locations.values()]
    size = CHUNK if jobs == 1 else min(CHUNK, max(64, -(-len(paths) // (4 * jobs))))  # work for every worker
    chunks = [paths[start : start + size] for start in range(0, len(paths), size)]
    width = len(columns)
    cells_of: dict[bytes, tuple[bool | None, ...]] = {}  # few distinct rows of verdicts
    rows: list[Row] = []
    bad = 0
    for start, (hashes, codes, errors) in zip(
        range(0, len(paths), size), _chunk_results(chunks, queries, max_states, jobs)
    ):  # runs it to its end
        for _, error in errors:
            click.echo(error, err=True)
        bad += len(errors)
        chunk_names = names[start : start + size]
        if errors:
            skipped = {at for at, _ in errors}
            chunk_names = [name for at, name in enumerate(chunk_names) if at not in skipped]
        for k, name in enumerate(chunk_names):
            key = codes[k * width : (k + 1) * width]
            cells = cells_of.get(key)
            if cells is None:
                cells = cells_of[key] = tuple(_CELL[code] for code in key)
            rows.append(Row(name, hashes[16 * k : 16 * k + 16], cells))
        for _ in range(min(size, len(paths) - start)):
            advance()
    return Matrix(columns, tuple(rows)), bad


_CELL = {1: True, 0: False, 255: None}
"""A verdict from its code's byte (progress.core.fastcheck's PASS, FAIL, INCONCLUSIVE as int8)."""

_WORK: tuple = ()
"""(queries, max_states) of the running batch: forked workers inherit it
(the models' functions cannot be pickled)."""


def _chunk_results(chunks: list[list[str]], queries: list, max_states, jobs: int):
    """`_check_chunk` of every chunk, in order."""
    global _WORK
    _WORK = (queries, max_states)
    from progress.core import batch

    if jobs > 1 and len(chunks) > 1 and "fork" in multiprocessing.get_all_start_methods():
        # numba and the compiled kernel loaded, and the tables made, once before forking (not once per worker)
        thread = (("l0", 0, 1, True, 1),)
        batch.verdicts_of_parts([((thread,) * threads, ()) for threads in (1, 2, 3)], queries)
        pool = multiprocessing.get_context("fork").Pool(min(jobs, len(chunks)), initializer=_worker_signals)
        try:
            yield from pool.imap(_check_chunk, chunks)
            pool.close()
        except BaseException:
            pool.terminate()
            raise
        finally:
            pool.join()
    else:
        yield from map(_check_chunk, chunks)


def _worker_signals() -> None:
    """Workers leave Ctrl-C to the parent (which ends them) and die at once on
    SIGTERM: the CLI's own handlers, inherited through fork, would turn it into
    an exception inside the pool's machinery and hang it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _check_chunk(chunk: list[str]) -> tuple[str, bytes, list[tuple[int, str]]]:
    """The chunk's files checked: (their canonical hashes joined, 16
    characters each; their verdict codes, a byte per column; (position in the
    chunk, rendered error) of each bad one, left out of the other two).
    Files in the plain layout are read by the process's `BulkReader`; any
    other goes through `quick_parts`, then `parse_program` (which reports bad
    input)."""
    from progress.core.batch import codes_of_parts, record_of
    from progress.front.axb.bulkread import BulkReader

    global _READER
    if _READER is None:
        _READER = BulkReader()
    read = _READER.read
    queries, max_states = _WORK
    parts: list[Parts] = []
    hashes: list[str] = []
    records: list[Sequence[int]] = []
    errors: list[tuple[int, str]] = []
    threads: Sequence[Sequence[tuple[str, int, int, bool, int]]]
    init: Sequence[tuple[str, int]]
    for at, path in enumerate(chunk):
        try:
            text = read_text(path)
            got = read(text)
            if got is None:
                shown = display(path)
                quick = quick_parts(text, shown)
                if quick is None:
                    program = parse_program(text, shown)
                    threads, init = program.threads, program.init
                else:
                    threads, init = quick[1:]
                parts.append((threads, init))
                hashes.append(hash_of_text(text_of_parts(threads, init)))
                records.append(record_of(threads, init))
            else:
                parts.append((got.threads, got.init))
                hashes.append(got.hash)
                records.append(got.record)
        except InputError as error:
            errors.append((at, error.render()))
    codes = codes_of_parts(parts, queries, max_states, records=records)
    return "".join(hashes), codes.tobytes(), errors


_READER: Any = None
"""The process's BulkReader (its memo lives as long as the process)."""


def _load_or_report(path: Path | str) -> Program | None:
    """The test's Program, or None after reporting its bad input."""
    try:
        return load(path)
    except InputError as error:
        click.echo(error.render(), err=True)
        return None


class _progress:
    """A rich progress bar on standard error when it is a terminal; else nothing."""

    def __init__(self, total: int):
        self.total = total
        self.bar: Any = None  # a rich Progress while a terminal shows it

    def __enter__(self):
        if sys.stderr.isatty() and self.total > 1:
            from rich.console import Console
            from rich.progress import Progress

            bar = self.bar = Progress(console=Console(stderr=True), transient=True)
            bar.start()
            task = bar.add_task("checking", total=self.total)
            return lambda: bar.advance(task)
        return lambda: None

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False


def write_suites(directory: Path, classification: Classification, locations: dict[str, Path] | dict[str, str]) -> None:
    """One @list file per row and kind, its paths relative to its own directory."""
    for kind in ("conformance", "distinguishing"):
        folder = directory / kind
        for row in classification.rows:
            tests = row.conformance if kind == "conformance" else row.distinguishing
            name = Column(row.model, row.fairness).label.replace("/", "-")
            header = (
                f"# {kind} tests of {Column(row.model, row.fairness).label}, "
                f"{classification.rule} rule: {len(tests)} of {classification.tests}\n"
            )
            base = os.path.abspath(folder)
            lines = [Path(os.path.relpath(os.path.abspath(locations[t]), base)).as_posix() for t in tests]
            write_file(folder / f"{name}.txt", header + "".join(line + "\n" for line in lines))


def _table4_rule(rule: str, matrix: bool) -> str:
    """--table4 is the paper's rule; a --rule lattice or --matrix beside it asks for something else."""
    given = click.get_current_context().get_parameter_source("rule") != click.core.ParameterSource.DEFAULT
    if matrix or (given and rule != PAPER):
        raise UsageError("--table4 is the classification by the paper's rule: not with --matrix or --rule lattice")
    return PAPER


def _report_expect(verdicts: Matrix, expected: dict, path: Path) -> tuple[int, int]:
    """Print the mismatching cells and the counts; (mismatches, tests compared)."""
    mismatches = compare(verdicts, expected)
    for mismatch in mismatches:
        click.echo(mismatch_line(mismatch))
    compared = sum(1 for row in verdicts.rows if row.test in expected)
    missing = len(verdicts.rows) - compared
    click.echo(
        f"{len(mismatches)} mismatching cell(s) in {len({m.test for m in mismatches})} test(s); "
        f"{compared} test(s) compared with {path}" + (f", {missing} not in it" if missing else "")
    )
    return len(mismatches), compared
