"""A kernel's functions prepared for execution: block indices, successors,
loop headers and liveness (docs/semantics.md section 8).

Liveness makes states canonical: an invocation's frozen local state keeps
only the SSA values and Function variables that some path from its position
still reads, so two runs that differ in dead values meet in one state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from progress.front.spirv.ir import Block, Function, Id, Instruction, ModuleView

TERMINATORS = ("OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpUnreachable", "OpKill")
_READS_POINTER = frozenset({"OpLoad", "OpAtomicLoad", "OpArrayLength"})
_POINTER_COPIES = frozenset({"OpAccessChain", "OpInBoundsAccessChain", "OpCopyObject", "OpPhi", "OpSelect"})


@dataclass(frozen=True)
class Code:
    """One function: `index[label]` is a block's position in `blocks`;
    `live[b][i]` the ids (values and Function variables) live before
    instruction i of block b; `headers` the blocks some cycle enters (back-edge
    targets of a depth-first search: every cycle contains one); `variables`
    its Function-storage variables with their pointee types."""

    function: Function
    blocks: tuple[Block, ...]
    index: Mapping[int, int]
    live: Liveness
    headers: frozenset[int]
    variables: tuple[tuple[int, int], ...]
    first: tuple[int, ...]  # the position of each block's first instruction that is not an OpPhi


def successors(block: Block) -> tuple[int, ...]:
    """The labels a block's terminator may branch to."""
    end = block.terminator
    ops = end.operands
    if end.opcode == "OpBranch":
        return (_id(ops[0]),)
    if end.opcode == "OpBranchConditional":
        return (_id(ops[1]), _id(ops[2]))
    if end.opcode == "OpSwitch":
        return (_id(ops[1]),) + tuple(_id(op) for op in ops[3::2])
    return ()


def prepare(view: ModuleView, function: Function) -> Code:
    blocks = function.blocks
    index = {b.label: i for i, b in enumerate(blocks)}
    succ = [tuple(index[label] for label in successors(b) if label in index) for b in blocks]
    variables = tuple(
        (inst.result, _pointee(view, inst))
        for b in blocks
        for inst in b.instructions
        if inst.opcode == "OpVariable" and inst.result is not None
    )
    local_vars = frozenset(v for v, _ in variables)
    derived = _derived_pointers(blocks, local_vars)
    live = _liveness(blocks, succ, index, _local_ids(function, blocks), derived)
    first = tuple(sum(1 for _ in _leading_phis(b)) for b in blocks)
    return Code(function, blocks, index, live, _back_edge_targets(succ), variables, first)


def _leading_phis(block: Block) -> list[Instruction]:
    phis = []
    for inst in block.instructions:
        if inst.opcode != "OpPhi":
            break
        phis.append(inst)
    return phis


def _pointee(view: ModuleView, inst: Instruction) -> int:
    pointer = view.types.get(inst.result_type or -1)
    return getattr(pointer, "pointee", -1)


def _local_ids(function: Function, blocks: tuple[Block, ...]) -> frozenset[int]:
    ids = {p.id for p in function.parameters}
    ids.update(inst.result for b in blocks for inst in b.instructions if inst.result is not None)
    return frozenset(ids)


def _derived_pointers(blocks: tuple[Block, ...], local_vars: frozenset[int]) -> dict[int, int]:
    """Pointer values into a Function variable, by the variable they point into."""
    derived: dict[int, int] = {v: v for v in local_vars}
    if not derived:
        return derived
    candidates = [
        (inst.result, inst.ids())
        for b in blocks
        for inst in b.instructions
        if inst.opcode in _POINTER_COPIES and inst.result is not None
    ]
    changed = True
    while changed:
        changed = False
        for result, ids in candidates:
            if result not in derived:
                base = next((derived[i] for i in ids if i in derived), None)
                if base is not None:
                    derived[result] = base
                    changed = True
    return derived


def _uses_defs(inst: Instruction, local: frozenset[int], derived: Mapping[int, int]) -> tuple[set[int], set[int]]:
    """The local ids an instruction reads and the ones it defines (overwrites whole)."""
    uses = {i for i in inst.ids() if i in local}
    defs = {inst.result} if inst.result is not None else set()
    if inst.opcode == "OpStore":
        pointer = _id(inst.operands[0])
        if pointer in derived and derived[pointer] == pointer:
            uses.discard(pointer)
            defs.add(pointer)  # a store to the whole variable
        elif pointer in derived:
            uses.add(derived[pointer])  # a partial store keeps the rest
    elif inst.opcode in _READS_POINTER or inst.opcode.startswith("OpAtomic") or inst.opcode == "OpFunctionCall":
        uses.update(derived[i] for i in inst.ids() if i in derived)
    if inst.opcode == "OpVariable":
        defs.discard(inst.result)
    return uses, defs


