"""`progress models`: the registered progress models and their definitions."""

from __future__ import annotations

import click

from progress.core.registry import all_models


@click.command()
def models():
    """List the registered progress models with their fair sets F.

    One line per model, in registry order: its name, its F, and (above: ...) the
    models immediately below it in the fairness order.
    """
    registered = all_models()
    width = max(len(m.name) for m in registered)
    for model in registered:
        below = ", ".join(model.below) if model.below else "-"
        click.echo(f"{model.name:<{width}}  {model.definition}  (above: {below})")
