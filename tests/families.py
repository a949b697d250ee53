"""Idiom families of N threads as .axb text (issue 22's scaling benchmark,
benchmarks/bench_scale.py, and tests/test_scale.py).

- mutex: every thread takes a test-and-set lock and releases it;
- ticket: an array-based queue lock (litmus/idioms/ticket_lock_3.axb for N
  threads): slots k0..k(N-2) deal tickets, turn flags g1..g(N-1) hand on;
- barrier: a counting barrier: under a test-and-set lock each thread reads
  the counter c (a chain of compares) and stores c + 1; the last arrival
  sets `go`, the others release the lock and wait while go == 0;
- chain: producer-consumer chain: thread i waits for flag f(i-1), then sets
  f(i) (thread 0 sets f0 at once).

The threads of mutex, ticket and barrier run identical code; chain's do not.
"""

from __future__ import annotations

from collections.abc import Callable


def mutex(n: int) -> str:
    body = [
        "  AXB(m, 1, 0, true, 1)   # acquire: spin while the old value was 1",
        "  AXB(m, 0, end, true, 0)   # release",
    ]
    return _program(f"mutex_{n}", n, lambda t: body)


def chain(n: int) -> str:
    def thread(t: int) -> list[str]:
        if t == 0:
            return ["  AXB(f0, 0, end, true, 1)   # produce"]
        return [f"  AXB(f{t - 1}, 0, 0, false, 0)  # wait for thread {t - 1}", f"  AXB(f{t}, 0, end, true, 1)"]

    return _program(f"chain_{n}", n, thread)


def ticket(n: int) -> str:
    dealers = n - 1
    last = dealers  # ticket n-1: wait at `last`, then done
    start = {n - 1: last}
    at = last + 2
    for k in range(n - 2, 0, -1):
        start[k] = at
        at += 2
    start[0] = at
    lines = [f"  AXB(k{k}, 0, {start[k]}, true, 1)   # ticket {k} if slot k{k} was free" for k in range(dealers)]
    lines += [f"  AXB(g{n - 1}, 0, {last}, false, 0)   # ticket {n - 1}: wait", f"  AXB(g{n - 1}, 1, end, false, 0)"]
    for k in range(n - 2, 0, -1):
        lines += [f"  AXB(g{k}, 0, {start[k]}, false, 0)   # ticket {k}: wait", f"  AXB(g{k + 1}, 0, end, true, 1)"]
    lines.append("  AXB(g1, 0, end, true, 1)   # ticket 0: release")
    return _program(f"ticket_{n}", n, lambda t: lines)


def barrier(n: int) -> str:
    release, wait = 2 * n + 1, 2 * n + 2
    lines = ["  AXB(l, 1, 0, true, 1)   # acquire the lock"]
    lines += [f"  AXB(c, {k}, {n + 2 + k}, false, 0)   # c == {k}?" for k in range(n - 1)]
    lines += [f"  AXB(go, 0, {n + 1}, true, 1)   # c == {n - 1}: last arrival opens", "  AXB(l, 1, end, true, 0)"]
    lines += [f"  AXB(c, {k}, {release}, true, {k + 1})   # c = {k + 1}" for k in range(n - 1)]
    lines += [f"  AXB(l, 1, {wait}, true, 0)   # release", f"  AXB(go, 0, {wait}, false, 0)   # wait while go == 0"]
    return _program(f"barrier_{n}", n, lambda t: lines)


FAMILIES: dict[str, Callable[[int], str]] = {"mutex": mutex, "ticket": ticket, "barrier": barrier, "chain": chain}


def _program(name: str, n: int, thread: Callable[[int], list[str]]) -> str:
    lines = [f"test {name}"]
    for t in range(n):
        lines.append(f"thread {t}")
        lines += thread(t)
    return "\n".join(lines) + "\n"
