"""`progress separate`: the smallest tests that pass one verdict and fail
another, or the proof that none exists within the bounds."""

from __future__ import annotations

import time
from pathlib import Path

import click

from progress.cli.outputs import write_file
from progress.core.analyze import check_program
from progress.core.classify import LATTICE, RULES
from progress.core.registry import all_models
from progress.errors import EXIT_FAIL, EXIT_OK, UsageError
from progress.report.render import lasso_text, phrase
from progress.synth import canonical
from progress.synth import separate as sep
from progress.synth.space import Bounds


@click.command()
@click.argument("points", nargs=-1)
@click.option("--threads", "-t", type=click.IntRange(min=2), default=3, show_default=True, help="At most T threads.")
@click.option(
    "--instructions",
    "-i",
    type=click.IntRange(min=2),
    default=4,
    show_default=True,
    help="At most I instructions in all.",
)
@click.option("--locations", type=click.IntRange(min=1), default=2, show_default=True, help="At most L locations.")
@click.option("--values", type=click.IntRange(min=2), default=2, show_default=True, help="Values 0..V-1.")
@click.option(
    "--rule",
    type=click.Choice(RULES),
    default=LATTICE,
    show_default=True,
    help="lattice: pass A, fail B; paper: also in A's fairness class of Table 4 (docs/classify.md).",
)
@click.option(
    "--engine",
    type=click.Choice(sep.ENGINES),
    default=sep.DEFAULT_ENGINE,
    show_default=True,
    help="enum: judge every candidate, check the named verdicts; z3: Z3 proposes tests that fail B, A is checked.",
)
@click.option("--all", "every_edge", is_flag=True, help="Every edge of the lattice under both rules (no A B).")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="With --all: write the Markdown table here (default: standard output).",
)
@click.option(
    "--examples",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="With --all: write each edge's smallest test as DIR/<rule>/<A>-<B>.axb.",
)
def separate(points, threads, instructions, locations, values, rule, engine, every_edge, output, examples):
    """Find the smallest tests that pass verdict A and fail verdict B
    (e.g. "LOBE/strong" "HSA+OBE/strong"), searching sizes in increasing
    order (threads, then instructions, then locations and values) up to
    the bounds, and stop at the first size that has one; or prove that
    none exists up to the bounds.

    Exit status: 0 a separating test was found (with --all: the table was
    written), 1 none exists within the bounds, 2 bad usage.
    """
    if instructions < threads:
        raise UsageError(f"--instructions {instructions} < --threads {threads}: every thread needs one")
    limit = Bounds(threads, instructions, locations, values)
    models = list(all_models())
    if every_edge:
        if points:
            raise UsageError("--all takes no verdicts (it does every edge of the lattice)")
        _all(limit, models, output, examples, engine)
        raise SystemExit(EXIT_OK)
    if output or examples:
        raise UsageError("-o and --examples go with --all")
    if len(points) != 2:
        raise UsageError('give two verdicts, A and B, e.g. progress separate "LOBE/strong" "HSA+OBE/strong"')
    try:
        a, b = (sep.parse_point(p, models) for p in points)
        req = sep.requirement(a, b, rule)
    except ValueError as error:
        raise UsageError(str(error)) from None
    click.echo(f"separate: {req.text}; up to {_limit_text(limit)}")
    result = sep.separate(req, limit, models, _announce, _ticker(), engine)
    click.echo("\n".join(_size_line(report) for report in result.sizes))
    hit = result.hit
    if hit is None:
        click.echo(f"none: no test within {_limit_text(limit)} can {_does(req)} ({_covered(result)})")
        raise SystemExit(EXIT_FAIL)
    click.echo(_found_text(result, hit, models))
    raise SystemExit(EXIT_OK)


def _limit_text(limit: Bounds) -> str:
    return f"{limit.label}, <= {limit.locations} locations, values 0..{limit.values - 1}"


