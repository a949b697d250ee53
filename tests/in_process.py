"""`progress ARGS` run inside the test's own process, for tests that check only
what a command prints and its exit status.

A `progress` child pays Python's start-up and the CLI's imports (0.1-0.2 s of
CPU a run, 0.5 s or more where it loads numba, which the xdist workers hold
already): hundreds of runs in the suite. `progress(...)` calls the console
script's own entry point, `progress.cli.main(argv)`, which turns every
outcome into the same SystemExit status the script exits with, with this
process's standard streams swapped for buffers, the working directory set
and environment variables added for the call, all put back after.

What must be a real process stays one (tests/conftest.py's
`progress_command()`): signals and Ctrl-C, start-up and import rules, the
console script itself, exit codes a crash would give, commands that fork
workers (classify -j, synth's pools) or read a terminal.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path


def progress(
    *args: object, cwd: str | Path | None = None, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """What `subprocess.run(["progress", *args], capture_output=True, text=True,
    cwd=cwd, env={**os.environ, **env})` gives, run in this process."""
    from progress.cli import main

    argv = [str(arg) for arg in args]
    out, err = _buffer(), _buffer()
    with _directory(cwd), _environment(env or {}), _streams(out, err, stdin):
        try:
            main(argv)
            code = 0
        except SystemExit as done:
            code = _status(done.code)
    return subprocess.CompletedProcess(["progress", *argv], code, _text(out), _text(err))


def _buffer() -> io.TextIOWrapper:
    """A text stream with a `.buffer`, as sys.stdout has (commands that write bytes use it)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", newline="")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def _status(code: object) -> int:
    """The exit status Python gives a SystemExit with this code."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    return 1


@contextmanager
def _directory(cwd: str | Path | None):
    before = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)


@contextmanager
def _environment(extra: dict[str, str]):
    saved = {name: os.environ.get(name) for name in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _streams(out: io.TextIOWrapper, err: io.TextIOWrapper, stdin: str | None):
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    sys.stdin = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
