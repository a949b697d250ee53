"""Verdicts of many programs at once, with compiled machinery (issue 13).

`verdicts(programs, queries, max_states)` gives, for each program, one
`terminates` value per query (True, False, or None past the state bound):
exactly what `check_program(program, queries, max_states=...,
witnesses=False)` reports, without lassos, state counts or time limits.
`progress.core.analyze.check_program` stays the reference; tests compare the two
on the published suite and on generated programs.

The models are plug-ins, so nothing here knows a model: each model's memory
is tabulated by running its own `initial` and `after` from the initial value
under every thread until no new value appears, and its F by calling its own
`fair` on every (enabled set, memory value) pair, once per number of
threads (as `analyze` tabulates F per (enabled, memory) group). The compiled
kernels in `progress.core.fastcheck` then work on integer tables only. A model
whose memory takes more than MAX_MEMORY_VALUES values, or whose `fair` or
`after` raises on a pair no run may reach, makes its programs go through
`check_program`; so does a program too large for the kernel (packed state
over 62 bits, or more than `CAP` states in an LTS). `fallbacks` counts them.

Importing this module loads numba (progress/jit.py): never on the
`progress check` path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain

import numpy as np

from progress.core import fastcheck
from progress.core.analyze import NO_FAIRNESS, Query, check_program
from progress.core.check import WEAK
from progress.core.program import Instr, Program
from progress.models.base import ProgressModel

MAX_MEMORY_VALUES = 256
"""A memory with more reachable values than this is not tabulated."""
MAX_TABLE = 1 << 16
"""Largest F table per model: 2**threads enabled sets x memory values."""
CAP = 1 << 18
"""States per LTS beyond which a program goes to check_program."""


@dataclass(frozen=True)
class Tables:
    """Integer tables of the queries' models for one number of threads."""

    after: np.ndarray  # [memory k, value m, thread t] -> next value index
    nmem: np.ndarray  # [memory k] -> number of values
    fair: np.ndarray  # [model j, enabled, value m] -> F
    model_mem: np.ndarray  # [model j] -> memory k
    query_model: np.ndarray  # [query q] -> model j
    query_strong: np.ndarray  # [query q] -> strong fairness?


class _Untabulable(Exception):
    pass


@lru_cache(maxsize=64)
def tables(queries: tuple[Query, ...], n_threads: int) -> Tables | None:
    """The tables for programs of `n_threads` threads, or None when some
    model's memory or F cannot be tabulated (see the module docstring)."""
    try:
        return _tabulate(queries, n_threads)
    except _Untabulable:
        return None


def _tabulate(queries: tuple[Query, ...], n: int) -> Tables:
    models = [m for m in {id(q.model): q.model for q in queries}.values() if isinstance(m, ProgressModel)]
    if len(models) < len({id(q.model) for q in queries}):
        raise _Untabulable  # a scoped model: check_program reads it
    memories = list({id(m.memory): m.memory for m in models}.values())
    values = [_memory_values(memory, n) for memory in memories]
    width = max(len(listed) for listed, _ in values)
    if (1 << n) * width > MAX_TABLE:
        raise _Untabulable
    after = np.zeros((len(memories), width, n), np.int64)
    for k, (memory, (listed, index)) in enumerate(zip(memories, values)):
        for m, value in enumerate(listed):
            for t in range(n):
                after[k, m, t] = index[memory.after(value, t)]
    fair = np.zeros((len(models), 1 << n, width), np.int64)
    model_mem = np.zeros(len(models), np.int64)
    for j, model in enumerate(models):
        k = next(k for k, memory in enumerate(memories) if memory is model.memory)
        model_mem[j] = k
        listed, _ = values[k]
        try:
            for enabled in range(1 << n):
                for m, value in enumerate(listed):
                    fair[j, enabled, m] = model.fair(enabled, value, n)
        except Exception as error:  # a plug-in's fair on a pair no run reaches
            raise _Untabulable from error
    position = {id(model): j for j, model in enumerate(models)}
    query_model = np.array([position[id(q.model)] for q in queries], np.int64)
    query_strong = np.array([q.fairness not in (WEAK, NO_FAIRNESS) for q in queries], np.bool_)
    nmem = np.array([len(listed) for listed, _ in values], np.int64)
    return Tables(after, nmem, fair, model_mem, query_model, query_strong)


def _memory_values(memory, n: int) -> tuple[list, dict]:
    """Every value the memory can take (initial one first) and their indices."""
    try:
        first = memory.initial(n)
        listed = [first]
        index = {first: 0}
        for value in listed:  # grows while iterating
            for t in range(n):
                following = memory.after(value, t)
                if following not in index:
                    if len(listed) == MAX_MEMORY_VALUES:
                        raise _Untabulable
                    index[following] = len(listed)
                    listed.append(following)
    except _Untabulable:
        raise
    except Exception as error:  # a plug-in's after on a value no run reaches
        raise _Untabulable from error
    return listed, index


def record(program: Program) -> list[int]:
    """The kernel's flat record of a program (progress.core.fastcheck's docstring)."""
    return record_of(program.threads, program.init)


