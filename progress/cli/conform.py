"""`progress conform`: which progress models a device's results are consistent with."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from progress.cli.inputs import load, read_text
from progress.cli.outputs import write_stdout
from progress.core.analyze import NO_FAIRNESS, Verdict, check_program, queries_for
from progress.core.registry import all_models
from progress.errors import InputError, UsageError, printable
from progress.front.axb.parse import parse_program
from progress.gpu import conform as conforming
from progress.gpu.results import parse_csv


@click.command()
@click.argument("results_csv", metavar="RESULTS", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--suite",
    "suites",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Directory the results' test keys are relative to (repeatable; a key found in two "
    "suites as different tests is an error).",
)
@click.option(
    "--keys",
    "keys_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Take the verdicts from a keys file (the synthesizer's, for a run of `progress run --keys`) "
    "instead of checking --suite tests.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=None,
    help="Leave a test's verdict undecided past this many states.",
)
@click.option(
    "--scope",
    type=click.Choice(["workgroup", "lane"]),
    default=None,
    help="Judge at this scope: lane for an intra-warp run (its tests' threads as lanes of one warp: "
    "model M is (fair, fair, M), docs/semantics.md section 10). Default: the run's own (a --db run's "
    "variant; a CSV's .json beside it), else workgroup.",
)
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None, help="A results database.")
@click.option("--run", "run_id", default=None, help="With --db: the run (its id or name; `progress results list`).")
def conform(results_csv, suites, keys_path, fmt, max_states, scope, db, run_id):
    """For each model and fairness: the conformance tests that failed on the
    device, and whether the device is "consistent with" or "violates" it.

    RESULTS is a CSV written by `progress run`, with --suite (or --keys, for
    a run of a keys file: the synthesizer's verdicts); or `--db FILE
    --run ID` names a run in a results database, whose tests are stored
    with it. Verdicts come from the checker; tests of RESULTS found in no
    --suite directory are left out (and counted); when none is found,
    nothing is compared: exit 2.

    Exit status: 0 the report was printed (also when the device violates a
    model), 2 bad input or no test of RESULTS in any --suite.
    """
    if db is not None or run_id is not None:
        if results_csv is not None or suites or keys_path is not None or db is None or run_id is None:
            raise UsageError("give RESULTS with --suite (or --keys), or --db FILE with --run ID (not both)")
        name, heuristics, rows, verdicts, missing, scope = _stored(db, run_id, max_states, scope)
    elif results_csv is None or bool(suites) == (keys_path is not None):
        raise UsageError(
            "give RESULTS with --suite DIR (check the tests) or --keys FILE (the synthesizer's verdicts), "
            "or --db FILE with --run ID"
        )
    else:
        name = str(results_csv)
        scope = scope or _csv_scope(results_csv)
        heuristics, rows, verdicts, missing = _from_csv(results_csv, suites, keys_path, max_states, scope)
    _report(name, heuristics, rows, verdicts, missing, fmt, scope)


def _csv_scope(results_csv: Path) -> str:
    """The scope a `progress run` CSV's metadata (the .json beside it) names, else workgroup."""
    meta = results_csv.with_suffix(".json")
    try:
        return "lane" if json.loads(meta.read_text()).get("scope") == "lane" else "workgroup"
    except (OSError, ValueError, AttributeError):
        return "workgroup"


def _from_csv(results_csv, suites, keys_path, max_states, scope="workgroup"):
    try:
        heuristics, rows = parse_csv(read_text(results_csv))
    except ValueError as error:
        raise InputError(f"{results_csv}: {error}") from None
    if keys_path is not None:
        if scope != "workgroup":
            raise UsageError("--keys holds the synthesizer's workgroup-scope verdicts: give --suite for --scope lane")
        verdicts, missing = keyed_verdicts(keys_path, rows)
    else:
        verdicts, missing = _checked(rows, suites, max_states, scope)
    return heuristics, rows, verdicts, missing


def _stored(db, run_id, max_states, scope):
    """A stored run: (its name, heuristics, rows, verdicts of its stored tests, [], the scope)."""
    from progress.gpu.database import open_database  # sqlite: only with --db
    from progress.gpu.devices import scope_of

    with open_database(db) as database:
        info = database.run(run_id)
        rows, programs = database.rows(info.id), database.programs(info.id)
    scope = scope or scope_of(info)
    verdicts = stored_verdicts(programs, max_states, scope=scope)
    return f"{db}: run {info.id} ({info.name})", info.heuristics, rows, verdicts, [], scope


def stored_verdicts(
    programs: dict[str, str], max_states=None, memo: dict | None = None, scope: str = "workgroup"
) -> dict:
    """{key: verdicts} of stored canonical AXB texts, each distinct text checked
    once (in `memo`, which callers may share between runs of one scope); at
    the lane scope a model M is (fair, fair, M) (docs/semantics.md section 10)."""
    queries = queries_for(all_models())
    by_text: dict[str, tuple] = {} if memo is None else memo
    out = {}
    for key, text in programs.items():
        if text not in by_text:
            program = parse_program(text, f"<stored test {key}>")
            by_text[text] = check_program(
                program, queries, max_states=max_states, witnesses=False, scope=scope
            ).verdicts
        out[key] = by_text[text]
    return out


def _report(results_csv, heuristics, rows, verdicts, missing, fmt, scope="workgroup") -> None:
    if not verdicts:
        example = f", such as {missing[0]!r}" if missing else ""
        raise InputError(
            f"no test of {results_csv} is in any --suite directory"
            f" ({len(missing)} test(s){example}): nothing to compare"
        )
    report = conforming.conformance(heuristics, rows, verdicts)
    if fmt == "json":
        write_stdout(
            json.dumps(
                {
                    "results": str(results_csv),
                    "scope": scope,
                    "tests": len(verdicts),
                    "not_in_suite": missing,
                    "models": [conforming.as_dict(item) for item in report],
                },
                indent=2,
            )
            + "\n"
        )
        return
    write_stdout(
        f"{results_csv}: {len(verdicts)} tests checked"
        + (" at the lane scope (model M is (fair, fair, M): its lanes are scheduled by M)" if scope == "lane" else "")
        + (f", {len(missing)} not in the suite (left out)" if missing else "")
        + "\n"
        + printable(conforming.render_text(report, heuristics))  # the CSV's keys may hold control characters
    )


def _find(key: str, suites) -> Path | None:
    """The test a key names: `DIR/key` for the --suite DIR that has it. Two
    suites holding different files under one key are a UsageError: which test
    ran is unknown, so conforming either would be a guess."""
    found = [d / key for d in suites if (d / key).is_file()]
    for other in found[1:]:
        if not os.path.samefile(found[0], other) and other.read_bytes() != found[0].read_bytes():
            raise UsageError(
                f"the result {key} matches two different tests, {found[0]} and {other}: "
                "give only the --suite the run used"
            )
    return found[0] if found else None


def _checked(rows, suites, max_states, scope="workgroup") -> tuple[dict, list[str]]:
    """The checker's verdicts of every result found in a --suite directory, and the keys not found."""
    queries = queries_for(all_models())
    verdicts, missing = {}, []
    for key in rows:
        path = _find(key, suites)
        if path is None:
            missing.append(key)
            continue
        verdicts[key] = check_program(load(path), queries, max_states=max_states, witnesses=False, scope=scope).verdicts
    return verdicts, missing


def keyed_verdicts(path: Path, rows) -> tuple[dict, list[str]]:
    """The keys file's verdicts of every result it holds (keyed as `progress run
    --keys` keys them, `3t5i/17.axb`), and the keys it does not hold. A
    label is `model/fairness` or a model without fairness (`unfair`)."""
    from progress.synth.keys import open_keys

    verdicts: dict[str, tuple[Verdict, ...]] = {}
    with open_keys(path) as keys:
        label = keys.bounds.label
        names = [(name.split("/")[0], name.split("/")[1] if "/" in name else NO_FAIRNESS) for name in keys.labels]
        for number, (_, mask) in enumerate(keys.tests()):
            key = f"{label}/{number}.axb"
            if key in rows:
                cells = [(mask >> (2 * i)) & 3 for i in range(len(names))]
                verdicts[key] = tuple(
                    Verdict(m, f, None if c == 2 else c == 1, 0, 0) for (m, f), c in zip(names, cells)
                )
    return verdicts, [key for key in rows if key not in verdicts]
