"""`progress models`: the registered progress models and their definitions."""

from __future__ import annotations

import click

from progress.core.registry import all_models
from progress.core.scoped import SCOPES

SCOPE_CHILDREN = (
    "the workgroups of a dispatch",
    "the subgroups of a workgroup",
    "the lanes (invocations) of a subgroup",
)


@click.command()
def models():
    """List the registered progress models with their fair sets F.

    One line per model, in registry order: its name, its F, and (above: ...) the
    models immediately below it in the fairness order; then the scopes at
    which every model can be given (docs/semantics.md section 10).
    """
    registered = all_models()
    width = max(len(m.name) for m in registered)
    for model in registered:
        below = ", ".join(model.below) if model.below else "-"
        click.echo(f"{model.name:<{width}}  {model.definition}  (above: {below})")
    click.echo("")
    click.echo("scopes (each takes any model above; a plain --model M is M for the workgroups, fair inside):")
    for scope, among in zip(SCOPES, SCOPE_CHILDREN):
        click.echo(f"  {scope:<9}  chooses among {among}")
    click.echo(
        "  e.g. --model OBE/HSA/fair, --model workgroup=OBE,subgroup=HSA,lane=fair,"
        " --model '[QF=OBE, SG=UNFAIR, DEFAULT=FAIR]'"
    )
