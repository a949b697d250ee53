"""`progress check`: verdicts for one test or a batch."""

from __future__ import annotations

import gc
import math
import sys
import time
from dataclasses import replace

import click

from progress.cli.inputs import AXB_SUFFIXES, KERNEL_SUFFIXES, STDIN, display, expand_each, read_text
from progress.cli.launch_options import compile_options, constant_options
from progress.cli.verdict_table import nearest_table, table_expectations
from progress.core.analyze import FAIRNESSES, check_program, check_system, queries_for
from progress.core.model_spec import parse_models
from progress.core.program import Program
from progress.core.registry import all_models
from progress.errors import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_OK, EXIT_USAGE, InputError, UsageError
from progress.front.axb.parse import parse_program
from progress.front.expect import expectations, has_expect_line, known_verdicts, mismatches, scoped_queries
from progress.report.render import (
    csv_header,
    csv_row,
    expectation_lines,
    kernel_lasso_text,
    lasso_text,
    report_json,
    table,
    verdict_line,
)
from progress.source import error_at, source_lines

GC_THRESHOLD = 20_000
"""Allocations between two young-generation collections while checking
(Python's default is 700); gc.freeze() first keeps the loaded modules out
of every later collection. 4% of the 483-test JSON check (bench_scale.py)."""


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--model",
    "-m",
    "model_names",
    multiple=True,
    metavar="MODEL",
    help="Check under this model only (repeatable, or a list: HSA,OBE); a model per scope: "
    "OBE/HSA/fair, workgroup=OBE,subgroup=HSA,lane=fair or Dat3M's [QF=OBE, SG=UNFAIR, DEFAULT=FAIR]. "
    "Default: every registered model.",
)
@click.option(
    "--scope",
    type=click.Choice(["workgroup", "subgroup", "lane"]),
    default="workgroup",
    show_default=True,
    help=".axb tests: each thread its own workgroup, each its own subgroup of one workgroup, or the lanes "
    "of one subgroup; a plain --model M is M at that scope, fair at the others.",
)
@click.option("--weak", is_flag=True, help="Weak fairness only.")
@click.option("--strong", is_flag=True, help="Strong fairness only.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "csv"]),
    default="text",
    show_default=True,
    help="text, JSON Lines (one object per test), or CSV (one row per test, P/F/? per verdict).",
)
@click.option(
    "--witness/--no-witness",
    default=None,
    help="Show lassos for failing verdicts (default: on when one model is checked).",
)
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=None,
    help="Stop a test's exploration past this many states (inconclusive, exit 3). Kernels: 2000000 unless given.",
)
@click.option(
    "--max-memory",
    type=click.IntRange(min=1),
    default=None,
    metavar="MIB",
    help="Kernels: stop a check once the process holds this many MiB (inconclusive, exit 3; default 4096).",
)
@click.option(
    "--reduce",
    is_flag=True,
    help="Kernels: fold private steps (accesses to cells no other invocation touches, or no one writes) "
    "into normal forms (docs/semantics.md section 11): the same verdicts and lassos' validity, fewer states.",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop a test's check after this many seconds (inconclusive, exit 3).",
)
@click.option(
    "--expect-header",
    is_flag=True,
    help="Compare with each test's '# expect:' header line (without one: its row in the nearest "
    "cadp_verdicts.csv above it) instead; exit 1 on any mismatch.",
)
@click.option("--workgroups", metavar="N", help="Kernels: dispatch N workgroups (default: the header's, else 1).")
@click.option(
    "--buffer",
    "buffers",
    multiple=True,
    metavar="NAME=LEN",
    help="Kernels: a runtime-sized array's length (repeatable).",
)
@click.option(
    "--init",
    "inits",
    multiple=True,
    metavar="NAME=V|NAME[i]=V",
    help="Kernels: a shared cell's initial value, or every cell of NAME (repeatable; 0 otherwise).",
)
@click.option("--entry", metavar="NAME", help="Kernels: the compute entry point to check (default: the first).")
@click.option(
    "--optimize", is_flag=True, default=None, help="Kernels: also check the spirv-opt -O module and say what differs."
)
@constant_options
@compile_options
def check(
    paths,
    model_names,
    scope,
    weak,
    strong,
    fmt,
    witness,
    max_states,
    max_memory,
    reduce,
    time_limit,
    expect_header,
    **kernel_options,
):
    """Decide whether each test is guaranteed to terminate.

    PATHS are .axb tests, kernels (.comp GLSL, .hlsl HLSL, .spv SPIR-V,
    .spvasm SPIR-V assembly), directories (searched recursively) or @LIST
    files. Exit status: 0 every verdict is "guaranteed to terminate", 1 some
    test may not terminate, 2 bad input, 3 some check was inconclusive. With
    --expect-header: 0 every expectation holds, 1 some does not, 2 bad input.
    """
    gc.freeze()  # the modules loaded so far stay; fewer, cheaper collections while checking
    gc.set_threshold(GC_THRESHOLD, 20, 20)
    models = parse_models(model_names) or list(all_models())
    if weak and strong:
        raise UsageError("--weak and --strong exclude each other (give neither for both)")
    if time_limit is not None and not math.isfinite(time_limit):
        raise UsageError(f"--time-limit must be a finite number of seconds, not {time_limit}")
    fairness = "weak" if weak else "strong" if strong else None
    queries = queries_for(models, (fairness,) if fairness else FAIRNESSES)
    show_witness = witness if witness is not None else len(models) == 1
    known = known_verdicts(queries_for(all_models()))
    given = _kernel_settings(**kernel_options)
    tally = {"terminates": 0, "fails": 0, "inconclusive": 0, "tests": 0, "bad": 0, "met": 0, "mismatched": 0}
    witnesses = show_witness or fmt == "json"
    if fmt == "csv":
        click.echo(csv_header(queries), nl=False)
    for path in expand_each(list(paths), AXB_SUFFIXES + KERNEL_SUFFIXES):
        try:
            if isinstance(path, InputError):
                raise path
            if path.name.endswith(KERNEL_SUFFIXES):
                from progress.cli.kernel import check_kernel  # the SPIR-V front end, on demand

                result = check_kernel(
                    path,
                    given,
                    queries,
                    max_states=max_states,
                    time_limit=time_limit,
                    witnesses=witnesses,
                    known=known if expect_header else None,
                    max_memory=None if max_memory is None else max_memory << 20,
                    reduce=reduce,
                )
                expected = None if result.expected is None else _selected(result.expected, queries)
                reports = [c.report for c in result.checked]
                extra = scoped_queries(expected or {})
                judged = [
                    _judged(c.report, check_system(c.system, extra, max_states=max_states, time_limit=time_limit))
                    if extra
                    else c.report
                    for c in result.checked
                ]
                notes = result.differences
                failed = result.failed
            else:
                text = read_text(path)
                program = parse_program(text, display(path))
                expected = _selected(_expectations_of(text, path, known), queries) if expect_header else None
                reports = [
                    check_program(
                        program, queries, max_states=max_states, time_limit=time_limit, witnesses=witnesses, scope=scope
                    )
                ]
                extra = scoped_queries(expected or {})
                judged = [
                    _judged(
                        reports[0],
                        check_program(program, extra, max_states=max_states, time_limit=time_limit, scope=scope),
                    )
                    if extra
                    else reports[0]
                ]
                notes, failed = (), None
        except InputError as error:
            click.echo(error.render(), err=True)
            tally["bad"] += 1
            continue
        for index, report in enumerate(reports):
            _count(tally, report)
            shown = display(path) + (" (spirv-opt -O)" if index else "")
            _show(report, shown, fmt, expected, tally, len(queries) == 1, show_witness, judged[index])
        for note in notes:
            click.echo(note, err=fmt != "text")
        if failed is not None:
            click.echo(failed.render(), err=True)
            tally["bad"] += 1
    _lines.flush()
    click.echo(_summary(tally, expect_header), err=fmt != "text")
    raise SystemExit(_exit_code(tally, expect_header))


