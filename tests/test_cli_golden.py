"""Golden CLI output, mypyvy style.

Each `tests/golden/*.expect` file starts with the command to run (from the
repository root; the leading `progress` is the console script), then
`# exit N`, then the exact expected standard output, then, if the command
wrote to standard error, a line `# stderr` and the exact standard error.

Regenerate every file from the current CLI with

    PROGRESS_UPDATE_GOLDEN=1 python -m pytest tests/test_cli_golden.py

and review the diff before committing it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, progress_command

GOLDEN = Path(__file__).resolve().parent / "golden"
FILES = sorted(GOLDEN.glob("*.expect"))
STDERR = "# stderr\n"


def run(command: str) -> str:
    """Run a golden command and render its result in the .expect layout (after line 1)."""
    words = shlex.split(command)
    assert words[0] == "progress", f"a golden command runs progress, not {words[0]!r}"
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1", TERM="dumb")
    done = subprocess.run(
        progress_command() + words[1:], cwd=REPO, capture_output=True, text=True, timeout=120, env=env
    )
    assert "Traceback" not in done.stderr, done.stderr
    text = f"# exit {done.returncode}\n{done.stdout}"
    if done.stdout and not done.stdout.endswith("\n"):
        text += "\n"
    if done.stderr:
        text += STDERR + done.stderr
    return text


def test_there_are_golden_files():
    names = {f.stem for f in FILES}
    assert {
        "table",
        "single_verdict",
        "starvation_lasso",
        "livelock_lasso",
        "strong_witness",
        "bad_input",
        "json",
        "models",
    } <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_golden(path: Path):
    command, _, expected = path.read_text().partition("\n")
    actual = run(command)
    if os.environ.get("PROGRESS_UPDATE_GOLDEN") == "1":
        path.write_text(f"{command}\n{actual}")
        return
    assert actual == expected, f"{path.name}: output changed (PROGRESS_UPDATE_GOLDEN=1 regenerates)"


@pytest.mark.parametrize("args", [["--help"], ["check", "--help"], ["models", "--help"], ["--version"]], ids=" ".join)
def test_help_and_version(args):
    """Help never crashes: every registered subcommand must import (docs/cli.md documents them)."""
    done = subprocess.run(progress_command() + args, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.strip()
