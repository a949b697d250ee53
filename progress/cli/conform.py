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
from progress.gpu import conform as conforming
from progress.gpu.results import parse_csv


@click.command()
@click.argument("results_csv", metavar="RESULTS", type=click.Path(dir_okay=False, path_type=Path))
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
def conform(results_csv, suites, keys_path, fmt, max_states):
    """For each model and fairness: the conformance tests that failed on the
    device, and whether the device is "consistent with" or "violates" it.

    RESULTS is a CSV written by `progress run`. Verdicts come from the
    checker; tests of RESULTS found in no --suite directory are left out
    (and counted); when none is found, nothing is compared: exit 2.

    Exit status: 0 the report was printed (also when the device violates a
    model), 2 bad input or no test of RESULTS in any --suite.
    """
    try:
        heuristics, rows = parse_csv(read_text(results_csv))
    except ValueError as error:
        raise InputError(f"{results_csv}: {error}") from None
    if bool(suites) == (keys_path is not None):
        raise UsageError("give --suite DIR (check the tests) or --keys FILE (the synthesizer's verdicts), one of them")
    if keys_path is not None:
        verdicts, missing = keyed_verdicts(keys_path, rows)
    else:
        verdicts, missing = _checked(rows, suites, max_states)
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
        + (f", {len(missing)} not in the suite (left out)" if missing else "")
        + "\n"
        + printable(conforming.render_text(report, heuristics))  # the CSV's keys may hold control characters
    )


def _checked(rows, suites, max_states) -> tuple[dict, list[str]]:
    """The checker's verdicts of every result found in a --suite directory, and the keys not found."""
    queries = queries_for(all_models())
    verdicts, missing = {}, []
    for key in rows:
        path = _find(key, suites)
        if path is None:
            missing.append(key)
            continue
        verdicts[key] = check_program(load(path), queries, max_states=max_states, witnesses=False).verdicts
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
