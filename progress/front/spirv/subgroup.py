"""Subgroup operations: what a collective step computes (docs/semantics.md section 10).

A collective instruction (`COLLECTIVE`) is performed once for all the
invocations of a subgroup that have not returned, each getting its own
result; `results(op, operands, lanes)` computes them from each participant's
operand values. The ballot's bit operations (`LOCAL`) read only the ballot
and the lane's own index, so they are local computation. Values are the
interpreter's: 32-bit unsigned integers, booleans as 0/1, vectors as tuples.
Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from progress.front.spirv.values import MASK, lift, signed

SUBGROUP_SCOPE = 3

ARITHMETIC: dict[str, tuple[Callable[[int, int], int], int]] = {
    "OpGroupNonUniformIAdd": (lambda a, b: (a + b) & MASK, 0),
    "OpGroupNonUniformIMul": (lambda a, b: (a * b) & MASK, 1),
    "OpGroupNonUniformSMin": (lambda a, b: a if signed(a) <= signed(b) else b, 0x7FFFFFFF),
    "OpGroupNonUniformUMin": (min, MASK),
    "OpGroupNonUniformSMax": (lambda a, b: a if signed(a) >= signed(b) else b, 0x80000000),
    "OpGroupNonUniformUMax": (max, 0),
    "OpGroupNonUniformBitwiseAnd": (lambda a, b: a & b, MASK),
    "OpGroupNonUniformBitwiseOr": (lambda a, b: a | b, 0),
    "OpGroupNonUniformBitwiseXor": (lambda a, b: a ^ b, 0),
    "OpGroupNonUniformLogicalAnd": (lambda a, b: int(bool(a) and bool(b)), 1),
    "OpGroupNonUniformLogicalOr": (lambda a, b: int(bool(a) or bool(b)), 0),
    "OpGroupNonUniformLogicalXor": (lambda a, b: int(bool(a) != bool(b)), 0),
}
"""Reductions and scans: the operation and its identity (an exclusive scan's first value)."""

EXCHANGES = frozenset(
    {
        "OpGroupNonUniformElect",
        "OpGroupNonUniformAll",
        "OpGroupNonUniformAny",
        "OpGroupNonUniformAllEqual",
        "OpGroupNonUniformBroadcast",
        "OpGroupNonUniformBroadcastFirst",
        "OpGroupNonUniformBallot",
        "OpGroupNonUniformShuffle",
        "OpGroupNonUniformShuffleXor",
        "OpGroupNonUniformShuffleUp",
        "OpGroupNonUniformShuffleDown",
    }
)
COLLECTIVE = EXCHANGES | frozenset(ARITHMETIC)
"""The instructions performed as one step of the whole subgroup (and OpControlBarrier of Subgroup scope)."""
LOCAL = frozenset(
    {
        "OpGroupNonUniformInverseBallot",
        "OpGroupNonUniformBallotBitExtract",
        "OpGroupNonUniformBallotBitCount",
        "OpGroupNonUniformBallotFindLSB",
        "OpGroupNonUniformBallotFindMSB",
    }
)
"""The ballot's bit operations: functions of the ballot value and the lane's index."""


class Undefined(Exception):
    """A result SPIR-V leaves undefined (a lane that is not there); the message says which."""


def results(op: str, operands: Sequence[Any], lanes: Sequence[int], values: Sequence[Sequence[Any]]) -> list[Any]:
    """Each participant's result. `lanes[i]` is participant i's index in its
    subgroup (increasing); `values[i]` its operand values after the scope (an
    enumerant such as "Reduce" is given as is in `operands`)."""
    if op == "OpGroupNonUniformElect":
        return [int(i == 0) for i in range(len(lanes))]
    if op in ("OpGroupNonUniformAll", "OpGroupNonUniformAny"):
        truth = [bool(v[0]) for v in values]
        answer = int(all(truth) if op.endswith("All") else any(truth))
        return [answer] * len(lanes)
    if op == "OpGroupNonUniformAllEqual":
        answer = int(all(v[0] == values[0][0] for v in values))
        return [answer] * len(lanes)
    if op == "OpGroupNonUniformBallot":
        mask = 0
        for lane, v in zip(lanes, values):
            if v[0]:
                mask |= 1 << lane
        return [tuple((mask >> (32 * k)) & MASK for k in range(4))] * len(lanes)
    if op == "OpGroupNonUniformBroadcastFirst":
        return [values[0][0]] * len(lanes)
    if op in EXCHANGES:
        return [_exchange(op, lanes, values, i) for i in range(len(lanes))]
    combine, identity = ARITHMETIC[op]
    kind = str(operands[1])
    if kind not in ("Reduce", "InclusiveScan", "ExclusiveScan"):
        raise Undefined(f"the group operation {kind} is not supported (Reduce, InclusiveScan, ExclusiveScan are)")
    out = []
    running: Any = None
    for v in values:
        before = running
        running = v[0] if running is None else lift(combine, running, v[0])
        if kind == "InclusiveScan":
            out.append(running)
        elif kind == "ExclusiveScan":
            out.append(_identity(v[0], identity) if before is None else before)
    return out if kind != "Reduce" else [running] * len(lanes)


def _identity(like: Any, identity: int) -> Any:
    if isinstance(like, tuple):
        return tuple(_identity(part, identity) for part in like)
    return identity


def _exchange(op: str, lanes: Sequence[int], values: Sequence[Sequence[Any]], i: int) -> Any:
    """A value read from another lane: broadcast and the shuffles."""
    lane, other = lanes[i], values[i][1]
    if op in ("OpGroupNonUniformBroadcast", "OpGroupNonUniformShuffle"):
        source = other
    elif op == "OpGroupNonUniformShuffleXor":
        source = lane ^ other
    elif op == "OpGroupNonUniformShuffleUp":
        source = lane - other
    else:
        source = lane + other
    if source not in lanes:
        return _identity(values[i][0], 0)  # undefined in SPIR-V (no such lane taking part): 0 here, docs/kernels.md
    return values[lanes.index(source)][0]


def local(op: str, operands: Sequence[Any], lane: int, values: Sequence[Any]) -> Any:
    """A ballot bit operation for the invocation at `lane` (`values` after the scope)."""
    if op == "OpGroupNonUniformInverseBallot":
        return _bit(values[0], lane)
    if op == "OpGroupNonUniformBallotBitExtract":
        return _bit(values[0], values[1])
    ballot = values[-1]
    bits = sum(word << (32 * k) for k, word in enumerate(ballot))
    if op == "OpGroupNonUniformBallotFindLSB":
        return (bits & -bits).bit_length() - 1 if bits else MASK
    if op == "OpGroupNonUniformBallotFindMSB":
        return bits.bit_length() - 1 if bits else MASK
    kind = str(operands[1])
    if kind == "Reduce":
        return bin(bits).count("1")
    upto = lane + 1 if kind == "InclusiveScan" else lane
    return bin(bits & ((1 << upto) - 1)).count("1")


def _bit(ballot: Sequence[int], index: int) -> int:
    return (ballot[index // 32] >> (index % 32)) & 1 if 0 <= index < 128 else 0
