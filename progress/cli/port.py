"""`progress import` (the artifact's text form to .axb) and `progress export`
(.axb, the artifact's text form, or Promela for SPIN)."""

from __future__ import annotations

from pathlib import Path

import click

from progress.back.glsl_source import shader
from progress.back.promela import to_promela
from progress.cli.inputs import display, expand, read_text, suite_names
from progress.cli.outputs import write_file
from progress.core.canonical import canonical_text
from progress.core.program import is_name
from progress.core.registry import find_model
from progress.errors import EXIT_OK, InputError, UsageError
from progress.front.artifact import parse_artifact, to_artifact
from progress.front.axb.parse import parse_program
from progress.front.expect import expect_cells

SUFFIX = {"axb": ".axb", "artifact": ".txt", "glsl": ".comp", "promela": ".pml"}


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="A .axb file (one input) or a directory (one .axb per input, named after it).",
)
@click.option(
    "--name",
    default=None,
    help="The test's name (one input only; letters, digits, _). Default: the file's stem"
    " (written as a `test` line only when it is a valid name).",
)
def import_command(files, output, name):
    """Convert the OOPSLA'21 artifact's text form (THREAD0, atomic_exch_branch(l, c, x, t),
    atomic_chk_branch(l, c, t), atomic_store(l, v), target END) into .axb.

    Exit status: 0 converted, 2 bad input.
    """
    if name is not None and len(files) > 1:
        raise UsageError("--name needs exactly one input file")
    if name is not None and not is_name(name):
        raise UsageError(
            f"--name {name!r} is not a test name: letters, digits and _, not starting with a digit, not a keyword"
        )
    programs = [parse_artifact(read_text(path), str(path), name or path.stem) for path in files]
    texts = [p.to_axb() for p in programs]
    _write_all(list(map(str, files)), list(files), texts, output, ".axb")
    raise SystemExit(EXIT_OK)


@click.command("export")
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(sorted(SUFFIX)), default="axb", show_default=True)
@click.option("--model", "-m", "model_name", default=None, metavar="MODEL", help="The model (promela only).")
@click.option("--weak", "fairness", flag_value="weak", default=True, help="Weak fairness (default; promela).")
@click.option("--strong", "fairness", flag_value="strong", help="Refused: Promela export encodes weak fairness.")
@click.option(
    "--canonical", is_flag=True, help="axb: the canonical form (locations renamed, docs/semantics.md section 6)."
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="A file (one input) or a directory (one file per input, mirroring the inputs' layout).",
)
def export_command(paths, fmt, model_name, fairness, canonical, output):
    """Write tests as .axb (normalised or --canonical), as the artifact's text
    form, as a GLSL compute shader (a kernel test: one workgroup per thread,
    the test's `# expect:` line carried over; docs/kernels.md), or as Promela
    for SPIN with the model's fair set as ghost state and weak fairness as an
    acceptance condition (re-check command in its header).

    Exit status: 0 written, 2 bad input or usage.
    """
    if fmt == "promela":
        if model_name is None:
            raise UsageError("--format promela needs --model")
        if fairness == "strong":
            raise UsageError("Promela export expresses weak fairness only; use --weak")
    elif model_name is not None:
        raise UsageError("--model applies to --format promela only")
    files = expand(list(paths))
    if not files:
        raise UsageError("no .axb tests found in " + " ".join(paths))
    model = find_model(model_name) if model_name else None
    texts = []
    for path in files:
        text = read_text(path)
        program = parse_program(text, display(path))
        try:
            texts.append(_export(program, fmt, model, canonical, path, text))
        except ValueError as error:
            raise InputError(str(error)) from None
    _write_all(list(paths), files, texts, output, SUFFIX[fmt])
    raise SystemExit(EXIT_OK)


def _export(program, fmt: str, model, canonical: bool, path: Path, text: str) -> str:
    if fmt == "axb":
        return canonical_text(program) if canonical else program.to_axb()
    if fmt == "artifact":
        return to_artifact(program)
    if fmt == "glsl":
        return shader(program, expect_cells(text, display(path)))
    return to_promela(program, model, path.with_suffix(".pml").name)


def _write_all(raw: list[str], files: list[Path], texts: list[str], output: Path | None, suffix: str) -> None:
    """One text: to standard output or the file `output`. Several: `output` is a
    directory and each goes to its input's name relative to the common directory."""
    if len(texts) == 1 and (output is None or not output.is_dir()):
        if output is None:
            click.echo(texts[0], nl=False)
        else:
            write_file(output, texts[0])
        return
    if output is None:
        raise UsageError("several inputs need -o DIRECTORY")
    for name, text in zip(suite_names(raw, files), texts):
        write_file(output / Path(name).with_suffix(suffix), text)
    click.echo(f"wrote {len(texts)} file(s) under {output}", err=True)
