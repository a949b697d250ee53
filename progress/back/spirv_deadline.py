"""Deadline instrumentation: a kernel that cannot hang the device that runs it.

`instrument(module, entry)` rewrites a compute kernel (SPIR-V to SPIR-V, on
the project's own decoder and encoder) so that every way it can run forever
passes a check of a per-launch deadline:

- **Loops.** Every loop (OpLoopMerge) gets a check block at the start of its
  body: the header keeps only its OpPhis and OpLoopMerge and branches to the
  check, whose selection either leaves or joins the rest of the old header
  (a loop that was its own continue target gets a new one-block continue
  construct). The check runs once per iteration, outside the continue
  construct (WGSL, and so naga, forbid a `return` in `continuing`).
- **Barriers.** After every OpControlBarrier with Workgroup execution scope
  (outside a continue construct), an invocation leaves if the launch has
  expired. A barrier never waits for an invocation that left: it returned,
  and Vulkan drivers count a returned invocation as arrived (NVIDIA since
  Volta: "all non-exited threads"; lavapipe and SwiftShader mask it off);
  `litmus/kernels/barrier_divergence.comp` measures it on each device.
- **Functions.** A check in a function called from the entry point sets the
  Private flag `leaving` and returns; after every call of such a function
  the caller returns too, up to the entry point.
- **Leaving by breaking** (`leave="break"`, for WebGPU). WGSL requires every
  workgroup barrier to be in uniform control flow, and a `return` whose
  condition WGSL deems non-uniform (any check's) makes every barrier after
  it an error. So here a failed check records the leave (once per
  invocation: `leaving`) and breaks out of its loop instead: the invocation
  runs on, every loop it enters breaks at its first check (the launch has
  expired), and it reaches the end of the entry point, where it is not
  counted as returned. There are no checks after barriers and no returns
  after calls. What a leaving invocation does after its leave is not the
  kernel's behaviour (its values are the loop's at the check, or undefined
  where the loop's exit values were computed later); only iterations in
  which no check failed are compared. A loop that holds a workgroup
  barrier (in its body or a function it calls) is checked uniformly: its
  function's own count of such iterations against `UNIFORM_BOUND`, both
  uniform in WGSL's sense, so every invocation of the workgroup leaves it
  at the same iteration and the barrier stays in uniform control flow. (In
  WGSL such a loop cannot wait for another workgroup: its exit is uniform,
  so it depends on nothing another workgroup writes; the bound only ends
  one that never ends.)
- **The deadline.** `clock=False`: an iteration budget, every check adds 1 to
  the invocation's count of iterations and fails past `budget` (control
  word 1). `clock=True`: `OpReadClockKHR` (Device scope, SPV_KHR_shader_clock),
  the check fails once the low clock word has moved more than `ticks`
  (control word 2) since the invocation started. Either way a check also
  fails once any invocation of the launch has failed one (`expired`, word 0).
- **Records.** The control buffer (its own descriptor set, binding 0; its
  layout in `spirv_checks.py`, which writes the checks' code) gets, per
  workgroup of the kernel, how many invocations returned and how many
  left, and the site (1 + index in `sites`) where the first of them left,
  with `EXPIRY_BIT` set when it left because the launch had expired rather
  than by its own deadline; the launch's first site too.
- **Push constants.** WebGPU has none, and one way for every device is
  simplest: each PushConstant variable (in id order) becomes a read-only
  StorageBuffer in the control buffer's set, binding 1, 2, ... (Vulkan lays
  out both by the same Offsets), which the host fills with the `--push`
  values.
- **Launch shapes.** The entry point reads its workgroup id through a
  mapping chosen per launch (control words 4-6): the first `occupiers`
  workgroups of the dispatch do not run the kernel, they spin (with checks)
  until every invocation of the kernel's `workgroups` has ended; the others
  are the kernel's workgroups, their x ids in order, reversed or interleaved
  (even ids first). WorkgroupId, NumWorkgroups and GlobalInvocationId read
  by the kernel are the mapped ones.

Non-semantic extended instructions (NonSemantic.Shader.DebugInfo.100, as
Slang's `-g2` writes, clspv's reflection) are left out of the instrumented
kernel: they would pin places (DebugFunctionDefinition in the entry block)
that the pass moves, and they do nothing. Source lines stay on the
instructions (`Instruction.source`).

When no check fails, the instrumented kernel computes what the original
does: the checks only read the control buffer and Private variables of
their own. Refusals (a loop header whose two-way branch neither breaks nor
continues, a call that may leave inside a continue construct) are
`InstrumentError`s naming the instruction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from progress.back.spirv_checks import REDIRECTED, WORKGROUP, Emitter
from progress.back.spirv_edit import Draft, RawBlock, RawFunction, op, rename_phi_parents
from progress.back.spirv_encode import encode
from progress.front.spirv.ir import Id, Instruction, Module, ModuleView, Operand, PointerType, VoidType


class InstrumentError(ValueError):
    """A kernel the pass cannot instrument (names the instruction)."""


@dataclass(frozen=True)
class Site:
    """A check: `kind` "loop" or "barrier", the function's name, where in the
    source (`file:line`, else the word offset) and that line's text."""

    index: int
    kind: str
    function: str
    where: str
    text: str


