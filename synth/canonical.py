"""Candidates <-> Programs, and the one key per test (docs/semantics.md section 6).

Two programs are the same test iff one becomes the other by renaming
locations; thread ids and values are not symmetric. Memory starts at 0, so
renaming locations in order of first use (thread 0 first) maps every member
of a class to the same program: that is the canonical form, and its
candidate tuple (locations as ints 0, 1, ...) is the key tests are stored
and sorted by. `progress.core.canonical` computes the same form on Programs; its
hash is what gets exported.
"""

from __future__ import annotations

import json

from progress.core.program import Instr, Program

from .space import Candidate


def location_name(index: int) -> str:
    return f"l{index}"


def to_program(candidate: Candidate, name: str = "candidate") -> Program:
    threads = tuple(
        tuple(Instr(location_name(loc), cmp, target, bool(xchg), val) for loc, cmp, target, xchg, val in code)
        for code in candidate
    )
    return Program(name, threads)


def from_program(program: Program) -> Candidate:
    """The canonical candidate of `program` (locations renamed by first use)."""
    names: dict[str, int] = {}
    codes = []
    for thread in program.threads:
        code = []
        for ins in thread:
            loc = names.setdefault(ins.loc, len(names))
            code.append((loc, ins.cmp, ins.target, bool(ins.xchg), ins.val))
        codes.append(tuple(code))
    return tuple(codes)


def is_canonical(candidate: Candidate) -> bool:
    """Whether locations appear in order of first use."""
    order: list[int] = []
    for code in candidate:
        for ins in code:
            if ins[0] not in order:
                order.append(ins[0])
    return order == list(range(len(order)))


def key(candidate: Candidate) -> str:
    """A compact, stable text key: JSON of the canonical candidate."""
    return json.dumps(
        [[[loc, cmp, target, int(xchg), val] for loc, cmp, target, xchg, val in code] for code in candidate],
        separators=(",", ":"),
    )


def from_key(text: str) -> Candidate:
    return tuple(
        tuple((loc, cmp, target, bool(xchg), val) for loc, cmp, target, xchg, val in code) for code in json.loads(text)
    )


def sort_key(candidate: Candidate) -> tuple[tuple[int, ...], Candidate]:
    """The export order: thread lengths, then the instructions."""
    return (tuple(len(code) for code in candidate), candidate)
