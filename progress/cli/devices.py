"""`progress devices`: the runs of a results database side by side."""

from __future__ import annotations

import json
from pathlib import Path

import click

from progress.cli.conform import stored_verdicts
from progress.cli.outputs import write_file, write_stdout
from progress.cli.results import DB_OPTION
from progress.errors import UsageError, printable
from progress.gpu import device_tables, devices
from progress.gpu.database import ResultsDB, open_database


@click.command()
@DB_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "md", "json"]), default="text", show_default=True)
@click.option(
    "--runs", "chosen", default=None, help="Comma-separated run ids or names (default: every run, in id order)."
)
@click.option("--diff", nargs=2, default=None, metavar="RUN RUN", help="What differs between two runs, and stop.")
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also draw Fig. 12 (failing tests per heuristic and run) to this .png or .svg file.",
)
@click.option(
    "--list-limit",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Name at most this many tests per violation (0: all of them).",
)
@click.option("--max-states", type=click.IntRange(min=1), default=None, help="Leave a verdict undecided past this.")
def devices_command(db, fmt, chosen, diff, plot, list_limit, max_states):
    """The device x model matrix, the paper's Fig. 12 figures, and the tests
    behind every violation, for the runs of a results database.

    A matrix cell is `ok` (consistent with the model: no conformance test of
    it failed under plain, rr or chunked) or the failing conformance tests
    under plain/rr/chunked (violates). Fig. 12: per heuristic, the tests that
    failed in every iteration (det) and in some but not all (nondet).
    `--diff A B` compares two runs test by test instead.

    Exit status: 0 printed, 2 no such database or run, or bad options.
    """
    if plot is not None and plot.suffix.lower() not in (".png", ".svg"):
        raise UsageError(f"--plot writes .png or .svg files, not {plot.name!r}")
    memo: dict = {}
    with open_database(db) as database:
        if diff is not None:
            first, second = (_results(database, ident, max_states, memo) for ident in diff)
            write_stdout(printable(device_tables.diff_text(devices.diff(first, second))))
            return
        idents = [part.strip() for part in chosen.split(",") if part.strip()] if chosen else None
        runs = [_results(database, ident, max_states, memo) for ident in idents or [i.id for i in database.runs()]]
    if not runs:
        raise UsageError(f"{db} holds no runs: import some with progress results import")
    rows = [devices.device_row(item) for item in runs]
    if plot is not None:
        from progress.report.plot import draw_device_figures  # matplotlib: only when asked for

        names = [item.info.name for item in runs]
        counts = [devices.figures(item) for item in runs]
        lanes = [devices.scope_of(item.info) == "lane" for item in runs]
        figure = draw_device_figures(names, list(devices.INTER_WORKGROUP), counts, plot.suffix.lower()[1:], lanes)
        write_file(plot, figure)
    if fmt == "json":
        write_stdout(json.dumps(device_tables.as_json(rows, runs), indent=2) + "\n")
        return
    write_stdout(printable(page(rows, runs, fmt, list_limit)))


def page(rows: list[devices.DeviceRow], runs: list[devices.RunResults], fmt: str, limit: int = 0) -> str:
    """The matrix, the figures and the violations, with headings."""
    heading = "## " if fmt == "md" else ""
    return "\n".join(
        [
            f"{heading}Runs\n",
            device_tables.runs_table([item.info for item in runs], fmt),
            f"{heading}Device x model (ok = consistent; else failing conformance tests plain/rr/chunked; "
            "intra-warp runs are judged at the lane scope, model M as (fair, fair, M))\n",
            device_tables.matrix(rows, fmt),
            f"{heading}Fig. 12: failing tests per heuristic (det: every iteration, nondet: some)\n",
            device_tables.figures_table(runs, fmt),
            f"{heading}Violations and the tests behind them\n",
            device_tables.violation_lines(devices.violations(rows), fmt, limit) or "none\n",
        ]
    )


def _results(database: ResultsDB, ident, max_states, memo: dict) -> devices.RunResults:
    info = database.run(ident)
    rows, programs = database.rows(info.id), database.programs(info.id)
    scope = devices.scope_of(info)
    return devices.RunResults(info, rows, stored_verdicts(programs, max_states, memo.setdefault(scope, {}), scope))