@dataclass(frozen=True)
class Instrumented:
    module: Module
    binary: bytes
    sites: tuple[Site, ...]
    descriptor_set: int
    clock: bool
    local_size: tuple[int, int, int]
    push_bindings: tuple[int, ...] = ()  # the bindings, in the control set, of the push constants (in id order)
    occupiers: bool = True  # whether the prologue has the occupiers' branch


LEAVES = ("return", "break")
UNIFORM_BOUND = 1 << 14
"""Iterations of loops holding a barrier that one call of a function may pass when leaving by breaking
(below lavapipe's cut of a loop at 65535 iterations, which would end such a loop unrecorded)."""


def instrument(
    module: Module, entry: str, clock: bool = False, leave: str = "return", occupiers: bool = True
) -> Instrumented:
    """The instrumented kernel (see the module's contract); `occupiers=False`
    leaves the occupiers' branch out of the prologue (the `occupied` shape
    then cannot be launched)."""
    view = module.view
    point = view.entry_point(entry)
    if point is None:
        raise InstrumentError(f"no entry point {entry!r}")
    if leave not in LEAVES:
        raise ValueError(f"leave must be one of {LEAVES}, not {leave!r}")
    size = view.local_size(point) or (1, 1, 1)
    module = without_non_semantic(module)
    pass_ = _Pass(Draft(module), point.function, size, clock, leave == "break", occupiers)
    pass_.run()
    finished = pass_.draft.finish()
    sites = tuple(pass_.sites)
    return Instrumented(finished, encode(finished), sites, pass_.set, clock, size, pass_.push_bindings, occupiers)


def without_non_semantic(module: Module) -> Module:
    """`module` without its non-semantic extended instructions and their imports."""
    sets = {
        i.result
        for i in module.instructions
        if i.opcode == "OpExtInstImport" and i.operands and str(i.operands[0]).startswith("NonSemantic.")
    }
    if not sets:
        return module
    dropped = {
        i.result
        for i in module.instructions
        if (i.opcode == "OpExtInstImport" and i.result in sets)
        or (i.opcode == "OpExtInst" and i.operands and _ref(i.operands[0]) in sets)
    }
    kept = tuple(
        i
        for i in module.instructions
        if i.result not in dropped
        and not (i.opcode in _NAMES_AND_DECORATIONS and i.operands and _ref(i.operands[0]) in dropped)
    )
    return replace(module, instructions=kept)


_NAMES_AND_DECORATIONS = frozenset(
    {"OpName", "OpMemberName", "OpDecorate", "OpMemberDecorate", "OpDecorateId", "OpDecorateString"}
)


