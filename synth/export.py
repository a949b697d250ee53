"""The tests of a run as `.axb` files and a verdict CSV (pure: yields text).

Files are `<T>t<I>i/<n>.axb`, numbered from 0 in the order of
`canonical.sort_key` (thread lengths, then instructions), so the names and
bytes depend only on the set of tests: two runs of the same bounds, with
either engine, any number of workers, interrupted or not, export the same.
Each file records its canonical hash and its verdicts as an `# expect:` line
(the format of litmus/); `verdicts.csv` has the artifact's layout.

Everything is a generator over tests already in export order (the store
streams them so), so exporting holds one test at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from progress.canonical import canonical_hash

from . import canonical
from .space import Bounds, Candidate
from .store import unpack_verdicts


def command_line(bounds: Bounds) -> str:
    return (
        f"progress synth --threads {bounds.threads} --instructions {bounds.instructions} "
        f"--locations {bounds.locations} --values {bounds.values}"
    )


def csv_name(bounds: Bounds) -> str:
    return f"{bounds.label}/verdicts.csv"


def csv_header(labels: tuple[str, ...]) -> str:
    return "test," + ",".join(labels) if labels else "test"


def entries(
    tests: Iterable[tuple[Candidate, int]], labels: tuple[str, ...], bounds: Bounds
) -> Iterator[tuple[str, str, str]]:
    """(relative path, .axb text, CSV row) per test, for tests in export order."""
    label = bounds.label
    for number, (candidate, mask) in enumerate(tests):
        cells = unpack_verdicts(mask, len(labels))
        path = f"{label}/{number}.axb"
        yield path, axb_text(candidate, cells, labels, f"synth_{label}_{number}", bounds), f"{path}," + ",".join(cells)


def axb_text(candidate: Candidate, cells: tuple[str, ...], labels: tuple[str, ...], name: str, bounds: Bounds) -> str:
    program = canonical.to_program(candidate, name)
    head, body = program.to_axb().split("\n", 1)
    expect = " | ".join(f"{label} {cell}" for label, cell in zip(labels, cells))
    comments = [
        f"# synthesized by `{command_line(bounds)}`",
        f"# canonical hash {canonical_hash(program)}",
        f"# expect: {expect}",
    ]
    return "\n".join([head] + comments + [body])
