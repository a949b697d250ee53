"""`progress check`: verdicts for one test or a batch."""

from __future__ import annotations


import click

from ..analyze import FAIRNESSES, check_program, queries_for
from ..errors import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_OK, EXIT_USAGE, InputError
from ..registry import all_models, find_model
from ..report import lasso_text, report_json, table, verdict_line
from .inputs import expand_each, load


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--model", "-m", "model_names", multiple=True, metavar="MODEL",
              help="Check under this model only (repeatable). Default: every registered model.")
@click.option("--weak", "fairness", flag_value="weak", help="Weak fairness only.")
@click.option("--strong", "fairness", flag_value="strong", help="Strong fairness only.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text, or JSON Lines (one object per test).")
@click.option("--witness/--no-witness", default=None,
              help="Show lassos for failing verdicts (default: on when one model is checked).")
@click.option("--max-states", type=click.IntRange(min=1), default=None,
              help="Stop a test's exploration past this many states (inconclusive, exit 3).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Stop a test's check after this many seconds (inconclusive, exit 3).")
def check(paths, model_names, fairness, fmt, witness, max_states, time_limit):
    """Decide whether each test is guaranteed to terminate.

    PATHS are .axb files, directories (searched recursively) or @LIST files.
    Exit status: 0 every verdict is "guaranteed to terminate", 1 some test may
    not terminate, 2 bad input, 3 some check was inconclusive.
    """
    models = [find_model(name) for name in model_names] or list(all_models())
    queries = queries_for(models, (fairness,) if fairness else FAIRNESSES)
    show_witness = witness if witness is not None else len(models) == 1
    tally = {"terminates": 0, "fails": 0, "inconclusive": 0, "tests": 0, "bad": 0}
    for path in expand_each(list(paths)):
        try:
            if isinstance(path, InputError):
                raise path
            program = load(path)
        except InputError as error:
            click.echo(error.render(), err=True)
            tally["bad"] += 1
            continue
        report = check_program(program, queries, max_states=max_states, time_limit=time_limit,
                               witnesses=show_witness or fmt == "json")
        _count(tally, report)
        if fmt == "json":
            click.echo(report_json(report, str(path)))
        else:
            click.echo(_text(report, str(path), len(queries) == 1, show_witness))
    click.echo(_summary(tally), err=fmt == "json")
    raise SystemExit(_exit_code(tally))


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
                lines.append(lasso_text(verdict.witness, report.program))
    return "\n".join(lines)


def _summary(tally) -> str:
    text = (f"checked {tally['tests']} test(s): {tally['terminates']} verdict(s) guaranteed to terminate, "
            f"{tally['fails']} may not terminate, {tally['inconclusive']} inconclusive")
    if tally["bad"]:
        text += f"; {tally['bad']} file(s) with bad input"
    return text


def _exit_code(tally) -> int:
    if tally["bad"]:
        return EXIT_USAGE
    if tally["fails"]:
        return EXIT_FAIL
    if tally["inconclusive"]:
        return EXIT_INCONCLUSIVE
    return EXIT_OK