def _does(req: sep.Requirement) -> str:
    parts = [f"pass {', '.join(c.label for c in req.passes)}", f"fail {', '.join(c.label for c in req.fails)}"]
    return " and ".join(parts)


def _size_line(report: sep.SizeReport) -> str:
    if report.skipped:
        return f"  {report.bounds.label}: no search needed: {report.skipped}"
    return (
        f"  {report.bounds.label}: {report.candidates} candidates judged, {report.tests} tests, "
        f"{len(report.separating)} separating ({report.seconds:.2f} s)"
    )


def _covered(result: sep.Separation) -> str:
    """Which sizes were exhausted and which were settled by the subset argument."""
    searched = [r.bounds.label for r in result.sizes if not r.skipped and not r.separating]
    skipped = [r.bounds.label for r in result.sizes if r.skipped]
    parts = []
    if searched:
        parts.append(f"exhausted: {', '.join(searched)}")
    if skipped:
        parts.append(f"impossible by the subset argument: {', '.join(skipped)}")
    return "; ".join(parts) or "nothing below"


def _found_text(result: sep.Separation, hit: sep.Hit, models) -> str:
    req, bounds = result.requirement, hit.bounds
    lines = [
        f"found: {len(hit.tests)} separating test(s) at {bounds.label} with <= {bounds.locations} location(s), "
        f"values 0..{bounds.values - 1}",
    ]
    if len(hit.tests) != len(hit.within_limit):
        lines.append(f"  ({len(hit.within_limit)} within {_limit_text(result.limit)} at {bounds.label})")
    smaller = _covered(sep.Separation(req, result.limit, result.sizes[:-1]))
    if bounds.locations > 1 or bounds.values > 2:
        smaller += f"; at {bounds.label}, none with fewer locations or values"
    lines.append(f"none at any smaller size ({smaller})")
    lines.append("the smallest (canonical order):")
    name = f"separating_{bounds.label}"
    lines.append(sep.axb_text(hit.smallest, name, [f"separates: {req.text}"], models).rstrip("\n"))
    lines += _lassos(hit.smallest, req, models)
    return "\n".join(lines)


def _lassos(candidate, req: sep.Requirement, models) -> list[str]:
    """Each named verdict with its lasso (a passing verdict has none)."""
    program = canonical.to_program(candidate, "smallest")
    by_name = {m.name: m for m in models}
    report = check_program(program, sep.queries(req.columns, by_name), witnesses=True)
    lines = []
    for verdict in report.verdicts:
        label = sep.Column(verdict.model, verdict.fairness).label
        if verdict.terminates or verdict.witness is None:
            lines.append(f"{label}: {phrase(verdict)} (every fair run terminates: no lasso)")
        else:
            lines.append(f"{label}: {phrase(verdict)}; lasso:")
            lines.append(lasso_text(verdict.witness, program))
    return lines


def _announce(bounds: Bounds) -> None:
    click.echo(f"searching {bounds.label} ...", err=True)


def _ticker():
    """A `progress:` line on stderr at most once a second."""
    state = {"last": time.monotonic(), "judged": 0}

    def tick(judged: int, units: int) -> None:
        state["judged"] += judged
        now = time.monotonic()
        if now - state["last"] >= 1.0:
            state["last"] = now
            click.echo(f"progress: {state['judged']} candidates judged", err=True)

    return tick


def _all(limit: Bounds, models, output: Path | None, examples: Path | None, engine: str) -> None:
    from progress.synth import separation_table as table

    started = time.monotonic()
    results = table.run(limit, models, _announce, _ticker(), engine)
    files = table.example_files(results, models)
    text = table.markdown(results, limit, files)
    if output:
        write_file(output, text)
    else:
        click.echo(text, nl=False)
    if examples:
        for name, body in files.items():
            write_file(examples / name, body)
    found = sum(1 for r in results if r.found)
    click.echo(
        f"{found} of {len(results)} edge(s) separated within {_limit_text(limit)}; {time.monotonic() - started:.1f} s",
        err=True,
    )
