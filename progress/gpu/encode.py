"""A Program as the interpreter kernels' instruction words (layout: `progress.back.interp_layout`).

One 32-bit word per AXB instruction (`interp_layout.FIELDS`: location cell,
target, xchg, cmp, val), one thread's words after another. The encoding holds
less than a Program may: at most `MAX_LOCATIONS` locations, `MAX_LENGTH`
instructions per thread, values and cmp 0..`MAX_VALUE`, and `MAX_THREADS`
threads. A test beyond that is an `EncodeError` naming the thread, the
instruction and (where the parser recorded it) its source position, raised
before anything runs: `--codegen per-test` runs such a test. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from progress.back.codegen import initial_cells, location_index
from progress.back.interp_layout import FIELDS, MAX_LENGTH, MAX_LOCATIONS, MAX_THREADS, MAX_VALUE
from progress.core.program import Program, Span


class EncodeError(ValueError):
    """A test the interpreter's encoding cannot hold. `thread`, `index` and
    `span` say where (None when the whole test is at fault)."""

    def __init__(self, message: str, thread: int | None = None, index: int | None = None, span: Span | None = None):
        super().__init__(message)
        self.message = message
        self.thread = thread
        self.index = index
        self.span = span


@dataclass(frozen=True)
class Encoded:
    """One test as the interpreter reads it: `words` (every thread's
    instructions, thread after thread), `starts`/`lengths` (each thread's
    slice of `words`), and `cells` (an instance's memory before it starts)."""

    words: tuple[int, ...]
    starts: tuple[int, ...]
    lengths: tuple[int, ...]
    cells: tuple[int, ...]

    @property
    def threads(self) -> int:
        return len(self.lengths)


def word(loc: int, target: int, xchg: bool, cmp: int, val: int) -> int:
    """The instruction word of one AXB (fields already checked)."""
    values = {"loc": loc, "target": target, "xchg": int(xchg), "cmp": cmp, "val": val}
    return sum(values[name] << shift for name, shift, _ in FIELDS)


def fields(packed: int) -> tuple[int, int, bool, int, int]:
    """(loc, target, xchg, cmp, val) of an instruction word: the inverse of `word`."""
    got = {name: (packed >> shift) & ((1 << bits) - 1) for name, shift, bits in FIELDS}
    return got["loc"], got["target"], bool(got["xchg"]), got["cmp"], got["val"]


def encode(program: Program) -> Encoded:
    """`program` as instruction words; EncodeError when the encoding cannot hold it."""
    threads = program.threads
    if not 1 <= len(threads) <= MAX_THREADS:
        raise EncodeError(f"{len(threads)} threads: the interpreter runs 1 to {MAX_THREADS}")
    if len(program.locations) > MAX_LOCATIONS:
        raise EncodeError(f"{len(program.locations)} locations: the interpreter's encoding holds {MAX_LOCATIONS}")
    cells = location_index(program)
    words: list[int] = []
    starts, lengths = [], []
    for t, thread in enumerate(threads):
        if len(thread) > MAX_LENGTH:
            raise EncodeError(
                f"thread {t} has {len(thread)} instructions: the interpreter's encoding holds {MAX_LENGTH}",
                t,
                MAX_LENGTH,
                _span(program, t, MAX_LENGTH),
            )
        starts.append(len(words))
        lengths.append(len(thread))
        for i, ins in enumerate(thread):
            for name, value in (("cmp", ins.cmp), ("val", ins.val)):
                if not 0 <= value <= MAX_VALUE:
                    raise EncodeError(
                        f"{name} {value} in {ins.text(len(thread))}: the interpreter's encoding holds "
                        f"values 0 to {MAX_VALUE}",
                        t,
                        i,
                        _span(program, t, i),
                    )
            words.append(word(cells[ins.loc], ins.target, ins.xchg, ins.cmp, ins.val))
    return Encoded(tuple(words), tuple(starts), tuple(lengths), initial_cells(program) or (0,))


def _span(program: Program, thread: int, index: int) -> Span | None:
    spans = program.instr_spans
    if thread < len(spans) and index < len(spans[thread]):
        return spans[thread][index]
    return None