def _show(report, path: str, fmt: str, expected, tally, single: bool, show_witness: bool, judged=None) -> None:
    """One report: its expectation line (with --expect-header; `judged` holds the
    header's scoped verdicts too) and its output in `fmt`."""
    if expected is not None:
        click.echo(_expectation_text(judged or report, expected, tally), err=fmt != "text")
    if fmt == "json":
        _lines.write(report_json(report, path) + "\n")
    elif fmt == "csv":
        click.echo(csv_row(report, path), nl=False)
    elif expected is None:
        click.echo(_text(report, path, single, show_witness))


class _Lines:
    """Standard output (main's guarded stream) for JSON Lines, flushed when
    FLUSH_S seconds have passed since the last flush and at the end:
    click.echo flushes after every line, a write and a wake-up of the reader
    per test."""

    FLUSH_S = 0.1

    def __init__(self) -> None:
        self._last = time.monotonic()

    def write(self, text: str) -> None:
        sys.stdout.write(text)
        if time.monotonic() - self._last > self.FLUSH_S:
            self.flush()

    def flush(self) -> None:
        sys.stdout.flush()
        self._last = time.monotonic()


_lines = _Lines()


def _kernel_settings(**options):
    """The command line's launch settings, read only when they are given (the SPIR-V front end on demand)."""
    if not any(value not in (None, ()) for value in options.values()):
        from progress.front.header import LaunchSettings

        return LaunchSettings()
    from progress.cli.kernel import given_settings

    return given_settings(**options)


