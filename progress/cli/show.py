"""`progress show`: draw one test's LTS under one model (Graphviz for SVG/PNG)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import click

from progress.back.draw import kernel_picture, picture, to_dot, to_text
from progress.cli.inputs import KERNEL_SUFFIXES, load
from progress.cli.launch_options import compile_options, constant_options
from progress.cli.outputs import write_file, write_stdout
from progress.core.model_spec import parse_models
from progress.errors import EXIT_OK, UsageError

FORMATS = ("text", "dot", "svg", "png")
MAX_DRAW = 1000
"""The most states Graphviz is asked to lay out by default: its layout grows
much faster than linearly, and an 8,000-state LTS takes it minutes."""


@click.command("show")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--model",
    "-m",
    "model_name",
    required=True,
    metavar="MODEL",
    help="The progress model, or one per scope (OBE/HSA/unfair, workgroup=OBE,lane=HSA, [QF=OBE, SG=UNFAIR]).",
)
@click.option(
    "--scope",
    type=click.Choice(["workgroup", "subgroup", "lane"]),
    default="workgroup",
    show_default=True,
    help=".axb tests: the threads as workgroups, subgroups of one workgroup or lanes of one subgroup.",
)
@click.option("--weak", "fairness", flag_value="weak", default=True, help="Weak fairness (default).")
@click.option("--strong", "fairness", flag_value="strong", help="Strong fairness.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Default: from -o's suffix, else text.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to FILE instead of standard output.",
)
@click.option("--max-states", type=click.IntRange(min=1), default=None, help="Give up past this many states (exit 3).")
@click.option(
    "--max-draw",
    type=click.IntRange(min=1),
    default=MAX_DRAW,
    show_default=True,
    help="SVG/PNG only: refuse (exit 2) an LTS with more states than this instead of running Graphviz for minutes.",
)
@click.option("--workgroups", metavar="N", help="Kernels: dispatch N workgroups (default: the header's, else 1).")
@click.option("--buffer", "buffers", multiple=True, metavar="NAME=LEN", help="Kernels: a runtime array's length.")
@click.option("--init", "inits", multiple=True, metavar="NAME=V|NAME[i]=V", help="Kernels: a cell's initial value.")
@constant_options
@compile_options
def show(path, model_name, scope, fairness, fmt, output, max_states, max_draw, workgroups, buffers, inits, **constants):
    """Draw TEST.axb's LTS under MODEL: states (memory | pcs, model memory),
    steps `T<thread>:<instruction> {F}`, end states doubly outlined, the
    witness set shaded, its loop in red and the way there in blue. A kernel
    (.comp, .hlsl, .wgsl, .spv, .spvasm): states (cells | each invocation's next
    source line), steps `<workgroup>.<invocation>:<line> {F}`.

    Exit status: 0 drawn, 2 bad input, Graphviz missing or more than
    --max-draw states for SVG/PNG, 3 state bound hit.
    """
    fmt = fmt or _format_from(output)
    if fmt == "png" and output is None and sys.stdout.isatty():
        raise UsageError("a PNG is binary: give -o FILE.png (or redirect standard output)")
    models = parse_models([model_name])
    if len(models) != 1:
        raise UsageError(f"--model {model_name!r}: show draws one model")
    model = models[0]
    if path.name.endswith(KERNEL_SUFFIXES):
        from progress.cli.kernel import given_settings, kernel_system  # the SPIR-V front end, on demand

        given = given_settings(workgroups, buffers, inits, None, None, **constants)
        pic = kernel_picture(kernel_system(path, given), model, fairness, max_states)
    else:
        pic = picture(load(path), model, fairness, max_states, scope)
    if fmt == "text":
        _emit(to_text(pic).encode(), output)
    elif fmt == "dot":
        _emit(to_dot(pic).encode(), output)
    else:
        if pic.lts.size > max_draw:
            raise UsageError(
                f"{path}: the LTS has {pic.lts.size} states, more than --max-draw {max_draw}; Graphviz would take "
                "minutes to lay it out: use --format text or dot, or raise --max-draw"
            )
        _emit(render(to_dot(pic), fmt), output)
    raise SystemExit(EXIT_OK)


def _format_from(output: Path | None) -> str:
    suffix = output.suffix.lower().lstrip(".") if output is not None else ""
    return suffix if suffix in FORMATS[1:] else "text"


def render(dot: str, fmt: str) -> bytes:
    """`dot -T<fmt>` on the DOT text."""
    program = shutil.which("dot")
    if program is None:
        raise UsageError(
            "Graphviz's `dot` is not installed (Debian: apt-get install graphviz); use --format dot or text"
        )
    done = subprocess.run([program, f"-T{fmt}"], input=dot.encode(), capture_output=True, check=False)
    if done.returncode != 0:
        raise UsageError(f"dot -T{fmt} failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def _emit(data: bytes, output: Path | None) -> None:
    if output is None:
        write_stdout(data)
        return
    write_file(output, data)
