"""The tests of a run as `.axb` files and a verdict CSV (pure: yields text).

Files are `<T>t<I>i/<n>.axb`, numbered from 0 in the order of
`canonical.sort_key` (thread lengths, then instructions), so the names and
bytes depend only on the set of tests: two runs of the same bounds, with
either engine, any number of workers, interrupted or not, export the same.
Each file records its canonical hash and its verdicts as an `# expect:` line
(the format of litmus/); `verdicts.csv` has the artifact's column order
(csv_order), `unfair` last.

Everything is a generator over tests already in export order (the store
streams them so), so exporting holds one test at a time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator

from progress.core.canonical import canonical_hash

from . import canonical
from .space import Bounds, Candidate, Instruction
from .store import unpack_verdicts


def command_line(bounds: Bounds) -> str:
    return (
        f"progress synth --threads {bounds.threads} --instructions {bounds.instructions} "
        f"--locations {bounds.locations} --values {bounds.values}"
    )


def csv_name(bounds: Bounds) -> str:
    return f"{bounds.label}/verdicts.csv"


def csv_order(labels: tuple[str, ...]) -> list[int]:
    """The artifact's column order (data/oopsla21/cadp_verdicts.csv) as indices
    into `labels`: every `/weak` column, then every `/strong` one, each in the
    models' order, then the columns without fairness (`unfair`), which the
    artifact lacks; the order of `progress classify --matrix`."""
    weak = [i for i, label in enumerate(labels) if label.endswith("/weak")]
    strong = [i for i, label in enumerate(labels) if label.endswith("/strong")]
    return weak + strong + [i for i in range(len(labels)) if i not in weak and i not in strong]


def csv_header(labels: tuple[str, ...]) -> str:
    return ",".join(["test"] + [labels[i] for i in csv_order(labels)])


def entries(
    tests: Iterable[tuple[Candidate, int]], labels: tuple[str, ...], bounds: Bounds
) -> Iterator[tuple[str, str, str]]:
    """(relative path, .axb text, CSV row) per test, for tests in export order."""
    label = bounds.label
    synthesized = f"# synthesized by `{command_line(bounds)}`\n"
    by_mask: dict[int, tuple[str, str]] = {}  # mask -> (expect line, CSV cells)
    lines: dict[tuple[Instruction, int], str] = {}  # (instruction, thread length) -> its line
    order = csv_order(labels)
    for number, (candidate, mask) in enumerate(tests):
        verdicts = by_mask.get(mask)
        if verdicts is None:
            cells = unpack_verdicts(mask, len(labels))
            expect = " | ".join(f"{name} {cell}" for name, cell in zip(labels, cells))
            verdicts = by_mask[mask] = (f"# expect: {expect}\n", ",".join(cells[i] for i in order))
        path = f"{label}/{number}.axb"
        name = f"synth_{label}_{number}"
        if canonical.is_canonical(candidate):
            body = _body(candidate, lines)
            digest = hashlib.sha256(("test canonical\n" + body).encode()).hexdigest()[:16]
            text = f"test {name}\n{synthesized}# canonical hash {digest}\n{verdicts[0]}{body}"
        else:  # not produced by the engines; rendered the long way
            text = axb_text(candidate, unpack_verdicts(mask, len(labels)), labels, name, bounds)
        yield path, text, f"{path},{verdicts[1]}"


def _body(candidate: Candidate, lines: dict[tuple[Instruction, int], str]) -> str:
    """The thread lines of a canonical candidate, as `Program.to_axb` and
    `progress.core.canonical.canonical_text` write them (locations are already
    l0, l1, ... in first-use order, so both agree)."""
    out = []
    for tid, code in enumerate(candidate):
        out.append(f"thread {tid}\n")
        n = len(code)
        for ins in code:
            line = lines.get((ins, n))
            if line is None:
                loc, cmp, target, xchg, val = ins
                where = "end" if target == n else target
                line = lines[(ins, n)] = f"  AXB(l{loc}, {cmp}, {where}, {'true' if xchg else 'false'}, {val})\n"
            out.append(line)
    return "".join(out)


def axb_text(candidate: Candidate, cells: tuple[str, ...], labels: tuple[str, ...], name: str, bounds: Bounds) -> str:
    """One test's file, through `Program` (the reference rendering; `entries` is its fast path)."""
    program = canonical.to_program(candidate, name)
    head, body = program.to_axb().split("\n", 1)
    expect = " | ".join(f"{label} {cell}" for label, cell in zip(labels, cells))
    comments = [
        f"# synthesized by `{command_line(bounds)}`",
        f"# canonical hash {canonical_hash(program)}",
        f"# expect: {expect}",
    ]
    return "\n".join([head] + comments + [body])