class _Pass:
    """One run of the pass over a draft."""

    def __init__(
        self, draft: Draft, entry: int, size: tuple[int, int, int], clock: bool, breaks: bool, occupiers: bool
    ):
        self.draft, self.entry, self.size = draft, entry, size
        self.breaks, self.occupiers = breaks, occupiers
        self.view = draft.module.view
        self.sites: list[Site] = []
        self.exits: set[int] = set()
        self.values = {c.id: c.value for c in self.view.constants.values() if c.value is not None}
        sets = [
            d.value
            for decorations in self.view.decorations.values()
            for d in decorations
            if d.name == "DescriptorSet" and isinstance(d.value, int)
        ]
        self.set = 1 + max(sets, default=-1)
        self.g = Emitter(draft, self.set, clock)
        self.counters: dict[int, int] = {}
        self.with_barriers = self.functions_with_barriers()

    def functions_with_barriers(self) -> set[int]:
        """Functions that execute a workgroup barrier, themselves or through a call."""
        found = {f.id for f in self.draft.functions if any(self.is_barrier(i) for b in f.blocks for i in b.body)}
        grown = True
        while grown:
            callers = {f.id for f in self.draft.functions if _calls(f) & found}
            grown = not callers <= found
            found |= callers
        return found

    def run(self) -> None:
        self.push_buffers()
        self.redirect_builtins()
        leaving = {f.id for f in self.draft.functions if self.checks(f)}
        grown = not self.breaks
        while grown:
            callers = {f.id for f in self.draft.functions if _calls(f) & leaving}
            grown = not callers <= leaving
            leaving |= callers
        for function in self.draft.functions if not self.breaks else ():
            self.after_calls(function, leaving)
        entry = next(f for f in self.draft.functions if f.id == self.entry)
        self.count_returns(entry)
        self.prologue(entry)
        self.interface()

    # --- checks ------------------------------------------------------------------

    def checks(self, function: RawFunction) -> bool:
        """Add the loop and barrier checks of `function`; whether it has any."""
        before = len(self.sites)
        for header in [b for b in function.blocks if _is_loop_header(b)]:
            self.loop(function, header)
        continuing = _continue_blocks(function)
        for block in list(function.blocks) if not self.breaks else ():
            if block.label not in continuing:
                self.barriers(function, block)
        return len(self.sites) > before

    def site(self, kind: str, function: RawFunction, inst: Instruction) -> int:
        name = self.view.names.get(function.id, f"%{function.id}")
        text = inst.source.text if inst.source else ""
        self.sites.append(Site(len(self.sites), kind, name, inst.where(), text))
        return len(self.sites) - 1

    def loop(self, function: RawFunction, header: RawBlock) -> None:
        merge = header.merge()
        assert merge is not None
        site = self.site("loop", function, merge)
        uniform = self.breaks and self.holds_barrier(function, header, _ref(merge.operands[0]))
        end = header.terminator  # OpBranch or OpBranchConditional: spirv-val allows no other after OpLoopMerge
        lead = _leading_phis(header.body)
        check, join = RawBlock(self.draft.fresh(), []), RawBlock(self.draft.fresh(), [])
        join.body = [i for i in header.body[lead:] if i is not merge]
        merge_block, cont = _ref(merge.operands[0]), _ref(merge.operands[1])
        extra: list[RawBlock] = []
        if cont == header.label:
            cont = self.draft.fresh()
            extra.append(RawBlock(cont, [op("OpBranch", Id(header.label))]))
            for block in [join, *_back_edge_blocks(function, join, header.label, merge_block)]:
                block.body[-1] = _retarget(block.body[-1], header.label, cont)
            rename_phi_parents(function, [header.label], header.label, cont)
        header.body = [*header.body[:lead], _with_operand(merge, 1, Id(cont)), op("OpBranch", Id(check.label))]
        if join.terminator.opcode == "OpBranchConditional":
            targets = {_ref(join.terminator.operands[1]), _ref(join.terminator.operands[2])}
            if not targets & {merge_block, cont}:
                raise InstrumentError(f"{end.where()}: a loop header's two-way branch neither breaks nor continues")
        rename_phi_parents(function, join.successors(), header.label, join.label)
        if uniform:
            over = own = self.g.uniform_test(check.body, self.counter(function), UNIFORM_BOUND)
        else:
            over, own = self.g.loop_test(check.body)
        leave = self.leave(function, check, over, site, own, join.label, merge_block if self.breaks else None)
        at = function.blocks.index(header) + 1
        function.blocks[at:at] = [check, leave, join]
        function.blocks.extend(extra)

    def holds_barrier(self, function: RawFunction, header: RawBlock, merge: int) -> bool:
        """Whether the loop's blocks execute a workgroup barrier, or call a function that does."""
        loop = _reached(function, header.label, {merge})
        return any(
            self.is_barrier(i) or (i.opcode == "OpFunctionCall" and _ref(i.operands[0]) in self.with_barriers)
            for b in function.blocks
            if b.label in loop
            for i in b.body
        )

    def is_barrier(self, inst: Instruction) -> bool:
        return inst.opcode == "OpControlBarrier" and self.values.get(_ref(inst.operands[0])) == WORKGROUP

    def counter(self, function: RawFunction) -> int:
        """The function's count of iterations of loops holding a barrier (a Function variable, from 0)."""
        if function.id not in self.counters:
            variable = self.draft.fresh()
            pointer = self.draft.pointer("Function", self.draft.uint())
            declared = op("OpVariable", "Function", Id(self.draft.constant(0)), result=variable, type_=pointer)
            function.blocks[0].body.insert(0, declared)
            self.counters[function.id] = variable
        return self.counters[function.id]

    def barriers(self, function: RawFunction, block: RawBlock) -> None:
        for n, inst in enumerate(block.body):
            if self.is_barrier(inst):
                site = self.site("barrier", function, inst)
                join = _split_after(function, block, n, self.draft.fresh())
                over = self.g.expired_test(block.body)
                leave = self.leave(function, block, over, site, None, join.label, None)
                at = function.blocks.index(block) + 1
                function.blocks[at:at] = [leave, join]
                self.barriers(function, join)
                return

    def leave(
        self, function: RawFunction, block: RawBlock, over: int, site: int, own: int | None, join: int, out: int | None
    ) -> RawBlock:
        """End `block` with `if (over) leave`; the block that records, then
        returns, or breaks to the loop's merge block `out`."""
        leave = RawBlock(self.draft.fresh(), [])
        block.body += [
            op("OpSelectionMerge", Id(join), "None"),
            op("OpBranchConditional", Id(over), Id(leave.label), Id(join)),
        ]
        self.g.record_leave(leave.body, site, own, once=out is not None)
        if out is None:
            leave.body += self.returns(function)
            self.exits.add(leave.label)
        else:
            leave.body.append(op("OpBranch", Id(out)))
            self.enter(function, function.block(out), leave.label)
        return leave

    def enter(self, function: RawFunction, merge: RawBlock, source: int) -> None:
        """`merge` gains the predecessor `source`: its OpPhis take an undefined
        value from it; an OpUnreachable there (a loop that never breaks) returns."""
        body = []
        for inst in merge.body:
            if inst.opcode == "OpPhi" and inst.result_type is not None:
                undefined = self.draft.declare("OpUndef", type_=inst.result_type)
                inst = _with_operands(inst, inst.operands + (Id(undefined), Id(source)))
            body.append(inst)
        if body[-1].opcode == "OpUnreachable":
            body[-1:] = self.returns(function)
        merge.body = body

    def returns(self, function: RawFunction) -> list[Instruction]:
        """The instruction that returns from `function` when it leaves."""
        result_type = function.head[0].result_type or 0
        if function.id == self.entry or result_type not in self.view.types or _is_void(self.view, result_type):
            return [op("OpReturn")]
        return [op("OpReturnValue", Id(self.draft.declare("OpConstantNull", type_=result_type)))]

    def after_calls(self, function: RawFunction, leaving: set[int]) -> None:
        """After each call of a function that may leave: return if it left."""
        continuing = _continue_blocks(function)
        for block in list(function.blocks):
            self._after_calls_in(function, block, leaving, block.label in continuing)

    def _after_calls_in(self, function: RawFunction, block: RawBlock, leaving: set[int], continuing: bool) -> None:
        for n, inst in enumerate(block.body):
            if inst.opcode == "OpFunctionCall" and _ref(inst.operands[0]) in leaving:
                if continuing:
                    raise InstrumentError(
                        f"{inst.where()}: a call that may time out inside a loop's continue construct"
                    )
                join = _split_after(function, block, n, self.draft.fresh())
                left = self.draft.fresh()
                back = RawBlock(self.draft.fresh(), self.returns(function))
                self.exits.add(back.label)
                block.body += [
                    op("OpLoad", Id(self.g.leaving), result=left, type_=self.draft.bool()),
                    op("OpSelectionMerge", Id(join.label), "None"),
                    op("OpBranchConditional", Id(left), Id(back.label), Id(join.label)),
                ]
                at = function.blocks.index(block) + 1
                function.blocks[at:at] = [back, join]
                self._after_calls_in(function, join, leaving, continuing)
                return

    # --- the entry point -----------------------------------------------------------

    def count_returns(self, entry: RawFunction) -> None:
        """Before each of the entry point's own returns: count the invocation
        done (leaving by breaking: unless it left)."""
        for block in entry.blocks:
            if block.terminator.opcode == "OpReturn" and block.label not in self.exits:
                block.body[-1:] = [*self.g.record_done(unless_left=self.breaks), block.terminator]

    def prologue(self, entry: RawFunction) -> None:
        """A new first block: the launch's mapping, then occupier or kernel."""
        first = entry.blocks[0]
        variables = [i for i in first.body if i.opcode == "OpVariable"]
        first.body = [i for i in first.body if i.opcode != "OpVariable"]
        start = RawBlock(self.draft.fresh(), variables)
        occupier = self.g.mapping(start.body, self.size, self.redirected)
        if not self.occupiers:
            start.body.append(op("OpBranch", Id(first.label)))
            entry.blocks[0:0] = [start]
            return
        occupy = self.g.occupier_blocks()
        start.body += [
            op("OpSelectionMerge", Id(first.label), "None"),
            op("OpBranchConditional", Id(occupier), Id(occupy[0].label), Id(first.label)),
        ]
        entry.blocks[0:0] = [start, *occupy]

    def push_buffers(self) -> None:
        """Every PushConstant variable a read-only StorageBuffer at (control set, 1 + its index)."""
        pushed = sorted(v.id for v in self.view.variables.values() if v.storage_class == "PushConstant")
        for n, inst in enumerate(self.draft.globals_):
            if (inst.opcode == "OpTypePointer" and inst.operands[0] == "PushConstant") or inst.result in pushed:
                self.draft.globals_[n] = _with_operand(inst, 0, "StorageBuffer")
        for index, variable in enumerate(pushed):
            self.draft.decorate(variable, "DescriptorSet", self.set)
            self.draft.decorate(variable, "Binding", 1 + index)
            self.draft.decorate(variable, "NonWritable")
        self.push_bindings = tuple(1 + index for index in range(len(pushed)))

    def redirect_builtins(self) -> None:
        """The kernel reads WorkgroupId, NumWorkgroups, GlobalInvocationId
        from Private copies that the prologue fills with the mapped values."""
        self.redirected: dict[str, tuple[int, int]] = {}
        for name in REDIRECTED:
            variable = self.draft.builtin(name)
            if variable is None or variable not in self.view.variables:
                continue
            pointee = self.view.variables[variable].pointee
            copy = self.draft.variable(pointee, "Private")
            self.draft.name(copy, f"progress_{name}")
            self.redirected[name] = (copy, pointee)
            for function in self.draft.functions:
                for block in function.blocks:
                    block.body = [self._redirect(i, variable, copy) for i in block.body]

    def _redirect(self, inst: Instruction, variable: int, copy: int) -> Instruction:
        if Id(variable) not in inst.operands:
            return inst
        operands = tuple(Id(copy) if o == Id(variable) else o for o in inst.operands)
        result_type = inst.result_type
        if inst.opcode in ("OpAccessChain", "OpInBoundsAccessChain") and result_type is not None:
            pointer = self.view.types.get(result_type)
            if isinstance(pointer, PointerType):
                result_type = self.draft.pointer("Private", pointer.pointee)
        return Instruction(inst.opcode, result_type, inst.result, operands, inst.word_offset, inst.source)

    def interface(self) -> None:
        """The entry point lists the Input variables it now reads (and, from
        SPIR-V 1.4 on, every global variable it uses)."""
        added = list(self.g.inputs.values())
        if self.draft.module.version >= (1, 4):
            added += [self.g.control, *self.g.privates, *(copy for copy, _ in self.redirected.values())]
        for n, inst in enumerate(self.draft.globals_):
            if inst.opcode == "OpEntryPoint" and inst.operands[1] == Id(self.entry):
                missing = [Id(v) for v in added if Id(v) not in inst.operands[3:]]
                self.draft.globals_[n] = _with_operands(inst, inst.operands + tuple(missing))


