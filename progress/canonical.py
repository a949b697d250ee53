"""Canonical form and hash of a test (SPEC section 6).

Two programs are the same test iff one becomes the other by renaming
locations. The canonical form renames locations in order of first use
(thread 0 first) to l0, l1, ..., drops init lines that set 0 or name an
unused location, and ignores the test's name; the hash is its SHA-256.
"""

from __future__ import annotations

import hashlib

from .program import Instr, Program


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
    used: dict[str, str] = {}
    lines = ["test canonical"]
    body = []
    for tid, thread in enumerate(program.threads):
        body.append(f"thread {tid}")
        n = len(thread)
        for i in thread:
            loc = used.setdefault(i.loc, f"l{len(used)}")
            target = "end" if i.target == n else i.target
            body.append(f"  AXB({loc}, {i.cmp}, {target}, {'true' if i.xchg else 'false'}, {i.val})")
    lines += [
        f"init {loc} = {v}" for loc, v in sorted((used[loc], v) for loc, v in program.init if loc in used and v != 0)
    ]
    return "\n".join(lines + body) + "\n"


def canonical_hash(program: Program) -> str:
    """16 hex digits, stable across runs, machines and location names."""
    return hashlib.sha256(canonical_text(program).encode()).hexdigest()[:16]
