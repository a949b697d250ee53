"""The `$ progress ...` commands that README.md and docs/*.md show, read out
of their fenced code blocks, and run as the reader would run them.

A fenced block holds a session: `$ COMMAND` lines, each followed by the
output the doc shows for it, up to the next `$` line or the block's end.
What the docs may say in such a block, and what it means here:

- `$ progress ...` (or any other command): run by bash in the session's
  folder; its standard output and error, merged, must match the lines shown
  (a line `...` stands for any lines, none included; `...` in a line, for
  any text in that line). A command that is the
  last of its block with nothing shown under it is run but its output is
  not compared (the doc does not print it); exit 70 or a traceback fails.
- `$ cat NAME` followed by lines: the file NAME with those lines, written
  into the session's folder before the commands after it run (or, when the
  repository has it, compared with it).
- `$ echo $?` followed by a number: the previous command's exit status.
- A block whose info string (after the fence) holds the word `long`: its
  commands take longer than a unit test should; tests/test_docs_commands.py
  skips them and benchmarks/docs_long_commands.py runs them (results in
  docs/results/docs_commands.md).
- A block whose info string holds `file=NAME`: the block is the file NAME
  (the reader was told to save it), written into the session's folder.

Each doc is one session, in order, in its own folder that mirrors the
repository's root (a link to each top-level entry), so `litmus/...` names
the shipped files and what a command writes stays out of the checkout.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = ("README.md", *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md")))
"""Every doc whose commands run: the README and docs/*.md (not docs/results/: measurements, not instructions)."""
FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<info>.*)$")
ELLIPSIS = "..."


@dataclass(frozen=True)
class Command:
    doc: str
    line: int
    text: str
    shown: tuple[str, ...] | None
    """The output lines the doc shows; None: not shown, not compared."""
    status: int | None
    """The exit status the doc shows (`$ echo $?`), if it does."""
    long: bool

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}: $ {self.text}"


@dataclass(frozen=True)
class File:
    doc: str
    line: int
    name: str
    lines: tuple[str, ...]


Step = Command | File


def steps_of(doc: str, text: str) -> list[Step]:
    """The doc's files and commands, in order."""
    steps: list[Step] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opened = FENCE.match(lines[index])
        index += 1
        if not opened:
            continue
        fence, words = opened["fence"], opened["info"].split()
        start = index
        while index < len(lines) and not lines[index].startswith(fence):
            index += 1
        body = lines[start:index]
        index += 1
        named = [w.removeprefix("file=") for w in words if w.startswith("file=")]
        if named:
            steps.append(File(doc, start + 1, named[0], tuple(body)))
        else:
            steps += _session(doc, start + 1, body, "long" in words)
    return steps


def _session(doc: str, first: int, body: list[str], long: bool) -> list[Step]:
    """The `$` lines of one block (`first`: the doc's line number of body[0])."""
    starts = [i for i, line in enumerate(body) if line.startswith("$ ")]
    steps: list[Step] = []
    for k, at in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(body)
        command, shown = body[at][2:].strip(), body[at + 1 : end]
        while shown and not shown[-1].strip():
            shown = shown[:-1]  # a blank line between two commands separates them
        last = k + 1 == len(starts)
        cat = re.fullmatch(r"cat (\S+)", command)
        if command == "echo $?":
            previous = steps[-1]
            assert isinstance(previous, Command) and len(shown) == 1, f"{doc}:{first + at}: echo $? after no command"
            steps[-1] = Command(previous.doc, previous.line, previous.text, previous.shown, int(shown[0]), long)
        elif cat:
            steps.append(File(doc, first + at, cat[1], tuple(shown)))
        else:
            steps.append(Command(doc, first + at, command, None if last and not shown else tuple(shown), None, long))
    return steps


def all_steps() -> dict[str, list[Step]]:
    return {doc: steps_of(doc, (REPO / doc).read_text()) for doc in DOCS}


def mirror(folder: Path) -> Path:
    """`folder` made a stand-in for the repository's root: a link to each top-level entry."""
    for entry in REPO.iterdir():
        if not entry.name.startswith("."):
            (folder / entry.name).symlink_to(entry)
    return folder


def place(step: File, folder: Path) -> str | None:
    """Write the file a doc shows into `folder` (a later version replaces an
    earlier one); when it is the repository's, compare instead: the
    difference, or None."""
    path = folder / step.name
    text = "".join(line + "\n" for line in step.lines)
    if path.exists() and REPO in path.resolve().parents:
        have = path.read_text()
        return None if have == text else f"{step.doc}:{step.line}: {step.name} differs from the repository's"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return None


def environment() -> dict[str, str]:
    """The reader's shell: this install's `progress` first on PATH, output unbuffered so that
    standard output and error interleave as on a terminal."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("COLUMNS", None)
    return env


def run(step: Command, folder: Path, timeout: float) -> tuple[int, str]:
    """The command's exit status and its standard output and error, merged."""
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", step.text],
        cwd=folder,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    return done.returncode, done.stdout


TIMES = (
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b"), "<time>"),
    (re.compile(r"\b\d+(?:\.\d+)?k?(?: tests)?/s\b"), "<rate>"),
    (re.compile(r"\(\d+% of worker time\)"), "(<share> of worker time)"),
)
"""What varies from run to run: durations, rates, shares of time."""


def normalise(line: str, folder: Path) -> str:
    line = line.replace(str(folder) + os.sep, "").rstrip()
    for pattern, stand_in in TIMES:
        line = pattern.sub(stand_in, line)
    return line


def mismatch(step: Command, status: int, output: str, folder: Path) -> str | None:
    """Why the run does not match the doc, or None."""
    if status not in (0, 1, 2, 3) or "Traceback (most recent call last)" in output:
        return f"{step.where}: exit {status}\n{output}"
    if step.status is not None and status != step.status:
        return f"{step.where}: exit {status}, the doc shows {step.status}\n{output}"
    if step.shown is None:
        return None
    got = "".join(normalise(line, folder) + "\n" for line in output.splitlines())
    pattern = "".join(
        r"(?:[^\n]*\n)*?"
        if line.strip() == ELLIPSIS
        else r"[^\n]*?".join(map(re.escape, normalise(line, folder).split(ELLIPSIS))) + "\n"
        for line in step.shown
    )
    if re.fullmatch(pattern, got):
        return None
    return f"{step.where}: the output differs from the doc's\n--- doc\n" + "\n".join(step.shown) + "\n--- run\n" + got