# --- helpers on blocks --------------------------------------------------------------


def _ref(operand: Operand) -> int:
    assert isinstance(operand, Id), operand
    return operand.value


def _is_void(view: ModuleView, type_id: int) -> bool:
    return isinstance(view.types.get(type_id), VoidType)


def _leading_phis(body: list[Instruction]) -> int:
    """How many instructions at the start of a block are OpPhis (and line markers among them)."""
    count = 0
    for n, inst in enumerate(body):
        if inst.opcode == "OpPhi":
            count = n + 1
        elif inst.opcode not in ("OpLine", "OpNoLine"):
            break
    return count


def _with_operand(inst: Instruction, index: int, value: Operand) -> Instruction:
    operands = list(inst.operands)
    operands[index] = value
    return _with_operands(inst, tuple(operands))


def _with_operands(inst: Instruction, operands: tuple[Operand, ...]) -> Instruction:
    return Instruction(inst.opcode, inst.result_type, inst.result, operands, inst.word_offset, inst.source)


def _retarget(terminator: Instruction, old: int, new: int) -> Instruction:
    """A branch to `old` made a branch to `new` (other instructions unchanged)."""
    if terminator.opcode not in ("OpBranch", "OpBranchConditional", "OpSwitch"):
        return terminator
    start = 1 if terminator.opcode != "OpBranch" else 0
    operands = tuple(Id(new) if n >= start and o == Id(old) else o for n, o in enumerate(terminator.operands))
    return _with_operands(terminator, operands)


