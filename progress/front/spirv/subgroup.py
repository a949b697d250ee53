"""Subgroup operations: what a collective step computes (docs/semantics.md section 10).

A collective instruction (`COLLECTIVE`) is performed once for all the
invocations of a subgroup that have not returned, each getting its own
result; `results(op, operands, lanes, values, size)` computes them from each
participant's operand values. Group operations: Reduce, InclusiveScan,
ExclusiveScan, ClusteredReduce (clusters of a power of two consecutive
lanes) and NV's PartitionedReduce/InclusiveScan/ExclusiveScan (each
invocation's partition is the lanes its ballot operand names); quad
operations act within quads of four consecutive lanes; RotateKHR reads lane
(lane + delta) mod the subgroup size (or within its cluster). The ballot's bit operations (`LOCAL`) read only the ballot
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
        "OpGroupNonUniformQuadBroadcast",
        "OpGroupNonUniformQuadSwap",
        "OpGroupNonUniformRotateKHR",
        "OpGroupNonUniformPartitionNV",
    }
)
UNSCOPED = frozenset({"OpGroupNonUniformPartitionNV"})
"""Collective instructions without an execution-scope operand (always the subgroup)."""
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


def results(
    op: str, operands: Sequence[Any], lanes: Sequence[int], values: Sequence[Sequence[Any]], size: int = 0
) -> list[Any]:
    """Each participant's result. `lanes[i]` is participant i's index in its
    subgroup (increasing); `values[i]` its operand values after the scope (an
    enumerant such as "Reduce" is given as is in `operands`); `size` the
    subgroup size (RotateKHR without a cluster size needs it)."""
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
        return [_ballot(lane for lane, v in zip(lanes, values) if v[0])] * len(lanes)
    if op == "OpGroupNonUniformPartitionNV":
        return [_ballot(lane for lane, w in zip(lanes, values) if w[0] == v[0]) for v in values]
    if op == "OpGroupNonUniformBroadcastFirst":
        return [values[0][0]] * len(lanes)
    if op in EXCHANGES:
        return [_exchange(op, lanes, values, i, size) for i in range(len(lanes))]
    kind = str(operands[1])
    members = _members(kind, lanes, values, size)
    return [_combine(op, kind, lanes, values, i, members[i]) for i in range(len(lanes))]


def _ballot(lanes: Any) -> tuple[int, ...]:
    mask = 0
    for lane in lanes:
        mask |= 1 << lane
    return tuple((mask >> (32 * k)) & MASK for k in range(4))


def _members(kind: str, lanes: Sequence[int], values: Sequence[Sequence[Any]], size: int) -> list[list[int]]:
    """For each participant, the participants (by position) its group operation combines, in lane order."""
    everyone = list(range(len(lanes)))
    if kind in ("Reduce", "InclusiveScan", "ExclusiveScan"):
        return [everyone] * len(lanes)
    if kind == "ClusteredReduce":
        out = []
        for v, lane in zip(values, lanes):
            cluster = _cluster_size(v[1])
            if size and cluster > size:
                raise Undefined(f"a cluster of {cluster} lanes in a subgroup of {size}")
            out.append([j for j in everyone if lanes[j] // cluster == lane // cluster])
        return out
    if kind in ("PartitionedReduceNV", "PartitionedInclusiveScanNV", "PartitionedExclusiveScanNV"):
        out = []
        for v, lane in zip(values, lanes):
            named = {x for x in range(128) if _bit(v[1], x)}
            if lane not in named:
                raise Undefined(f"{kind}: the ballot of lane {lane} does not name the lane itself")
            out.append([j for j in everyone if lanes[j] in named])
        return out
    raise Undefined(f"the group operation {kind} is not supported")


def _cluster_size(value: Any) -> int:
    if not isinstance(value, int) or value < 1 or value & (value - 1):
        raise Undefined(f"a cluster size of {value} (SPIR-V asks for a power of two, at least 1)")
    return value


def _combine(
    op: str, kind: str, lanes: Sequence[int], values: Sequence[Sequence[Any]], i: int, members: list[int]
) -> Any:
    """Participant i's reduction or scan over `members`."""
    combine, identity = ARITHMETIC[op]
    if kind in ("InclusiveScan", "PartitionedInclusiveScanNV"):
        members = [j for j in members if lanes[j] <= lanes[i]]
    elif kind in ("ExclusiveScan", "PartitionedExclusiveScanNV"):
        members = [j for j in members if lanes[j] < lanes[i]]
        if not members:
            return _identity(values[i][0], identity)
    running: Any = None
    for j in members:
        running = values[j][0] if running is None else lift(combine, running, values[j][0])
    return running


def _identity(like: Any, identity: int) -> Any:
    if isinstance(like, tuple):
        return tuple(_identity(part, identity) for part in like)
    return identity


def _exchange(op: str, lanes: Sequence[int], values: Sequence[Sequence[Any]], i: int, size: int) -> Any:
    """A value read from another lane: broadcast, the shuffles, the quad operations and rotate."""
    lane, other = lanes[i], values[i][1]
    if op in ("OpGroupNonUniformBroadcast", "OpGroupNonUniformShuffle"):
        source = other
    elif op == "OpGroupNonUniformShuffleXor":
        source = lane ^ other
    elif op == "OpGroupNonUniformShuffleUp":
        source = lane - other
    elif op == "OpGroupNonUniformShuffleDown":
        source = lane + other
    elif op == "OpGroupNonUniformQuadBroadcast":
        source = (lane & ~3) + other
    elif op == "OpGroupNonUniformQuadSwap":
        if other not in (0, 1, 2):
            raise Undefined(f"a quad swap of direction {other} (0, 1 and 2 are defined)")
        source = lane ^ (other + 1)
    else:  # OpGroupNonUniformRotateKHR
        cluster = _cluster_size(values[i][2]) if len(values[i]) > 2 else size
        if cluster > size:
            raise Undefined(f"a rotate cluster of {cluster} lanes in a subgroup of {size}")
        base = lane - lane % cluster
        source = base + (lane - base + other) % cluster
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
