"""What wgpu's SPIR-V reader (naga) would mistranslate, removed or refused.

naga's SPIR-V front end turns a branch from inside a switch construct to the
enclosing loop's merge into an IR `break`, which in naga's IR (as in WGSL)
leaves only the switch: the loop runs on (gfx-rs/naga#1575 "[spv-in] Nested
break", fix PR #2323 never merged; naga-wasm 30.1.0 and wgpu-native 29 still
do it). A branch to the loop's continue target, or to any other block
outside the switch construct but its merge, is refused as well: SPIR-V
allows no other exits, and naga has no construct that leaves a switch for
anything but the switch's end.

`for_naga(module, name)` gives the module wgpu may read: each switch whose
every target is its default (Slang's `switch 0 { default: ... }` wrapper
around a loop body) that has such an exit becomes a plain block (its
OpSelectionMerge dropped, the OpSwitch an OpBranch to the default; the old
merge stays an ordinary block, the edges and OpPhis unchanged, so the
module computes what it did). The result must pass spirv-val (the caller's `complaint_of`). Any exit left
(a switch with cases, or a rewrite spirv-val refuses) is a `NagaHazard`
(exit 2) at the source line of the branch, naming the kernel and the naga
issue: a wrong compile must never become a GPU result. A module without
such exits is returned as it is.

Constructs are the SPIR-V specification's: the blocks a header dominates
that its merge block does not (reachable blocks only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from progress.back.spirv_edit import Draft, RawBlock, RawFunction, op
from progress.back.spirv_encode import encode
from progress.errors import InputError
from progress.front.spirv.ir import Id, Instruction, Module, SourceLine

ISSUE = "gfx-rs/naga#1575"


class NagaHazard(InputError):
    """A branch naga would mistranslate, at its source line (exit 2)."""


@dataclass(frozen=True)
class Exit:
    """A branch from `block` (in the switch construct headed by `switch`) to
    `target`, outside that construct and not its merge; `kind` says what the
    target is to the enclosing loop ("merge", "continue target" or "block")."""

    function: RawFunction
    switch: RawBlock
    block: RawBlock
    target: int
    kind: str


def for_naga(module: Module, name: str, complaint_of: Callable[[bytes], str]) -> Module:
    """`module` as wgpu may read it (see the module's contract); `complaint_of`
    is spirv-val's complaint about a binary, "" when valid (front/spirv/toolchain's)."""
    draft = Draft(module)
    found = [e for f in draft.functions for e in switch_exits(f)]
    if not found:
        return module
    wrappers = {id(e.switch): e.switch for e in found if _only_default(e.switch)}
    for header in wrappers.values():
        _unwrap(header)
    left = [e for f in draft.functions for e in switch_exits(f)]
    if left:
        raise _hazard(left[0], name, "")
    rewritten = draft.finish()
    complaint = complaint_of(encode(rewritten))
    if complaint:
        why = f" (dropping the switch gives invalid SPIR-V: {complaint.splitlines()[0]})"
        raise _hazard(found[0], name, why)
    return rewritten


def switch_exits(function: RawFunction) -> list[Exit]:
    """Every branch that leaves a switch construct of `function` other than for its merge, in block order."""
    blocks = {b.label: b for b in function.blocks}
    dominators = _dominators(function)
    found = []
    for header in function.blocks:
        merge = header.merge()
        if merge is None or merge.opcode != "OpSelectionMerge" or header.terminator.opcode != "OpSwitch":
            continue
        end = _ref(merge.operands[0])
        outside = _enclosing_ends(header.label, function, dominators) | {end}
        inside = {b for b, doms in dominators.items() if header.label in doms and not doms & outside}
        loop = _enclosing_loop(header.label, function, dominators)
        for label in sorted(inside, key=[b.label for b in function.blocks].index):
            block = blocks[label]
            for target in dict.fromkeys(block.successors()):
                if target not in inside and target != end:
                    found.append(Exit(function, header, block, target, _kind(loop, target)))
    return found


def _enclosing_ends(label: int, function: RawFunction, dominators: dict[int, set[int]]) -> set[int]:
    """The merges of the constructs that hold block `label` (headers strictly dominating it), and
    the continue targets of such loops when `label` is not in their continue construct: a block
    these dominate is outside every construct nested in them, though the nested header may dominate it."""
    doms = dominators.get(label, set())
    ends: set[int] = set()
    for header in function.blocks:
        merge = header.merge()
        if merge is None or header.label == label or header.label not in doms:
            continue
        targets = [_ref(o) for o in merge.operands if isinstance(o, Id)]
        if targets[0] in doms:
            continue  # `label` is after this construct
        ends.add(targets[0])
        if merge.opcode == "OpLoopMerge" and targets[1] not in doms:
            ends.add(targets[1])
    return ends


def _kind(loop: Instruction | None, target: int) -> str:
    if loop is not None and target == _ref(loop.operands[0]):
        return "merge"
    if loop is not None and target == _ref(loop.operands[1]):
        return "continue target"
    return "block"


def _enclosing_loop(label: int, function: RawFunction, dominators: dict[int, set[int]]) -> Instruction | None:
    """The OpLoopMerge of the innermost loop whose construct holds block `label`."""
    best = None
    for header in function.blocks:
        merge = header.merge()
        if merge is None or merge.opcode != "OpLoopMerge":
            continue
        doms = dominators.get(label, set())
        if header.label in doms and _ref(merge.operands[0]) not in doms:
            if best is None or best[0] in dominators[header.label]:
                best = (header.label, merge)
    return best[1] if best else None


def _only_default(header: RawBlock) -> bool:
    targets = {o for o in header.terminator.operands[1:] if isinstance(o, Id)}
    return len(targets) == 1


def _unwrap(header: RawBlock) -> None:
    """The switch header a plain block: no OpSelectionMerge, an OpBranch to the default."""
    switch = header.terminator
    branch = replace(op("OpBranch", switch.operands[1]), source=switch.source)
    header.body = [i for i in header.body[:-1] if i.opcode != "OpSelectionMerge"] + [branch]


def _hazard(found: Exit, name: str, why: str) -> NagaHazard:
    line = _line(found)
    where = "" if line is not None else f" at word offset {found.block.terminator.word_offset}"
    what = {
        "merge": "for the enclosing loop's merge (a loop `break` from inside the switch)",
        "continue target": "for the enclosing loop's continue target (a loop `continue` from inside the switch)",
        "block": f"for block %{found.target}, not the switch's merge",
    }[found.kind]
    naga = (
        "wgpu's SPIR-V reader (naga) turns it into a `break` that leaves only the switch"
        if found.kind == "merge"
        else "wgpu's SPIR-V reader (naga) is not trusted with exits from a switch"
    )
    message = (
        f"{name}: not run: a branch{where} leaves a switch construct (header %{found.switch.label}) {what}; "
        f"{naga} ({ISSUE}){why}"
    )
    return NagaHazard(message, line.position() if line is not None else None)


def _line(found: Exit) -> SourceLine | None:
    """The branch's source line, else the nearest one before it in its function, else the switch's."""
    earlier: SourceLine | None = None
    for block in found.function.blocks:
        for inst in block.body:
            earlier = inst.source or earlier
            if inst is found.block.terminator:
                return earlier or found.switch.terminator.source
    return None


def _dominators(function: RawFunction) -> dict[int, set[int]]:
    """Each reachable block's dominators (itself included)."""
    blocks = {b.label: b for b in function.blocks}
    start = function.blocks[0].label
    order: list[int] = []
    seen = {start}
    stack = [start]
    while stack:
        label = stack.pop()
        order.append(label)
        for target in blocks[label].successors():
            if target not in seen and target in blocks:
                seen.add(target)
                stack.append(target)
    preds: dict[int, list[int]] = {b: [] for b in order}
    for label in order:
        for target in blocks[label].successors():
            if target in preds:
                preds[target].append(label)
    every = set(order)
    doms = {b: ({b} if b == start else set(every)) for b in order}
    changed = True
    while changed:
        changed = False
        for label in order:
            if label == start:
                continue
            new = set.intersection(*(doms[p] for p in preds[label])) | {label}
            if new != doms[label]:
                doms[label] = new
                changed = True
    return doms


def _ref(operand: object) -> int:
    assert isinstance(operand, Id), operand
    return operand.value
