"""Canonical form and hash of a test (docs/semantics.md section 6).

Two programs are the same test iff one becomes the other by renaming
locations. The canonical form renames locations in order of first use
(thread 0 first) to l0, l1, ..., drops init lines that set 0 or name an
unused location, and ignores the test's name; the hash is its SHA-256.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from progress.core.program import Instr, Program


def canonical_program(program: Program) -> Program:
    used: dict[str, str] = {}
    for thread in program.threads:
        for ins in thread:
            used.setdefault(ins.loc, f"l{len(used)}")
    threads = tuple(
        tuple(Instr(used[i.loc], i.cmp, i.target, i.xchg, i.val) for i in thread) for thread in program.threads
    )
    init = tuple(sorted((used[loc], v) for loc, v in program.init if loc in used and v != 0))
    return Program("canonical", threads, init)


def canonical_text(program: Program) -> str:
    """`canonical_program(program).to_axb()`, written directly (it is hashed per test)."""
    return text_of_parts(program.threads, program.init)


Parts = tuple[Sequence[Sequence[tuple[str, int, int, bool, int]]], Sequence[tuple[str, int]]]
"""A program as plain data: threads of (loc, cmp, target, xchg, val), init pairs."""


def text_of_parts(threads: Sequence[Sequence[tuple[str, int, int, bool, int]]], init: Sequence[tuple[str, int]]) -> str:
    """`canonical_text` of the program with these threads and init (Instr
    tuples or plain ones: the batch readers skip building Programs)."""
    used: dict[str, str] = {}
    lines = ["test canonical"]
    body = []
    for tid, thread in enumerate(threads):
        body.append(f"thread {tid}")
        n = len(thread)
        for loc, cmp, target, xchg, val in thread:
            name = used.setdefault(loc, f"l{len(used)}")
            shown = "end" if target == n else target
            body.append(f"  AXB({name}, {cmp}, {shown}, {'true' if xchg else 'false'}, {val})")
    lines += [f"init {loc} = {v}" for loc, v in sorted((used[loc], v) for loc, v in init if loc in used and v != 0)]
    return "\n".join(lines + body) + "\n"


def hash_of_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def canonical_hash(program: Program) -> str:
    """16 hex digits, stable across runs, machines and location names."""
    return hash_of_text(canonical_text(program))