def _split_after(function: RawFunction, block: RawBlock, index: int, label: int) -> RawBlock:
    """Move the instructions after `block.body[index]` into a new block
    `label` (returned, not yet placed); `block` is left without a terminator."""
    rest = RawBlock(label, block.body[index + 1 :])
    block.body = block.body[: index + 1]
    rename_phi_parents(function, rest.successors(), block.label, label)
    return rest


def _is_loop_header(block: RawBlock) -> bool:
    merge = block.merge()
    return merge is not None and merge.opcode == "OpLoopMerge"


def _back_edge_blocks(function: RawFunction, join: RawBlock, header: int, merge: int) -> list[RawBlock]:
    """The loop's blocks after `join` (reached without passing the header or
    the merge block) that branch back to the header."""
    seen: set[int] = set()
    todo = list(join.successors())
    while todo:
        label = todo.pop()
        if label not in (header, merge) and label not in seen:
            seen.add(label)
            todo += function.block(label).successors()
    return [b for b in function.blocks if b.label in seen and header in b.successors()]


def _calls(function: RawFunction) -> set[int]:
    return {_ref(i.operands[0]) for b in function.blocks for i in b.body if i.opcode == "OpFunctionCall"}


def _reached(function: RawFunction, start: int, stop: set[int]) -> set[int]:
    """Blocks reached from `start` without entering `stop`."""
    found: set[int] = set()
    todo = [start]
    while todo:
        label = todo.pop()
        if label in stop or label in found:
            continue
        found.add(label)
        todo += function.block(label).successors()
    return found


def _continue_blocks(function: RawFunction) -> set[int]:
    """The blocks of every loop's continue construct: reached from its
    continue target without passing the loop's header or merge block."""
    found: set[int] = set()
    for block in function.blocks:
        merge = block.merge()
        if merge is None or not _is_loop_header(block):
            continue
        stop = {block.label, _ref(merge.operands[0])}
        todo = [_ref(merge.operands[1])]
        while todo:
            label = todo.pop()
            if label in stop or label in found:
                continue
            found.add(label)
            todo += function.block(label).successors()
    return found
