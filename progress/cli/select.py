"""`progress select`: a compact suite from a synthesis store or from tests,
covering every lattice edge k times and every verdict vector once."""

from __future__ import annotations

from pathlib import Path

import click

from progress.cli.inputs import expand, load, read_text, suite_names
from progress.cli.outputs import writing
from progress.core.analyze import check_program, queries_for
from progress.core.classify import LATTICE, PAPER, Column
from progress.core.registry import all_models
from progress.errors import InputError, UsageError
from progress.synth import canonical, export
from progress.synth import select as selecting
from progress.synth.separate import edges, requirement
from progress.synth.space import Bounds
from progress.synth.store import Store, unpack_verdicts

RULE_CHOICES = {"both": (LATTICE, PAPER), LATTICE: (LATTICE,), PAPER: (PAPER,)}


@click.command("select")
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True, help="Suite directory."
)
@click.option("-k", type=click.IntRange(min=1), default=selecting.DEFAULT_K, show_default=True, help="Tests per edge.")
@click.option(
    "--rule",
    type=click.Choice(sorted(RULE_CHOICES)),
    default="both",
    show_default=True,
    help="Cover the edges under the lattice rule, the paper's, or both.",
)
def select_command(inputs, output, k, rule):
    """Choose a small suite from INPUTS (synthesis stores, `.db`, or tests:
    files, directories, @lists): every lattice edge that some input test
    separates gets at least K separating tests (all of them if fewer exist),
    and every distinct verdict vector is represented once. Ties go to the
    smallest test (threads, instructions, canonical order), so the same
    inputs give the same suite.

    Writes the suite under OUTPUT (`<T>t<I>i/<n>.axb` named as `progress
    synth --export` names them, or the tests' own relative paths), each with
    an `# expect:` line, plus `selection.csv`; prints what it covers.

    Exit status: 0 written, 2 bad input or usage.
    """
    models = list(all_models())
    reqs = [requirement(a, b, r) for r in RULE_CHOICES[rule] for a, b in edges(models)]
    stores = [p for p in inputs if p.endswith(".db")]
    paths = [p for p in inputs if not p.endswith(".db")]
    tests: list[selecting.Classified] = []
    texts: dict[str, object] = {}
    for path in stores:
        tests += _from_store(Path(path), texts)
    if paths:
        tests += _from_files(paths, models, texts)
    names = [t.name for t in tests]
    if len(set(names)) != len(names):
        raise UsageError("two inputs give tests the same name (the same store twice?)")
    if not tests:
        raise UsageError("the inputs hold no tests")
    result = selecting.select(tests, reqs, k)
    _write(output, result, texts)
    click.echo(_summary(result, inputs, output))


def _from_store(path: Path, texts: dict) -> list[selecting.Classified]:
    if not path.is_file():
        raise InputError(f"no such store: {path}")
    with Store(path, readonly=True) as store:
        params, labels = store.params(), store.labels()
        bounds = Bounds(params["threads"], params["instructions"], params["locations"], params["values"])
        if params.get("stop") != "exhausted":
            click.echo(
                f"warning: {path} is an incomplete run ({params.get('stop')}): selecting from what it holds", err=True
            )
        result = []
        for number, (candidate, mask) in enumerate(store.tests()):  # export order: numbered as --export does
            cells = unpack_verdicts(mask, len(labels))
            name = f"{bounds.label}/{number}.axb"
            verdicts = tuple((label, {"P": True, "F": False}.get(cell)) for label, cell in zip(labels, cells))
            order = (bounds.threads, bounds.instructions, canonical.sort_key(candidate), name)
            result.append(selecting.Classified(name, order, verdicts))
            texts[name] = (candidate, cells, labels, f"synth_{bounds.label}_{number}", bounds)
    return result


def _from_files(paths: list[str], models, texts: dict) -> list[selecting.Classified]:
    files = expand(paths)
    names = suite_names(paths, files)
    queries = queries_for(models)
    result = []
    for name, path in zip(names, files):
        program = load(path)
        report = check_program(program, queries, witnesses=False)
        verdicts = tuple((Column(v.model, v.fairness).label, v.terminates) for v in report.verdicts)
        candidate = canonical.from_program(program)
        order = (len(program.threads), program.instruction_count, canonical.sort_key(candidate), name)
        result.append(selecting.Classified(name, order, verdicts))
        texts[name] = (read_text(path), verdicts)
    return result


def _text(name: str, source) -> str:
    if len(source) == 5:
        return export.axb_text(*source)
    text, verdicts = source
    if "# expect:" in text:
        return text
    head, _, rest = text.partition("\n")
    cells = " | ".join(f"{label} {'P' if v else 'F' if v is False else '?'}" for label, v in verdicts)
    return f"{head}\n# expect: {cells}\n{rest}"


def _write(root: Path, result: selecting.Selection, texts: dict) -> None:
    rows = ["test,vector,separates"]
    labels = [c.requirement for c in result.coverage]
    with writing(root / "selection.csv"):
        for test in result.chosen:
            target = root / test.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_text(test.name, texts[test.name]), encoding="utf-8")
            verdicts = dict(test.verdicts)
            covered = [f"{r.rule}:{r.a.label}>{r.b.label}" for r in labels if r.met_by(verdicts)]
            rows.append(f"{test.name},{test.vector},{' '.join(covered)}")
        (root / "selection.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def _summary(result: selecting.Selection, inputs, root: Path) -> str:
    lines = [
        f"select: {result.tests} tests from {' '.join(inputs)}; k = {result.k}",
        f"chosen: {len(result.chosen)} tests ({result.tests} -> {len(result.chosen)}); "
        f"all {result.vectors} distinct verdict vectors represented",
    ]
    width = max(len(_edge(c.requirement)) for c in result.coverage)
    lines.append(f"  {'edge':<{width}}  {'separating':>10}  {'chosen':>6}")
    for c in result.coverage:
        lines.append(f"  {_edge(c.requirement):<{width}}  {c.available:>10}  {c.chosen:>6}")
    uncovered = [c for c in result.coverage if not c.available]
    if uncovered:
        lines.append(f"{len(uncovered)} edge(s) no input test separates (left out)")
    lines.append(f"wrote {len(result.chosen)} test(s) and selection.csv to {root}")
    return "\n".join(lines)


def _edge(req) -> str:
    return f"{req.rule} {req.a.label} > {req.b.label}"
