"""Many tests read at once (issue 13): `BulkReader.read(text)` gives what the
batch classifier needs of a test, its threads and init as plain tuples, its
canonical hash and its kernel record, in one pass, for files in the plain
layout that `quickparse.quick_parts` takes; None for any other file, which
the caller then gives to `quick_parts` / `parse_program` (so every error is
still reported by the parser, with its position).

The lines of an export repeat massively (a 3t5i export has 341,727 tests
but a few hundred distinct instruction lines and about 18,000 distinct
threads), so the reader remembers, per distinct line, what it is, and per
distinct thread (its lines), its instructions, its locations in order of
first use, its lines in the canonical text and its part of the kernel
record. Only the header (test and init lines, read as `quick_parts` reads
them) is worked out per file. When the test already names its locations
`l0, l1, ...` in order of first use (what `synth --export` writes), the
canonical text and the record are joined from the threads' parts; otherwise
they come from `canonical.text_of_parts` and `batch.record_of`.

Contract (tests/test_bulkread.py checks it on the published suite, an
export and generated and mutated layouts): `read(text)` is None exactly
when `quick_parts(text, path)` is None, and otherwise `threads, init` equal
`quick_parts(text, path)[1:]`, `hash` equals
`hash_of_text(text_of_parts(threads, init))` and `record` equals
`record_of(threads, init)`. The test's name is not read (classification
names tests by their paths).
"""

from __future__ import annotations

import hashlib
import re
from typing import NamedTuple

from progress.core.canonical import hash_of_text, text_of_parts
from progress.front.axb.lexicon import BLANKS, COMMENT_MARK, INSTRUCTION, THREAD
from progress.front.axb.quickparse import read_header, thread_instructions
from progress.source import bounded_int

Instruction = tuple[str, int, int, bool, int]

MAX_REMEMBERED = 1 << 16
"""Distinct lines or threads remembered; past it the memo starts afresh
(hostile input cannot make it grow without bound)."""

_AXB = re.compile(INSTRUCTION)
_THREAD = re.compile(THREAD)
_CANONICAL_NAME = re.compile(r"l(0|[1-9][0-9]*)")

_SKIP, _INSTR, _THREAD_LINE, _HEADER = range(4)


class Read(NamedTuple):
    """A test as the batch classifier takes it."""

    threads: tuple[tuple[Instruction, ...], ...]
    init: tuple[tuple[str, int], ...]
    hash: str
    record: list[int]


class _Thread(NamedTuple):
    instructions: tuple[Instruction, ...]
    firsts: tuple[int, ...]  # its locations in order of first use, as k for a name `lk` (-1 for other names)
    text: str  # `thread <its number>` and its instruction lines in the canonical text (locations named l0, l1, ...)
    record: tuple[int, ...]  # its instructions in the kernel record (likewise)


