"""The `progress` command line: the only place that reads files, prints and exits.

Subcommands are loaded lazily ("module:attribute") so that `progress check`
never imports what only other commands need (z3, plotting, CUDA).
"""

from __future__ import annotations

import importlib
import sys

import click

from .. import __version__
from ..errors import ProgressError

COMMANDS = {
    "check": "progress.cli.check:check",
    "models": "progress.cli.models:models",
    "synth": "progress.cli.synth:synth",
    "run": "progress.cli.run:run",
    "conform": "progress.cli.conform:conform",
    "classify": "progress.cli.classify:classify_command",
    "show": "progress.cli.show:show",
    "import": "progress.cli.port:import_command",
    "export": "progress.cli.port:export_command",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, attribute = COMMANDS[name].split(":")
        return getattr(importlib.import_module(module), attribute)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="progress")
def cli():
    """Decide, classify, synthesize and run GPU forward-progress litmus tests.

    Exit status: 0 guaranteed to terminate / all expectations met, 1 may not
    terminate / mismatch found, 2 bad input or usage, 3 inconclusive.
    """


def main(argv=None) -> None:
    """Console entry point: the one catch site for the project's errors."""
    try:
        code = cli.main(args=argv, prog_name="progress", standalone_mode=False)
    except ProgressError as error:
        click.echo(error.render(), err=True)
        sys.exit(error.exit_code)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as error:
        error.show()
        sys.exit(2 if error.exit_code == 2 else error.exit_code)
    sys.exit(code or 0)
