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
- **The deadline.** `clock=False`: an iteration budget, every check adds 1 to
  the invocation's count of iterations and fails past `budget` (control
  word 1). `clock=True`: `OpReadClockKHR` (Device scope, SPV_KHR_shader_clock),
  the check fails once the low clock word has moved more than `ticks`
  (control word 2) since the invocation started. Either way a check also
  fails once any invocation of the launch has failed one (`expired`, word 0).
- **Records.** The control buffer (its own descriptor set, binding 0; the
  layout below) gets, per workgroup of the kernel, how many invocations
  returned and how many left, and the site (1 + index in `sites`) where the
  first of them left, with `EXPIRY_BIT` set when it left because the launch
  had expired rather than by its own deadline; the launch's first site too.
- **Launch shapes.** The entry point reads its workgroup id through a
  mapping chosen per launch (control words 4-6): the first `occupiers`
  workgroups of the dispatch do not run the kernel, they spin (with checks)
  until every invocation of the kernel's `workgroups` has ended; the others
  are the kernel's workgroups, their x ids in order, reversed or interleaved
  (even ids first). WorkgroupId, NumWorkgroups and GlobalInvocationId read
  by the kernel are the mapped ones.

When no check fails, the instrumented kernel computes what the original
does: the checks only read the control buffer and Private variables of
their own. Refusals (a loop header whose two-way branch neither breaks nor
continues, a call that may leave inside a continue construct) are
`InstrumentError`s naming the instruction.
"""

from __future__ import annotations

from dataclasses import dataclass

from progress.back.spirv_edit import Draft, RawBlock, RawFunction, op, rename_phi_parents
from progress.back.spirv_encode import encode
from progress.front.spirv.ir import Id, Instruction, Module, ModuleView, Operand, PointerType, VoidType

CONTROL_WORDS = 16
RECORD_WORDS = 3
EXPIRED, BUDGET, TICKS, FIRST_SITE, OCCUPIERS, WORKGROUPS, MAPPING, ENDED, OCCUPIER_TIMEOUTS = range(9)
DONE, LEFT, SITE = range(RECORD_WORDS)
EXPIRY_BIT = 0x80000000
MAPPINGS = ("identity", "reverse", "interleave")
DEVICE, WORKGROUP, RELAXED = 1, 2, 0
REDIRECTED = ("WorkgroupId", "NumWorkgroups", "GlobalInvocationId")


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


def instrument(module: Module, entry: str, clock: bool = False) -> Instrumented:
    """The instrumented kernel (see the module's contract)."""
    view = module.view
    point = view.entry_point(entry)
    if point is None:
        raise InstrumentError(f"no entry point {entry!r}")
    size = view.local_size(point) or (1, 1, 1)
    pass_ = _Pass(Draft(module), point.function, size, clock)
    pass_.run()
    finished = pass_.draft.finish()
    return Instrumented(finished, encode(finished), tuple(pass_.sites), pass_.set, clock, size)


class _Pass:
    """One run of the pass over a draft."""

    def __init__(self, draft: Draft, entry: int, size: tuple[int, int, int], clock: bool):
        self.draft, self.entry, self.size = draft, entry, size
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
        self.g = _Globals(draft, self.set, clock)

    def run(self) -> None:
        self.redirect_builtins()
        leaving = {f.id for f in self.draft.functions if self.checks(f)}
        grown = True
        while grown:
            callers = {f.id for f in self.draft.functions if _calls(f) & leaving}
            grown = not callers <= leaving
            leaving |= callers
        for function in self.draft.functions:
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
        for block in list(function.blocks):
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
        over, own = self.g.loop_test(check.body)
        leave = self.leave(function, check, over, site, own, join.label)
        at = function.blocks.index(header) + 1
        function.blocks[at:at] = [check, leave, join]
        function.blocks.extend(extra)

    def barriers(self, function: RawFunction, block: RawBlock) -> None:
        for n, inst in enumerate(block.body):
            if inst.opcode == "OpControlBarrier" and self.values.get(_ref(inst.operands[0])) == WORKGROUP:
                site = self.site("barrier", function, inst)
                join = _split_after(function, block, n, self.draft.fresh())
                over = self.g.expired_test(block.body)
                leave = self.leave(function, block, over, site, None, join.label)
                at = function.blocks.index(block) + 1
                function.blocks[at:at] = [leave, join]
                self.barriers(function, join)
                return

    def leave(
        self, function: RawFunction, block: RawBlock, over: int, site: int, own: int | None, join: int
    ) -> RawBlock:
        """End `block` with `if (over) leave`; the block that records and returns."""
        leave = RawBlock(self.draft.fresh(), [])
        block.body += [
            op("OpSelectionMerge", Id(join), "None"),
            op("OpBranchConditional", Id(over), Id(leave.label), Id(join)),
        ]
        self.g.record_leave(leave.body, site, own)
        leave.body += self.returns(function)
        self.exits.add(leave.label)
        return leave

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
        """Before each of the entry point's own returns: count the invocation done."""
        for block in entry.blocks:
            if block.terminator.opcode == "OpReturn" and block.label not in self.exits:
                block.body[-1:] = [*self.g.record_done(), block.terminator]

    def prologue(self, entry: RawFunction) -> None:
        """A new first block: the launch's mapping, then occupier or kernel."""
        first = entry.blocks[0]
        variables = [i for i in first.body if i.opcode == "OpVariable"]
        first.body = [i for i in first.body if i.opcode != "OpVariable"]
        start = RawBlock(self.draft.fresh(), variables)
        occupier = self.g.mapping(start.body, self.size, self.redirected)
        occupy = self.g.occupier_blocks()
        start.body += [
            op("OpSelectionMerge", Id(first.label), "None"),
            op("OpBranchConditional", Id(occupier), Id(occupy[0].label), Id(first.label)),
        ]
        entry.blocks[0:0] = [start, *occupy]

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


class _Globals:
    """The pass's own declarations, and the code that reads and writes them."""

    def __init__(self, draft: Draft, descriptor_set: int, clock: bool):
        self.draft, self.clock = draft, clock
        d = draft
        self.uint, self.bool, self.uvec3 = d.uint(), d.bool(), d.uvec3()
        if d.module.version < (1, 3):
            d.require(extension="SPV_KHR_storage_buffer_storage_class")
        words = d.declare("OpTypeRuntimeArray", Id(self.uint), reuse=False)
        d.decorate(words, "ArrayStride", 4)
        block = d.declare("OpTypeStruct", Id(words), reuse=False)
        d.decorate(block, "Block")
        d.decorate(block, "Offset", 0, member=0)
        self.control = d.variable(block, "StorageBuffer")
        d.decorate(self.control, "DescriptorSet", descriptor_set)
        d.decorate(self.control, "Binding", 0)
        d.name(self.control, "progress_deadline")
        self.word_pointer = d.pointer("StorageBuffer", self.uint)
        self.spent = self.private(self.uint, "progress_spent", d.constant(0))
        self.limit = self.private(self.uint, "progress_limit")
        self.flat = self.private(self.uint, "progress_workgroup")
        self.leaving = self.private(self.bool, "progress_leaving", d.false())
        self.start = self.private(self.uint, "progress_start") if clock else 0
        if clock:
            d.require(capability="ShaderClockKHR", extension="SPV_KHR_shader_clock")
        self.inputs = {name: self.input(name) for name in ("WorkgroupId", "NumWorkgroups", "LocalInvocationId")}

    @property
    def privates(self) -> list[int]:
        return [v for v in (self.spent, self.limit, self.flat, self.leaving, self.start) if v]

    def private(self, pointee: int, name: str, initializer: int | None = None) -> int:
        variable = self.draft.variable(pointee, "Private", initializer)
        self.draft.name(variable, name)
        return variable

    def input(self, name: str) -> int:
        found = self.draft.builtin(name)
        if found is not None:
            return found
        variable = self.draft.variable(self.uvec3, "Input")
        self.draft.decorate(variable, "BuiltIn", name)
        return variable

    # --- emitting ----------------------------------------------------------------

    def emit(self, body: list[Instruction], opcode: str, type_: int | None, *operands: Operand) -> int:
        result = self.draft.fresh()
        body.append(op(opcode, *operands, result=result, type_=type_))
        return result

    def c(self, value: int) -> Id:
        return Id(self.draft.constant(value))

    def word(self, body: list[Instruction], index: int | Id) -> Id:
        """A pointer to control word `index` (a number or a uint id)."""
        at = index if isinstance(index, Id) else self.c(index)
        return Id(self.emit(body, "OpAccessChain", self.word_pointer, Id(self.control), self.c(0), at))

    def record(self, body: list[Instruction], field: int) -> Id:
        """A pointer to `field` of this invocation's workgroup record."""
        flat = self.emit(body, "OpLoad", self.uint, Id(self.flat))
        scaled = self.emit(body, "OpIMul", self.uint, Id(flat), self.c(RECORD_WORDS))
        return self.word(body, Id(self.emit(body, "OpIAdd", self.uint, Id(scaled), self.c(CONTROL_WORDS + field))))

    def load(self, body: list[Instruction], pointer: Id) -> Id:
        return Id(self.emit(body, "OpAtomicLoad", self.uint, pointer, self.c(DEVICE), self.c(RELAXED)))

    def add(self, body: list[Instruction], pointer: Id, value: int = 1) -> None:
        self.emit(body, "OpAtomicIAdd", self.uint, pointer, self.c(DEVICE), self.c(RELAXED), self.c(value))

    def claim(self, body: list[Instruction], pointer: Id, value: Id) -> None:
        """Store `value` where 0 is (the first writer wins)."""
        relaxed = self.c(RELAXED)
        self.emit(
            body, "OpAtomicCompareExchange", self.uint, pointer, self.c(DEVICE), relaxed, relaxed, value, self.c(0)
        )

    # --- checks ------------------------------------------------------------------

    def expired_test(self, body: list[Instruction]) -> int:
        flag = self.load(body, self.word(body, EXPIRED))
        return self.emit(body, "OpINotEqual", self.bool, flag, self.c(0))

    def loop_test(self, body: list[Instruction]) -> tuple[int, int]:
        """(past the deadline or expired, past its own deadline) as bool ids."""
        if self.clock:
            now = self.emit(
                body, "OpReadClockKHR", self.draft.declare("OpTypeVector", Id(self.uint), 2), self.c(DEVICE)
            )
            low = self.emit(body, "OpCompositeExtract", self.uint, Id(now), 0)
            began = self.emit(body, "OpLoad", self.uint, Id(self.start))
            used = self.emit(body, "OpISub", self.uint, Id(low), Id(began))
        else:
            spent = self.emit(body, "OpLoad", self.uint, Id(self.spent))
            used = self.emit(body, "OpIAdd", self.uint, Id(spent), self.c(1))
            body.append(op("OpStore", Id(self.spent), Id(used)))
        limit = self.emit(body, "OpLoad", self.uint, Id(self.limit))
        own = self.emit(body, "OpUGreaterThan", self.bool, Id(used), Id(limit))
        expired = self.expired_test(body)
        return self.emit(body, "OpLogicalOr", self.bool, Id(own), Id(expired)), own

    def record_leave(self, body: list[Instruction], site: int, own: int | None) -> None:
        cause = self.c(EXPIRY_BIT)
        if own is not None:
            cause = Id(self.emit(body, "OpSelect", self.uint, Id(own), self.c(0), cause))
        value = Id(self.emit(body, "OpBitwiseOr", self.uint, cause, self.c(site + 1)))
        self.claim(body, self.record(body, SITE), value)
        self.add(body, self.record(body, LEFT))
        body.append(op("OpAtomicStore", self.word(body, EXPIRED), self.c(DEVICE), self.c(RELAXED), self.c(1)))
        self.claim(body, self.word(body, FIRST_SITE), value)
        self.add(body, self.word(body, ENDED))
        body.append(op("OpStore", Id(self.leaving), Id(self.draft.true())))

    def record_done(self) -> list[Instruction]:
        body: list[Instruction] = []
        self.add(body, self.record(body, DONE))
        self.add(body, self.word(body, ENDED))
        return body

    # --- the prologue --------------------------------------------------------------

    def builtin(self, body: list[Instruction], name: str) -> Id:
        """The built-in's value as a uvec3."""
        variable = self.inputs[name]
        known = self.draft.module.view.variables.get(variable)
        pointee = known.pointee if known else self.uvec3
        value = self.emit(body, "OpLoad", pointee, Id(variable))
        return Id(value if pointee == self.uvec3 else self.emit(body, "OpBitcast", self.uvec3, Id(value)))

    def mapping(
        self, body: list[Instruction], size: tuple[int, int, int], redirected: dict[str, tuple[int, int]]
    ) -> int:
        """Read the launch's settings; map this workgroup; fill the Private
        copies of the built-ins. The id of "this workgroup is an occupier"."""
        e = lambda opcode, type_, *ops: Id(self.emit(body, opcode, type_, *ops))  # noqa: E731
        u = self.uint
        body.append(op("OpStore", Id(self.limit), self.load(body, self.word(body, TICKS if self.clock else BUDGET))))
        if self.clock:
            now = e("OpReadClockKHR", self.draft.declare("OpTypeVector", Id(u), 2), self.c(DEVICE))
            body.append(op("OpStore", Id(self.start), e("OpCompositeExtract", u, now, 0)))
        occupiers = self.load(body, self.word(body, OCCUPIERS))
        self.workgroups = workgroups = self.load(body, self.word(body, WORKGROUPS))
        mode = self.load(body, self.word(body, MAPPING))
        hw, nw, local = (self.builtin(body, n) for n in ("WorkgroupId", "NumWorkgroups", "LocalInvocationId"))
        hx, hy, hz = (e("OpCompositeExtract", u, hw, n) for n in range(3))
        ny, nz = (e("OpCompositeExtract", u, nw, n) for n in (1, 2))
        occupier = e("OpULessThan", self.bool, hx, occupiers)
        k = e("OpISub", u, hx, occupiers)
        reverse = e("OpISub", u, e("OpISub", u, workgroups, self.c(1)), k)
        half = e("OpUDiv", u, e("OpIAdd", u, workgroups, self.c(1)), self.c(2))
        odd = e("OpIAdd", u, e("OpIMul", u, e("OpISub", u, k, half), self.c(2)), self.c(1))
        interleave = e("OpSelect", u, e("OpULessThan", self.bool, k, half), e("OpIMul", u, k, self.c(2)), odd)
        mapped = e("OpSelect", u, e("OpIEqual", self.bool, mode, self.c(1)), reverse, k)
        mapped = e("OpSelect", u, e("OpIEqual", self.bool, mode, self.c(2)), interleave, mapped)
        group = e("OpCompositeConstruct", self.uvec3, mapped, hy, hz)
        count = e("OpCompositeConstruct", self.uvec3, workgroups, ny, nz)
        sizes = Id(self.draft.declare("OpConstantComposite", *(self.c(n) for n in size), type_=self.uvec3))
        global_id = e("OpIAdd", self.uvec3, e("OpIMul", self.uvec3, group, sizes), local)
        flat = e("OpIAdd", u, mapped, e("OpIMul", u, workgroups, e("OpIAdd", u, hy, e("OpIMul", u, ny, hz))))
        body.append(op("OpStore", Id(self.flat), flat))
        values = {"WorkgroupId": group, "NumWorkgroups": count, "GlobalInvocationId": global_id}
        for name, (copy, pointee) in redirected.items():
            value = values[name] if pointee == self.uvec3 else e("OpBitcast", pointee, values[name])
            body.append(op("OpStore", Id(copy), value))
        self.invocations = e("OpIMul", u, workgroups, self.c(size[0] * size[1] * size[2]))
        return occupier.value

    def occupier_blocks(self) -> list[RawBlock]:
        """An occupier: spin, with checks, until every kernel invocation ended."""
        fresh = self.draft.fresh
        start, header, body, test, timeout, join, cont, merge = (RawBlock(fresh(), []) for _ in range(8))
        start.body = [op("OpBranch", Id(header.label))]
        header.body = [op("OpLoopMerge", Id(merge.label), Id(cont.label), "None"), op("OpBranch", Id(body.label))]
        ended = self.load(body.body, self.word(body.body, ENDED))
        done = self.emit(body.body, "OpUGreaterThanEqual", self.bool, ended, self.invocations)
        body.body.append(op("OpBranchConditional", Id(done), Id(merge.label), Id(test.label)))
        over, _ = self.loop_test(test.body)
        test.body += [
            op("OpSelectionMerge", Id(join.label), "None"),
            op("OpBranchConditional", Id(over), Id(timeout.label), Id(join.label)),
        ]
        self.add(timeout.body, self.word(timeout.body, OCCUPIER_TIMEOUTS))
        timeout.body += [
            op("OpAtomicStore", self.word(timeout.body, EXPIRED), self.c(DEVICE), self.c(RELAXED), self.c(1)),
            op("OpReturn"),
        ]
        join.body = [op("OpBranch", Id(cont.label))]
        cont.body = [op("OpBranch", Id(header.label))]
        merge.body = [op("OpReturn")]
        return [start, header, body, test, timeout, join, cont, merge]


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
