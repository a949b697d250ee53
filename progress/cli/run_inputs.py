"""`progress run`'s inputs: tests from paths or from a keys file, and encoding them for the interpreter."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from progress.cli.inputs import read_text
from progress.core.program import Program
from progress.errors import InputError, SourcePosition, UsageError
from progress.gpu.encode import Encoded, EncodeError, encode
from progress.source import source_lines


def keyed_tests(path: Path) -> tuple[list[tuple[str, Program]], str]:
    """(key, program) per test of a keys file (`progress synth --save-keys`),
    keys as its export names them (`3t5i/17.axb`, so `conform --suite` on the
    export finds them), and the inputs' digest (the file's bytes)."""
    from progress.synth.canonical import to_program
    from progress.synth.keys import open_keys

    with open_keys(path) as keys:
        label = keys.bounds.label
        tests = [
            (f"{label}/{number}.axb", to_program(candidate, f"synth_{label}_{number}"))
            for number, (candidate, _) in enumerate(keys.tests())
        ]
    if not tests:
        raise UsageError(f"{path}: a keys file of no tests: nothing to run")
    return tests, "keys:" + _digest(path)


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    return digest.hexdigest()[:32]


def selected(tests: list[tuple[str, Program]], inputs: str, only: Path) -> tuple[list[tuple[str, Program]], str]:
    """The tests whose keys the list file `only` names (one key per line; blank
    lines and `#` comments skipped), in the inputs' order, and a digest of the
    inputs and the selection (so --resume tells another selection apart). A key
    that names no test, or a list naming none, is an InputError at its line."""
    text = read_text(only)
    known = {key for key, _ in tests}
    wanted: set[str] = set()
    for number, line in enumerate(source_lines(text), start=1):
        key = line.split("#", 1)[0].strip()
        if not key:
            continue
        if key not in known:
            raise InputError(
                f"--only: no test has the key {key!r} (keys as the results CSV names them)",
                SourcePosition(str(only), number, 1, line),
            )
        wanted.add(key)
    if not wanted:
        raise UsageError(f"--only {only}: the list names no test")
    digest = hashlib.sha256(inputs.encode())
    for key in sorted(wanted):
        digest.update(f"\0{key}".encode())
    return [(key, program) for key, program in tests if key in wanted], f"{inputs}+only:{digest.hexdigest()[:32]}"


def encoded(tests: list[tuple[str, Program]], files: dict[str, Path]) -> Iterator[Encoded]:
    """Each test encoded for the interpreter; the first it cannot hold is an
    InputError at the instruction's source position (file:line:col) where
    the test came from a file, else naming the test's key."""
    for key, program in tests:
        try:
            yield encode(program)
        except EncodeError as error:
            raise _refusal(key, files.get(key), error) from None


def _refusal(key: str, path: Path | None, error: EncodeError) -> InputError:
    advice = "; run it with --codegen per-test"
    if path is None or error.span is None:
        where = f" (thread {error.thread}, instruction {error.index})" if error.thread is not None else ""
        return InputError(f"test {key}{where}: {error.message}{advice}")
    lines = source_lines(read_text(path))
    line, column = error.span
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return InputError(error.message + advice, SourcePosition(str(path), line, column, text))
