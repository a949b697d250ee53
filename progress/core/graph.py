"""Strongly connected components of an LTS, restricted to a set of states.

Iterative Tarjan over states numbered 0..n-1; components come out in reverse
topological order.
"""

from __future__ import annotations

from collections.abc import Iterable


def sccs(succ: list[list[tuple[int, int]]], nodes: Iterable[int] | None = None) -> list[list[int]]:
    """SCCs of the subgraph induced by `nodes` (default: every state)."""
    n = len(succ)
    roots, allowed = _restriction(n, nodes)
    index = [-1] * n
    low = [0] * n
    on_stack = bytearray(n)
    stack: list[int] = []
    result: list[list[int]] = []
    counter = 0
    for root in roots:
        if index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = 1
        work = [(root, iter(succ[root]))]
        while work:
            node, edges = work[-1]
            for _, dst in edges:
                if not allowed[dst]:
                    continue
                if index[dst] < 0:
                    index[dst] = low[dst] = counter
                    counter += 1
                    stack.append(dst)
                    on_stack[dst] = 1
                    work.append((dst, iter(succ[dst])))
                    break
                if on_stack[dst] and index[dst] < low[node]:
                    low[node] = index[dst]
            else:
                work.pop()
                if work and low[node] < low[work[-1][0]]:
                    low[work[-1][0]] = low[node]
                if low[node] == index[node]:
                    result.append(_pop_component(stack, on_stack, node))
    return result


def _restriction(n: int, nodes: Iterable[int] | None) -> tuple[Iterable[int], bytearray]:
    """The roots to start from, in order, and a mask of the allowed states."""
    if nodes is None:
        return range(n), bytearray(b"\x01") * n
    roots = sorted(nodes)
    allowed = bytearray(n)
    for node in roots:
        allowed[node] = 1
    return roots, allowed


def _pop_component(stack: list[int], on_stack: bytearray, root: int) -> list[int]:
    """Pop the states above and including `root`: one finished SCC."""
    component = []
    while True:
        member = stack.pop()
        on_stack[member] = 0
        component.append(member)
        if member == root:
            return component
