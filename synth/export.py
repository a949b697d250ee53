"""The tests of a run as `.axb` files and a verdict CSV (pure: returns text).

Files are `<T>t<I>i/<n>.axb`, numbered from 0 in the order of
`canonical.sort_key` (thread lengths, then instructions), so the names and
bytes depend only on the set of tests: two runs of the same bounds, with
either engine, any number of workers, interrupted or not, export the same.
Each file records its canonical hash and its verdicts as an `# expect:` line
(the format of litmus/); `verdicts.csv` has the artifact's layout.
"""

from __future__ import annotations

from . import canonical
from .space import Bounds
from .store import FoundTest


def command_line(bounds: Bounds) -> str:
    return (
        f"progress synth --threads {bounds.threads} --instructions {bounds.instructions} "
        f"--locations {bounds.locations} --values {bounds.values}"
    )


def files(tests: list[FoundTest], bounds: Bounds) -> list[tuple[str, str]]:
    """(relative path, text) for every test, then the CSV."""
    ordered = sorted(tests, key=lambda test: canonical.sort_key(canonical.from_key(test.key)))
    label = bounds.label
    out = []
    rows = []
    for number, test in enumerate(ordered):
        out.append((f"{label}/{number}.axb", axb_text(test, f"synth_{label}_{number}", bounds)))
        rows.append(f"{label}/{number}.axb," + ",".join(v for _, v in test.verdicts))
    header = "test," + ",".join(name for name, _ in ordered[0].verdicts) if ordered else "test"
    out.append((f"{label}/verdicts.csv", "\n".join([header] + rows) + "\n"))
    return out


def axb_text(test: FoundTest, name: str, bounds: Bounds) -> str:
    program = canonical.to_program(canonical.from_key(test.key), name)
    head, body = program.to_axb().split("\n", 1)
    expect = " | ".join(f"{label} {verdict}" for label, verdict in test.verdicts)
    comments = [f"# synthesized by `{command_line(bounds)}`", f"# canonical hash {test.hash}", f"# expect: {expect}"]
    return "\n".join([head] + comments + [body])
