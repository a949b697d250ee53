"""Strongly connected components of an LTS, restricted to a set of states.

Iterative Tarjan; components come out in reverse topological order.
"""

from __future__ import annotations

from typing import Iterable


def sccs(succ: list[list[tuple[int, int]]], nodes: Iterable[int] | None = None) -> list[list[int]]:
    """SCCs of the subgraph induced by `nodes` (default: every state)."""
    inside = None if nodes is None else set(nodes)
    order = range(len(succ)) if inside is None else sorted(inside)
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    result: list[list[int]] = []
    counter = 0
    for root in order:
        if root in index:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, i = work[-1]
            edges = succ[node]
            if i < len(edges):
                work[-1] = (node, i + 1)
                dst = edges[i][1]
                if inside is not None and dst not in inside:
                    continue
                if dst not in index:
                    index[dst] = low[dst] = counter
                    counter += 1
                    stack.append(dst)
                    on_stack.add(dst)
                    work.append((dst, 0))
                elif dst in on_stack and index[dst] < low[node]:
                    low[node] = index[dst]
                continue
            work.pop()
            if work and low[node] < low[work[-1][0]]:
                low[work[-1][0]] = low[node]
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                result.append(component)
    return result


def has_internal_edge(succ: list[list[tuple[int, int]]], component: list[int]) -> bool:
    """Whether some edge runs between two states of `component` (a cycle)."""
    if len(component) > 1:
        return True
    node = component[0]
    return any(dst == node for _, dst in succ[node])