def record_of(
    threads: Sequence[Sequence[tuple[str, int, int, bool, int]]], init: Sequence[tuple[str, int]]
) -> list[int]:
    """`record` of the program with these threads (Instr or plain tuples) and
    init: locations in order of first use, then those only in init."""
    index: dict[str, int] = {}
    for thread in threads:
        for ins in thread:
            if ins[0] not in index:
                index[ins[0]] = len(index)
    for loc, _ in init:
        index.setdefault(loc, len(index))
    initial = dict(init)
    out = [len(index), *map(len, threads), *[initial.get(loc, 0) for loc in index]]
    for thread in threads:
        for loc, cmp, target, xchg, val in thread:
            out += (index[loc], cmp, target, xchg, val)
    return out


@dataclass
class Stats:
    """How many programs went through the kernel and how many through check_program."""

    compiled: int = 0
    fallbacks: int = 0


def verdicts(
    programs: Sequence[Program],
    queries: Sequence[Query],
    max_states: int | None = None,
    stats: Stats | None = None,
) -> list[tuple[bool | None, ...]]:
    """Per program, `terminates` for each query, in order (module docstring)."""
    parts = [(p.threads, p.init) for p in programs]
    return verdicts_of_parts(parts, queries, max_states, stats, programs.__getitem__)


def verdicts_of_parts(
    parts: Sequence[tuple[Sequence[Sequence[tuple[str, int, int, bool, int]]], Sequence[tuple[str, int]]]],
    queries: Sequence[Query],
    max_states: int | None = None,
    stats: Stats | None = None,
    program_of: Callable[[int], Program] | None = None,
    records: Sequence[Sequence[int]] | None = None,
) -> list[tuple[bool | None, ...]]:
    """`verdicts` of programs given as (threads, init) (plain tuples, as
    `quickparse.quick_parts` reads them); `program_of(i)` is the i-th as a
    Program for check_program when the kernel cannot take it (default: built
    from its parts); `records[i]`, when given, is `record_of(*parts[i])`
    (`bulkread` makes both at once)."""
    codes = codes_of_parts(parts, queries, max_states, stats, program_of, records)
    return [tuple(_VALUE[c] for c in row) for row in codes.tolist()]


def codes_of_parts(
    parts: Sequence[tuple[Sequence[Sequence[tuple[str, int, int, bool, int]]], Sequence[tuple[str, int]]]],
    queries: Sequence[Query],
    max_states: int | None = None,
    stats: Stats | None = None,
    program_of: Callable[[int], Program] | None = None,
    records: Sequence[Sequence[int]] | None = None,
) -> np.ndarray:
    """`verdicts_of_parts` as an int8 array [program, query] of
    fastcheck.PASS, FAIL or INCONCLUSIVE (True, False, None): compact, for
    readers that ship or tabulate verdicts rather than look at them."""
    queries = tuple(queries)
    out = np.empty((len(parts), len(queries)), np.int8)
    by_threads: dict[int, list[int]] = {}
    for i, (threads, _) in enumerate(parts):
        by_threads.setdefault(len(threads), []).append(i)
    slow: list[int] = []
    for n, members in by_threads.items():
        table = tables(queries, n) if queries else None
        if table is None:
            slow += members
            continue
        chosen = [record_of(*parts[i]) for i in members] if records is None else [records[i] for i in members]
        codes = _run(table, chosen, n, max_states)
        out[members] = codes
        slow += [members[i] for i in np.flatnonzero((codes == fastcheck.TOO_BIG).any(axis=1))]
    for i in slow:
        program = program_of(i) if program_of is not None else _program(*parts[i])
        report = check_program(program, list(queries), max_states=max_states, witnesses=False)
        out[i] = [_CODE[v.terminates] for v in report.verdicts]
    if stats is not None:
        stats.fallbacks += len(slow)
        stats.compiled += len(parts) - len(slow)
    return out


def _program(threads, init) -> Program:
    return Program("test", tuple(tuple(Instr(*ins) for ins in thread) for thread in threads), tuple(init))


_VALUE = {fastcheck.PASS: True, fastcheck.FAIL: False, fastcheck.INCONCLUSIVE: None}
_CODE = {value: code for code, value in _VALUE.items()}


def _run(table: Tables, records: Sequence[Sequence[int]], n: int, max_states: int | None) -> np.ndarray:
    lengths = np.fromiter(map(len, records), np.int64, len(records))
    offsets = np.zeros(len(records), np.int64)
    np.cumsum(lengths[:-1], out=offsets[1:])
    data = np.fromiter(chain.from_iterable(records), np.int64, int(lengths.sum()))
    out = np.empty((len(records), len(table.query_model)), np.int8)
    fastcheck.check_batch(
        data,
        offsets,
        n,
        table.after,
        table.nmem,
        table.fair,
        table.model_mem,
        table.query_model,
        table.query_strong,
        -1 if max_states is None else max_states,
        CAP,
        out,
    )
    return out
