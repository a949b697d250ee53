"""Where the compiled judge's time goes (synth/fast_judge.py), per configuration.

    python benchmarks/profile_compiled_judge.py [CONFIG ...]   # default: 2t5i 3t5i

Prints a markdown table (docs/results/synth.md, "Profile of the compiled judge"):
- *walk*: CPU time of the index-by-index walk alone (canonical first-use
  order and `space.statically_possible`, no LTS search: the depth-first
  kernel's walk, which the CUDA judge keeps), against the whole compiled
  kernel (`fast_judge.judge_range`, the lane kernel) on the same units;
- the rejection histogram: for every judged candidate, the first constraint
  the judge's search rejects it with (2: a reachable state cannot reach an end
  state, found at the first bad component; 3: no cycle; 5/6: a needed
  observation bit missing), with the mean states and edges the search visits;
- memo hit rates: the share of judged candidates whose search would repeat an
  earlier one step for step (same digits at every slot the earlier search
  read), for two memos: the previous search (valid while no slot it read has
  changed) and one entry per option of the last slot.

The instrumented kernel below is the depth-first (Tarjan) judge that
`fast_judge` ran before the lane judge (synth/lanes.py) and that the CUDA
judge still runs, one candidate at a time, with counters; its judged and
test counts are checked against the real kernel's.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from progress.synth import fast_judge
from progress.synth.space import Bounds

OUTCOMES = ("test", "c2: bad component", "c3: no cycle", "c5/6: bit missing")


@njit(cache=False)
def _walk(radices, place, options, contrib, index_of, starts, lengths, start, stop):
    """`fast_judge._search` without the LTS search: the number passing canonical order and static pruning."""
    slots = radices.shape[0]
    threads = lengths.shape[0]
    ncontrib = contrib.shape[2]
    digits = np.zeros(slots, dtype=np.int64)
    for s in range(slots):
        digits[s] = start // place[s] % radices[s]
    maxloc = np.zeros(slots, dtype=np.int64)
    prefix = np.zeros((slots, ncontrib), dtype=np.int64)
    last = np.zeros(threads, dtype=np.int64)
    for t in range(threads):
        last[t] = starts[t] + lengths[t] - 1
    judged = 0
    index = start
    changed = 0
    while index < stop:
        bad = -1
        for s in range(changed, slots):
            d = digits[s]
            here = options[s, d, 0]
            before = maxloc[s - 1] if s > 0 else -1
            if here > before + 1:
                bad = s
                break
            maxloc[s] = here if here > before else before
            if index_of[s] == 0:
                for c in range(ncontrib):
                    prefix[s, c] = contrib[s, d, c]
            else:
                for c in range(ncontrib):
                    prefix[s, c] = prefix[s - 1, c] | contrib[s, d, c]
        if bad >= 0:
            if bad == 0:
                break
            step = place[bad - 1]
            index = (index // step + 1) * step
            for s in range(bad, slots):
                digits[s] = 0
            s = bad - 1
            digits[s] += 1
            while s > 0 and digits[s] == radices[s]:
                digits[s] = 0
                s -= 1
                digits[s] += 1
            changed = s
            continue
        if fast_judge._static_ok(prefix, last, threads):
            judged += 1
        index += 1
        s = slots - 1
        digits[s] += 1
        while s > 0 and digits[s] == radices[s]:
            digits[s] = 0
            s -= 1
            digits[s] += 1
        changed = s
    return judged


@njit(cache=False)
def _search_counted(digits, threads, step_delta, step_bits, need_bits, memory_of, slot_at, end_lo, end_hi, work):
    """`fast_judge._judge` with counters: (outcome index into OUTCOMES, states, edges, slots read as bits)."""
    num, low, stack, order, cs_node, cs_t, flag = work
    need = 0
    for s in range(digits.shape[0]):
        need |= need_bits[s, digits[s]]
    observed = 0
    read = 0
    edges = 0
    cycle = False
    ok = True
    num[0] = 0
    low[0] = 0
    order[0] = 0
    count = 1
    stack[0] = 0
    sp = 1
    flag[0] = 1
    cs_node[0] = 0
    cs_t[0] = 0
    csp = 1
    while csp > 0:
        v = cs_node[csp - 1]
        t = cs_t[csp - 1]
        if t < threads:
            cs_t[csp - 1] = t + 1
            s = slot_at[v, t]
            if s < 0:
                continue
            edges += 1
            read |= 1 << s
            d = digits[s]
            m = memory_of[v]
            observed |= step_bits[s, d, m]
            w = v + step_delta[s, d, m]
            if w == v:
                cycle = True
            elif num[w] < 0:
                num[w] = count
                low[w] = count
                order[count] = w
                count += 1
                stack[sp] = w
                sp += 1
                flag[w] = 1
                cs_node[csp] = w
                cs_t[csp] = 0
                csp += 1
            elif flag[w] & 1:
                if num[w] < low[v]:
                    low[v] = num[w]
            else:
                flag[v] |= 2
        else:
            csp -= 1
            if low[v] == num[v]:
                good = False
                n = 0
                while True:
                    sp -= 1
                    x = stack[sp]
                    if flag[x] & 2 or (x >= end_lo and x < end_hi):
                        good = True
                    flag[x] = 0
                    n += 1
                    if x == v:
                        break
                if n > 1:
                    cycle = True
                if not good:
                    ok = False
                    break
                if csp > 0:
                    flag[cs_node[csp - 1]] |= 2
            else:
                u = cs_node[csp - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    for i in range(count):
        num[order[i]] = -1
        flag[order[i]] = 0
    if not ok:
        outcome = 1
    elif not cycle:
        outcome = 2
    elif observed & need != need:
        outcome = 3
    else:
        outcome = 0
    return outcome, count, edges, read


@njit(cache=False)
def _histogram(
    radices, place, options, contrib, index_of, starts, lengths, step_delta, step_bits, need_bits,
    memory_of, slot_at, memories, end_q, states, start, stop, counts, sizes, hits,
):  # fmt: skip
    """Adds to counts[outcome], sizes[outcome] (states, edges) and hits (previous-search memo, last-slot memo)."""
    slots = radices.shape[0]
    threads = lengths.shape[0]
    ncontrib = contrib.shape[2]
    digits = np.zeros(slots, dtype=np.int64)
    for s in range(slots):
        digits[s] = start // place[s] % radices[s]
    maxloc = np.zeros(slots, dtype=np.int64)
    prefix = np.zeros((slots, ncontrib), dtype=np.int64)
    last = np.zeros(threads, dtype=np.int64)
    for t in range(threads):
        last[t] = starts[t] + lengths[t] - 1
    work = (
        np.full(states, -1, dtype=np.int64),
        np.zeros(states, dtype=np.int64),
        np.zeros(states, dtype=np.int64),
        np.zeros(states, dtype=np.int64),
        np.zeros(states, dtype=np.int64),
        np.zeros(states, dtype=np.int64),
        np.zeros(states, dtype=np.int64),
    )
    ends = end_q * memories
    previous_read = -1  # -1: no previous search
    since = slots  # lowest slot changed since the previous search
    width = options.shape[1]
    memo_read = np.full(width, -1, dtype=np.int64)
    memo_digits = np.zeros((width, slots), dtype=np.int64)
    index = start
    changed = 0
    while index < stop:
        bad = -1
        for s in range(changed, slots):
            d = digits[s]
            here = options[s, d, 0]
            before = maxloc[s - 1] if s > 0 else -1
            if here > before + 1:
                bad = s
                break
            maxloc[s] = here if here > before else before
            if index_of[s] == 0:
                for c in range(ncontrib):
                    prefix[s, c] = contrib[s, d, c]
            else:
                for c in range(ncontrib):
                    prefix[s, c] = prefix[s - 1, c] | contrib[s, d, c]
        if bad >= 0:
            if bad == 0:
                break
            step = place[bad - 1]
            index = (index // step + 1) * step
            for s in range(bad, slots):
                digits[s] = 0
            s = bad - 1
            digits[s] += 1
            while s > 0 and digits[s] == radices[s]:
                digits[s] = 0
                s -= 1
                digits[s] += 1
            changed = s
            since = min(since, s)
            continue
        if fast_judge._static_ok(prefix, last, threads):
            outcome, count, edges, read = _search_counted(
                digits, threads, step_delta, step_bits, need_bits, memory_of, slot_at, ends, ends + memories, work
            )
            counts[outcome] += 1
            sizes[outcome, 0] += count
            sizes[outcome, 1] += edges
            if previous_read >= 0 and previous_read >> since == 0:
                hits[0] += 1
            previous_read = read
            since = slots
            e = digits[slots - 1]
            if memo_read[e] >= 0:
                same = True
                for s in range(slots):
                    if memo_read[e] >> s & 1 and memo_digits[e, s] != digits[s]:
                        same = False
                if same:
                    hits[1] += 1
            memo_read[e] = read
            for s in range(slots):
                memo_digits[e, s] = digits[s]
        index += 1
        s = slots - 1
        digits[s] += 1
        while s > 0 and digits[s] == radices[s]:
            digits[s] = 0
            s -= 1
            digits[s] += 1
        changed = s
        since = min(since, s)


def parse(label: str) -> Bounds:
    threads, instructions = label.rstrip("i").split("t")
    return Bounds(threads=int(threads), instructions=int(instructions))


def profile(label: str) -> list[str]:
    bounds = parse(label)
    space = fast_judge.stream_space(bounds)
    walk_cpu = kernel_cpu = 0.0
    judged = tests = 0
    counts = np.zeros(len(OUTCOMES), dtype=np.int64)
    sizes = np.zeros((len(OUTCOMES), 2), dtype=np.int64)
    hits = np.zeros(2, dtype=np.int64)
    for unit in space.units():
        table = space.table(unit.partition)
        arguments = fast_judge._arguments(table)
        _walk(*arguments[:7], unit.start, min(unit.stop, unit.start + 8))  # compile outside the clock
        fast_judge.judge_range(table, unit.start, min(unit.stop, unit.start + 8))
        cpu = time.process_time()
        walked = _walk(*arguments[:7], unit.start, unit.stop)
        walk_cpu += time.process_time() - cpu
        cpu = time.process_time()
        found, done = fast_judge.judge_range(table, unit.start, unit.stop)
        kernel_cpu += time.process_time() - cpu
        assert walked == done, (walked, done)
        judged += done
        tests += len(found)
        _histogram(*arguments[:15], unit.start, unit.stop, counts, sizes, hits)
    assert counts.sum() == judged and counts[0] == tests, (counts, judged, tests)
    lines = [
        f"**{label}**: {judged:,} judged, {tests:,} tests; kernel {kernel_cpu:.2f} CPU s "
        f"({judged / kernel_cpu:,.0f} judged/s, {kernel_cpu / judged * 1e9:,.0f} ns per judged candidate); "
        f"an index-by-index walk (canonical order + static pruning, no search) alone takes {walk_cpu:.2f} s. "
        f"Memo hit rates: previous search {hits[0] / judged:.1%}, "
        f"one entry per last-slot option {hits[1] / judged:.1%}.",
        "",
        "| outcome | candidates | share | mean states visited | mean edges |",
        "|---|---|---|---|---|",
    ]
    for k, name in enumerate(OUTCOMES):
        n = max(int(counts[k]), 1)
        lines.append(
            f"| {name} | {counts[k]:,} | {counts[k] / judged:.1%} | {sizes[k, 0] / n:.1f} | {sizes[k, 1] / n:.1f} |"
        )
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", default=["2t5i", "3t5i"])
    args = parser.parse_args()
    for label in args.configs:
        print("\n".join(profile(label)), flush=True)


if __name__ == "__main__":
    main()