def _liveness(
    blocks: tuple[Block, ...],
    succ: list[tuple[int, ...]],
    index: Mapping[int, int],
    local: frozenset[int],
    derived: Mapping[int, int],
) -> Liveness:
    info = [[_uses_defs(inst, local, derived) for inst in b.instructions] for b in blocks]
    phi_uses = _phi_uses(blocks, index, local)
    summaries = [_summary(block, facts) for block, facts in zip(blocks, info)]
    live_in: list[set[int]] = [set() for _ in blocks]
    changed = True
    while changed:  # on blocks: live_in = gen | (live_out - kill)
        changed = False
        for b in reversed(range(len(blocks))):
            live = set(phi_uses.get(b, ()))
            for s in succ[b]:
                live |= live_in[s]
            gen, kill = summaries[b]
            live = gen | (live - kill)
            if live != live_in[b]:
                live_in[b] = live
                changed = True
    return Liveness(blocks, info, live_in, succ, phi_uses)


class Liveness:
    """`live[b][i]`: the ids live before instruction i of block b, each block's
    tuple computed on first use (most blocks are never stopped in)."""

    def __init__(
        self,
        blocks: tuple[Block, ...],
        info: list[list[tuple[set[int], set[int]]]],
        live_in: list[set[int]],
        succ: list[tuple[int, ...]],
        phi_uses: dict[int, set[int]],
    ):
        self._args = (blocks, info, live_in, succ, phi_uses)
        self._blocks: dict[int, tuple[frozenset[int], ...]] = {}

    def __getitem__(self, b: int) -> tuple[frozenset[int], ...]:
        found = self._blocks.get(b)
        if found is None:
            blocks, info, live_in, succ, phi_uses = self._args
            found = self._blocks[b] = _per_instruction(blocks[b], info[b], live_in, succ[b], phi_uses.get(b, set()))
        return found


def _summary(block: Block, facts: list[tuple[set[int], set[int]]]) -> tuple[set[int], set[int]]:
    """A block's liveness transfer as (gen, kill): the ids it reads before
    defining them (OpPhi operands belong to the edges, not here), and every id it defines."""
    gen: set[int] = set()
    kill: set[int] = set()
    for inst, (uses, defs) in zip(reversed(block.instructions), reversed(facts)):
        gen -= defs
        kill |= defs
        if inst.opcode != "OpPhi":
            gen |= uses
    return gen, kill


def _phi_uses(blocks: tuple[Block, ...], index: Mapping[int, int], local: frozenset[int]) -> dict[int, set[int]]:
    """The values each block passes to the OpPhi instructions of its successors."""
    found: dict[int, set[int]] = {}
    for b in blocks:
        for inst in b.instructions:
            if inst.opcode != "OpPhi":
                continue
            ops = inst.operands
            for value, parent in zip(ops[0::2], ops[1::2]):
                if _id(value) in local and _id(parent) in index:
                    found.setdefault(index[_id(parent)], set()).add(_id(value))
    return found


def _per_instruction(
    block: Block, info: list[tuple[set[int], set[int]]], live_in: list[set[int]], succ: tuple[int, ...], phis: set[int]
) -> tuple[frozenset[int], ...]:
    live = set(phis)
    for s in succ:
        live |= live_in[s]
    out: list[frozenset[int]] = []
    for inst, (uses, defs) in zip(reversed(block.instructions), reversed(info)):
        live -= defs
        if inst.opcode != "OpPhi":
            live |= uses
        out.append(frozenset(live))
    return tuple(reversed(out))


def _back_edge_targets(succ: list[tuple[int, ...]]) -> frozenset[int]:
    """Targets of back edges of an iterative depth-first search from block 0."""
    targets: set[int] = set()
    state = [0] * len(succ)  # 0 new, 1 on the stack, 2 done
    stack = [(0, iter(succ[0]))] if succ else []
    if succ:
        state[0] = 1
    while stack:
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            state[node] = 2
            stack.pop()
        elif state[child] == 1:
            targets.add(child)
        elif state[child] == 0:
            state[child] = 1
            stack.append((child, iter(succ[child])))
    return frozenset(targets)


def _id(operand: object) -> int:
    return operand.value if isinstance(operand, Id) else -1
