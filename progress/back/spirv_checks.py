"""The code the deadline pass emits, and the control buffer it writes.

The control buffer (one StorageBuffer of 32-bit words, its own descriptor
set, binding 0): words 0-15 are the launch's (`EXPIRED` ... `OCCUPIER_TIMEOUTS`
below; the host writes `BUDGET`, `TICKS`, `OCCUPIERS`, `WORKGROUPS`,
`MAPPING` and zeroes the rest), then `RECORD_WORDS` per kernel workgroup:
invocations that returned (`DONE`), that left at a check (`LEFT`), and the
site of the first to leave plus 1 (`SITE`, with `EXPIRY_BIT` when it left
because the launch had expired). `Emitter` declares what the checks need in
a `Draft` (the buffer, Private variables, built-in inputs) and writes their
instructions: a loop's test, the expiry test, the records, the prologue
that maps workgroup ids, and the occupiers' loop. Atomics on the buffer are
relaxed, Device scope.
"""

from __future__ import annotations

from progress.back.spirv_edit import Draft, RawBlock, op
from progress.front.spirv.ir import Id, Instruction, Operand

CONTROL_WORDS = 16
RECORD_WORDS = 3
EXPIRED, BUDGET, TICKS, FIRST_SITE, OCCUPIERS, WORKGROUPS, MAPPING, ENDED, OCCUPIER_TIMEOUTS = range(9)
DONE, LEFT, SITE = range(RECORD_WORDS)
EXPIRY_BIT = 0x80000000
MAPPINGS = ("identity", "reverse", "interleave")
DEVICE, WORKGROUP, RELAXED = 1, 2, 0
REDIRECTED = ("WorkgroupId", "NumWorkgroups", "GlobalInvocationId")


class Emitter:
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

    def add(self, body: list[Instruction], pointer: Id, value: Id | None = None) -> None:
        """Atomically add `value` (a uint id; 1 when None)."""
        amount = value if value is not None else self.c(1)
        self.emit(body, "OpAtomicIAdd", self.uint, pointer, self.c(DEVICE), self.c(RELAXED), amount)

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

    def uniform_test(self, body: list[Instruction], counter: int, bound: int) -> int:
        """Count an iteration in the Function variable `counter`; past `bound` (a bool id)."""
        count = self.emit(body, "OpLoad", self.uint, Id(counter))
        more = self.emit(body, "OpIAdd", self.uint, Id(count), self.c(1))
        body.append(op("OpStore", Id(counter), Id(more)))
        return self.emit(body, "OpUGreaterThan", self.bool, Id(more), self.c(bound))

    def record_leave(self, body: list[Instruction], site: int, own: int | None, once: bool = False) -> None:
        """Record a leave at `site`; `once`: an invocation that left before is not counted again."""
        cause = self.c(EXPIRY_BIT)
        if own is not None:
            cause = Id(self.emit(body, "OpSelect", self.uint, Id(own), self.c(0), cause))
        value = Id(self.emit(body, "OpBitwiseOr", self.uint, cause, self.c(site + 1)))
        self.claim(body, self.record(body, SITE), value)
        count = self.unless_left(body) if once else None
        self.add(body, self.record(body, LEFT), count)
        body.append(op("OpAtomicStore", self.word(body, EXPIRED), self.c(DEVICE), self.c(RELAXED), self.c(1)))
        self.claim(body, self.word(body, FIRST_SITE), value)
        self.add(body, self.word(body, ENDED), count)
        body.append(op("OpStore", Id(self.leaving), Id(self.draft.true())))

    def record_done(self, unless_left: bool = False) -> list[Instruction]:
        body: list[Instruction] = []
        count = self.unless_left(body) if unless_left else None
        self.add(body, self.record(body, DONE), count)
        self.add(body, self.word(body, ENDED), count)
        return body

    def unless_left(self, body: list[Instruction]) -> Id:
        """1 if this invocation has not left at a check, else 0."""
        left = self.emit(body, "OpLoad", self.bool, Id(self.leaving))
        return Id(self.emit(body, "OpSelect", self.uint, Id(left), self.c(0), self.c(1)))

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