class BulkReader:
    """Reads test texts, remembering what repeats (module docstring). One
    reader per process; not thread-safe."""

    def __init__(self) -> None:
        self._lines: dict[str, tuple] = {}
        self._groups: list[tuple[str, ...]] = []  # the regex groups of instruction line number i
        self._threads: dict[tuple[int, ...], _Thread | None] = {}

    def read(self, text: str) -> Read | None:
        """The test, or None when `quick_parts` would not take it."""
        if "\r" in text:
            return None
        if len(self._lines) >= MAX_REMEMBERED or len(self._threads) >= MAX_REMEMBERED:
            self._lines.clear()  # between texts: a line's number must mean one thing while a text is read
            self._groups.clear()
            self._threads.clear()
        lines = self._lines
        header: list[str] = []
        blocks: list[list[int]] = []
        current: list[int] | None = None
        comment = COMMENT_MARK
        for line in text.split("\n"):
            kind = lines.get(line)
            if kind is None:
                if line[:1] == comment:
                    continue
                kind = self._learn(line)
            tag = kind[0]
            if tag == _INSTR:
                if current is None:
                    return None
                current.append(kind[1])
            elif tag == _THREAD_LINE:
                if kind[1] != len(blocks):
                    return None
                current = [kind[1]]  # the thread's number, then its lines
                blocks.append(current)
            elif tag == _HEADER:
                if blocks:
                    return None  # a header after a thread, or anything else
                header.append(kind[1])
        if not blocks:
            return None
        init = _header(header)
        if init is None:
            return None
        threads = []
        known = self._threads
        for block in blocks:
            key = tuple(block)
            try:
                thread = known[key]
            except KeyError:
                thread = known[key] = _thread(key[0], [self._groups[i] for i in key[1:]])
            if thread is None:
                return None
            threads.append(thread)
        return _assemble(threads, init)

    def _learn(self, line: str) -> tuple:
        """What a line is: remembered unless it is a header or a comment (those
        differ from file to file)."""
        item = line.strip(BLANKS)
        if item and item[0] == COMMENT_MARK:
            return (_SKIP,)
        axb = _AXB.fullmatch(item)
        thread = None if axb is not None else _THREAD.fullmatch(item)
        if item and axb is None and thread is None:
            return (_HEADER, item)
        if axb is not None:
            kind: tuple = (_INSTR, len(self._groups))
            self._groups.append(axb.groups())
        elif thread is not None:
            kind = (_THREAD_LINE, bounded_int(thread[1]))
        else:
            kind = (_SKIP,)
        self._lines[line] = kind
        return kind


def _header(items: list[str]) -> tuple[tuple[str, int], ...] | None:
    """The init of these header items (as `quick_parts` reads them), or None."""
    read = read_header(items)
    return None if read is None else read[1]


def _thread(tid: int, code: list[tuple[str, ...]]) -> _Thread | None:
    """Thread `tid` from its lines' regex groups (as `quick_parts` reads
    them), or None."""
    instructions = thread_instructions(code)
    if instructions is None:
        return None
    n = len(instructions)
    firsts: dict[str, int] = {}
    for loc, *_ in instructions:
        if loc not in firsts:
            firsts[loc] = _canonical_number(loc)
    lines = [f"thread {tid}\n"]
    record: list[int] = []
    for loc, cmp, target, exchange, val in instructions:
        shown = "end" if target == n else target
        lines.append(f"  AXB({loc}, {cmp}, {shown}, {'true' if exchange else 'false'}, {val})\n")
        record += (firsts[loc], cmp, target, int(exchange), val)
    return _Thread(tuple(instructions), tuple(firsts.values()), "".join(lines), tuple(record))


def _canonical_number(loc: str) -> int:
    """k for a location named `lk` as the canonical form names them, else -1."""
    found = _CANONICAL_NAME.fullmatch(loc)
    return -1 if found is None else bounded_int(found[1])


def _assemble(threads: list[_Thread], init: tuple[tuple[str, int], ...]) -> Read:
    """The Read of these threads and init: joined from the threads' parts
    when the locations are named l0, l1, ... in order of first use."""
    code = tuple(thread.instructions for thread in threads)
    used = 0  # locations l0 .. l(used-1) seen so far
    for thread in threads:
        for k in thread.firsts:
            if k == used:
                used += 1
            elif not 0 <= k < used:
                return Read(code, init, hash_of_text(text_of_parts(code, init)), _record(code, init))
    record = [used, *(len(c) for c in code)]
    if init:
        numbers = [(_canonical_number(loc), v) for loc, v in init]
        text = "test canonical\n" + "".join(
            f"init {loc} = {v}\n" for (loc, v), (k, _) in zip(init, numbers) if v != 0 and 0 <= k < used
        )
        initial = {k: v for k, v in numbers if 0 <= k < used}
        record += [initial.get(k, 0) for k in range(used)]
        extra = [v for k, v in numbers if not 0 <= k < used]  # init-only locations come last
        record[0] += len(extra)
        record += extra
    else:
        text = "test canonical\n"
        record += [0] * used
    text += "".join([thread.text for thread in threads])
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    for thread in threads:
        record += thread.record
    return Read(code, init, digest, record)


def _record(code, init) -> list[int]:
    from progress.core.batch import record_of  # numba: only where a record is wanted

    return record_of(code, init)
