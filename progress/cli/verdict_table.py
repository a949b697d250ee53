"""Expected verdicts of a test that carries no `# expect:` line: its row in
the verdict table of the nearest directory above it (`check --expect-header`).

A verdict table is a file named `cadp_verdicts.csv` in the artifact's layout
(`progress/report/tables.py`): `test`, the test's path relative to the
table's directory with `/`, then one `P`/`F`/`?` column per model/fairness.
The published suite ships one (litmus/oopsla21/cadp_verdicts.csv), so its
483 files, which have no header lines, are checked against CADP's verdicts.
Only the nearest table counts; a test it does not name has no expectation
(bad input for --expect-header, never a pass). A `?` cell states nothing.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from progress.cli.inputs import read_text
from progress.report.tables import parse_verdict_csv

TABLE_NAME = "cadp_verdicts.csv"

Key = tuple[str, str]


def nearest_table(test: Path) -> Path | None:
    """The verdict table of the nearest directory above `test`, if any (relative when `test` is and the
    table is inside the current directory, so messages name it as the user wrote the test)."""
    above = list(test.parents) + ([] if test.is_absolute() else list(Path.cwd().parents))
    for directory in above:
        if _has_table(directory):
            return directory / TABLE_NAME
    return None


def table_expectations(test: Path, table: Path, known: dict[Key, str]) -> dict[Key, bool] | None:
    """`test`'s row of `table` as {(MODEL, fairness): terminates}, or None
    when the table does not name it. `known` maps each checkable verdict to
    its column label (`fair/weak`); any other column is an InputError."""
    rows = _rows(table, tuple(sorted(known.values())))
    name = test.absolute().relative_to(table.parent.absolute()).as_posix()
    row = rows.get(name)
    if row is None:
        return None
    key_of = {label: key for key, label in known.items()}
    return {key_of[label]: cell == "P" for label, cell in row.items() if cell != "?"}


def _has_table(directory: Path) -> bool:
    return (directory / TABLE_NAME).is_file()


def _rows(table: Path, labels: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """The table's rows, parsed once per content: keyed on its absolute path and its
    stat (a process that checks again after a table was edited, or from another
    directory, reads the table it names now)."""
    state = table.stat()
    return _parsed(table, table.absolute(), state.st_mtime_ns, state.st_size, state.st_ino, labels)


@lru_cache(maxsize=8)
def _parsed(
    table: Path, where: Path, mtime: int, size: int, inode: int, labels: tuple[str, ...]
) -> dict[str, dict[str, str]]:
    return parse_verdict_csv(read_text(table), str(table), labels)
