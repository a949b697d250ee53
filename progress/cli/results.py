"""`progress results import` and `progress results list`: the results database."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import click

from progress.cli.inputs import expand, load, read_text
from progress.cli.outputs import write_stdout
from progress.errors import InputError, UsageError, printable
from progress.gpu import importers
from progress.gpu.database import DEFAULT_PATH, open_database
from progress.gpu.device_tables import runs_table
from progress.gpu.records import Run, Suite, suite_of

DB_OPTION = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_PATH,
    show_default=True,
    help="The results database (SQLite).",
)


@click.group("results")
def results_group():
    """The results database: device runs from `progress run` and from the OOPSLA'21 artifact."""


@results_group.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--suite",
    "suites",
    multiple=True,
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Directory holding the tests the results name (repeatable); keys are relative to it.",
)
@click.option("--name", default=None, help="Name the run (when PATHS hold one run); default: from the device.")
@DB_OPTION
def import_command(paths, suites, name, db):
    """Import device runs into the results database.

    PATHS are results CSVs of `progress run` (their .json metadata beside
    them) and files or folders of the artifact's layout
    (`<N>_thread_<K>_instruction/<framework>/<device>.csv`; one run per
    device across the groups). Every file is read and checked first; then
    all runs are stored in one transaction. A run already in the database is
    recognised and not stored again.

    Exit status: 0 imported (or already there), 2 a bad file (named with
    its line; nothing is written) or an unusable database.
    """
    suite = load_suite(suites)
    runs = read_runs(list(paths), suite)
    if name is not None:
        if len(runs) != 1:
            raise UsageError(f"--name names one run; PATHS hold {len(runs)}")
        if not name.strip() or len(name) > 200 or not name.isprintable():
            raise UsageError("--name is a line of at most 200 printable characters")
        runs = [replace(runs[0], name=name)]
    with open_database(db, writable=True) as database:
        stored = database.import_runs(runs)
    lines = []
    for run, (run_id, new) in zip(runs, stored):
        state = "imported" if new else "already in the database"
        lines.append(f"run {run_id} {run.name}: {len(run.keys())} tests, {state}")
    fresh = sum(1 for _, new in stored if new)
    lines.append(f"{len(runs)} runs: {fresh} new, {len(runs) - fresh} already there; database {db}")
    write_stdout(printable("\n".join(lines) + "\n"))


@results_group.command("list")
@DB_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "md"]), default="text", show_default=True)
def list_command(db, fmt):
    """The runs in the results database: id, name, device, backend, date, tests."""
    with open_database(db) as database:
        write_stdout(printable(runs_table(database.runs(), fmt)))


def load_suite(suites: tuple[Path, ...]) -> Suite:
    """Every .axb test under the --suite folders, keyed relative to its folder;
    a test below two of them, relative to the innermost (`--suite
    litmus/oopsla21 --suite litmus`: the published suite's keys stay `2t2i/0.axb`)."""
    roots = [folder.resolve() for folder in suites]
    tests = []
    for folder, root in zip(suites, roots):
        inner = [other for other in roots if root in other.parents]
        for path in expand([str(folder)]):
            if inner and any(other in path.resolve().parents for other in inner):
                continue
            tests.append((path.relative_to(folder).as_posix(), load(path)))
    try:
        return suite_of("+".join(folder.resolve().name for folder in suites), tests)
    except ValueError as error:
        raise UsageError(f"--suite: {error}; give only the suite the results are of") from None


def read_runs(paths: list[Path], suite: Suite) -> list[Run]:
    """The runs in these files (folders: every CSV below them), each file checked."""
    files: dict[str, Path] = {}
    for path in paths:
        found = sorted(path.rglob("*.csv")) if path.is_dir() else [path]
        if path.is_dir() and not found:
            raise InputError(f"{path}: no results CSV in this folder")
        for item in found:
            files.setdefault(os.path.realpath(item), item)
    artifact, runs = [], []
    for path in files.values():
        text = read_text(path)
        if text.lstrip("\ufeff").startswith("Test File Name") or importers.GROUP.match(path.parent.parent.name):
            artifact.append(importers.read_artifact_file(str(path), text, suite))
        else:
            meta = path.with_suffix(".json")
            if not meta.is_file():
                raise InputError(f"{path}: no metadata {meta} beside it (progress run writes both)")
            runs.append(importers.project_run(str(path), text, str(meta), read_text(meta), suite))
    return importers.artifact_runs(artifact, suite) + runs