def _expectations_of(text: str, path, known) -> dict:
    """A .axb test's `# expect:` line, else its row in the nearest verdict
    table above it (`cadp_verdicts.csv`, progress/cli/verdict_table.py);
    neither is bad input, never a pass."""
    table = None if has_expect_line(text) or path == STDIN else nearest_table(path)
    if table is None:
        return expectations(text, display(path), known)
    row = table_expectations(path, table, known)
    if row is None:
        raise error_at(
            f"no '# expect:' line, and {display(table)} has no row for this test (needed by --expect-header)",
            1,
            1,
            source_lines(text),
            display(path),
        )
    return row


def _selected(expected: dict, queries) -> dict:
    """The expectations that the checked queries answer (all of them without
    --model/--weak/--strong; every cell names a registered verdict by now),
    and every one naming a scoped model (`W/S/L`: checked for the header alone)."""
    asked = {(query.model.name.upper(), query.fairness) for query in queries}
    return {key: want for key, want in expected.items() if key in asked or "/" in key[0]}


def _judged(report, scoped):
    """`report` with the verdicts of the header's scoped models added, for the expectations only."""
    return replace(report, verdicts=report.verdicts + scoped.verdicts)


def _expectation_text(report, expected, tally) -> str:
    """One line per test: all hold, or one line per unmet expectation."""
    wrong = mismatches(report, expected)
    tally["met"] += len(expected) - len(wrong)
    tally["mismatched"] += len(wrong)
    return "\n".join(expectation_lines(report.program.name, len(expected), wrong))


def _count(tally, report) -> None:
    tally["tests"] += 1
    for verdict in report.verdicts:
        key = {True: "terminates", False: "fails", None: "inconclusive"}[verdict.terminates]
        tally[key] += 1


def _text(report, path: str, single: bool, show_witness: bool) -> str:
    if single:
        lines = [verdict_line(report, v) for v in report.verdicts]
    else:
        lines = [table(report, path)]
    if show_witness:
        for verdict in report.verdicts:
            if verdict.witness is not None:
                if not single:
                    lines.append(f"  {verdict.model} {verdict.fairness}: may not terminate")
                if isinstance(report.program, Program):
                    lines.append(lasso_text(verdict.witness, report.program))
                else:
                    lines.append(kernel_lasso_text(verdict.witness))
    return "\n".join(lines)


def _summary(tally, expect_header: bool = False) -> str:
    text = (
        f"checked {tally['tests']} test(s): {tally['terminates']} verdict(s) guaranteed to terminate, "
        f"{tally['fails']} may not terminate, {tally['inconclusive']} inconclusive"
    )
    if expect_header:
        text += f"; expectations: {tally['met']} hold, {tally['mismatched']} do not"
        if tally["tests"] and not tally["met"] + tally["mismatched"]:
            text += " (nothing was compared)"
    if tally["bad"]:
        text += f"; {tally['bad']} file(s) with bad input"
    return text


def _exit_code(tally, expect_header: bool = False) -> int:
    if tally["bad"]:
        return EXIT_USAGE
    if expect_header:
        if tally["mismatched"]:
            return EXIT_FAIL
        return EXIT_OK if tally["met"] else EXIT_USAGE
    if tally["fails"]:
        return EXIT_FAIL
    if tally["inconclusive"]:
        return EXIT_INCONCLUSIVE
    return EXIT_OK
