"""A SPIR-V kernel launch as the checker core's `System` (docs/semantics.md section 8).

A state is one flat tuple: the shared memory cells, then one number per
invocation naming its frozen local state (`execute.py`), interned here. Units are invocations, numbered
workgroup by workgroup; `groups[u]` is u's workgroup. A step of a poised
invocation performs its visible action and the local computation up to its
next one; a barrier arrival makes it wait, and when every invocation of its
workgroup waits at that same barrier they are all released within the same
step. Step results are memoized per (invocation, local state, cells read).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from progress.core.system import LOCAL_LOOP, StepNote
from progress.errors import InputError
from progress.front.header import MAX_LOCAL_SIZE, MAX_WORKGROUPS
from progress.front.spirv.code import successors
from progress.front.spirv.execute import COLLECTIVE, LOOPING, POISED, RETURNED, WAITING, Access, Interpreter
from progress.front.spirv.ir import Id, Instruction, Module
from progress.front.spirv.layout import Types, runtime_lengths, shared_layout
from progress.front.spirv.phases import PhaseWrites

MAX_PER_WORKGROUP = MAX_LOCAL_SIZE
"""Invocations in one workgroup at most (x * y * z; Vulkan guarantees 1024 along x). Past these limits a
launch is refused; within them its check is bounded by states and memory (`progress check`'s defaults),
not by a count of invocations."""

READS = frozenset({"OpLoad", "OpAtomicLoad"})
"""The accesses that never write (every other atomic may)."""

State = Any  # a tuple[int, ...]; Any so that it meets the System protocol, whose states are any Hashable
"""The shared cells, then one number per invocation: its frozen local state, interned."""


@dataclass(frozen=True)
class Launch:
    """How a kernel is dispatched: `workgroups` along x, runtime array
    lengths by name, `--init` cells and `--push` constants as (name, index
    or None, value)."""

    workgroups: int
    buffers: Mapping[str, int]
    init: tuple[tuple[str, int | None, int], ...] = ()
    entry: str | None = None
    push: tuple[tuple[str, int | None, int | str], ...] = ()
    subgroup_size: int | None = None


class KernelSystem:
    """One kernel under one launch, explorable by `progress.core.lts.explore_system`."""

    def __init__(self, module: Module, launch: Launch, name: str, path: str, digest: str):
        view = module.view
        computes = [e for e in view.entry_points if e.model == "GLCompute"]
        entry = next((e for e in computes if launch.entry in (None, e.name)), None)
        if entry is None:
            names = ", ".join(repr(e.name) for e in computes) or "none"
            wanted = "no GLCompute entry point" if launch.entry is None else f"no compute entry point {launch.entry!r}"
            raise InputError(f"{path}: {wanted} (compute entry points: {names})")
        size = view.local_size(entry)
        if size is None:
            raise InputError(f"{path}: the entry point {entry.name!r} has no LocalSize")
        per_group = size[0] * size[1] * size[2]
        _check_launch(launch.workgroups, per_group, path)
        types = Types(view, runtime_lengths(view, launch.buffers, path, launch.push))
        self.layout = shared_layout(view, types, launch.workgroups, launch.init, path, launch.push, launch.buffers)
        self.per_group = per_group
        self.subgroup_size = min(launch.subgroup_size or per_group, per_group)
        """Invocations per subgroup (docs/semantics.md section 10); the whole workgroup unless given."""
        self.interpreter = Interpreter(
            view, entry.function, types, self.layout, (launch.workgroups, *size), self.subgroup_size
        )
        self.name, self.digest = name, digest
        self.groups = tuple(u // per_group for u in range(launch.workgroups * per_group))
        per_subgroup = -(-per_group // self.subgroup_size)
        self.subgroups = tuple(
            (u // per_group) * per_subgroup + (u % per_group) // self.subgroup_size for u in range(len(self.groups))
        )
        """Each unit's subgroup, numbered across the dispatch."""
        self._lanes: dict[int, list[int]] = {}
        for unit, sg in enumerate(self.subgroups):
            self._lanes.setdefault(sg, []).append(unit)
        self._collective: dict[tuple[int, ...], tuple[int, ...]] = {}
        self.collective = _has_collective(self.interpreter)
        """Whether the kernel has subgroup operations (collective steps): the
        reductions (progress.core.reduce, unit symmetry) and the compiled
        explorer leave such a kernel alone."""
        self._cell_names = {at: cell for cell, at in self.layout.names}
        self._cells = len(self.layout.initial)
        self._ids: dict[Any, int] = {}  # frozen local state -> its number
        self._locals: list[Any] = []  # number -> frozen local state
        self._status: list[int] = []
        self._access: dict[tuple[int, int], Access] = {}
        self._after: dict[tuple[int, int, tuple[int, ...]], tuple[tuple[tuple[int, int], ...], int]] = {}
        self._released: dict[tuple[int, int], int] = {}
        self._id_free: list[bool] = []  # per local state number, filled on demand
        self._phase_writes: list[int] = []  # likewise
        self._barriers: dict[tuple[Any, ...], int] = {}

    # --- the System protocol ------------------------------------------------

    @cached_property
    def initial(self) -> State:
        """Every invocation at its first visible action (computed on first use,
        inside the check, so that a local computation without end is inconclusive there)."""
        starts = tuple(self._intern(self.interpreter.start(u)) for u in range(len(self.groups)))
        return self.layout.initial + starts

    def successors(self, state: State) -> list[tuple[int, State]]:
        n = self._cells
        status = self._status
        found = []
        for unit, local in enumerate(state[n:]):
            kind = status[local]
            if kind == LOOPING:
                found.append((unit, state))
            elif kind == POISED:
                writes, new_local = self._step(unit, local, state)
                at = n + unit
                new = state[:at] + (new_local,) + state[at + 1 :]
                if status[new_local] == WAITING:
                    new = self._release(unit, new)
                found.append((unit, _written(new, writes)))
        return found

    def finished(self, state: State) -> bool:
        return all(self._status[local] == RETURNED for local in state[self._cells :])

    def cells(self, state: State) -> tuple[tuple[str, int], ...]:
        return tuple((name, state[at]) for name, at in self.layout.names)

    def positions(self, state: State) -> tuple[int, ...]:
        """The word offset of each invocation's next instruction (-1 once returned)."""
        return tuple(
            -1 if self._status[local] == RETURNED else self._instruction(local).word_offset
            for local in state[self._cells :]
        )

    def note(self, state: State, unit: int) -> StepNote:
        local = state[self._cells + unit]
        inst = self._instruction(local)
        text = inst.source.text if inst.source else ""
        if self._status[local] == LOOPING:
            return StepNote(inst.where(), text, LOCAL_LOOP)
        access = self._access_of(unit, local)
        if access.barrier:
            return StepNote(inst.where(), text, "barrier()")
        if access.collective:
            n = self._cells
            lanes = [u for u in self._lanes[self.subgroups[unit]] if self._status[state[n + u]] != RETURNED]
            waiting = [u for u in lanes if u != unit and self._status[state[n + u]] == WAITING]
            name = inst.opcode[2:].replace("GroupNonUniform", "subgroup ")
            if len(waiting) == len(lanes) - 1:
                shown = ", ".join(str(u % self.per_group) for u in lanes)
                return StepNote(inst.where(), text, f"{name}: arrives last, performed for invocations {shown}")
            return StepNote(inst.where(), text, f"{name}: arrives")
        cells = ", ".join(self._cell_names.get(c, f"cell {c}") for c in access.cells)
        return StepNote(inst.where(), text, f"{inst.opcode[2:]} {cells}")

    def held(self, state: State, unit: int) -> tuple[int, ...]:
        """The live integer values and variable cells of every frame, then the
        Private variables (pointers are positions, not values: left out)."""
        _, frames, private = self._locals[state[self._cells + unit]]
        found: list[int] = []
        for frame in frames:
            for _, value in frame[4]:
                found += _integers(value)
            for _, cells in frame[5]:
                found += cells
        for _, cells in private:
            found += cells
        return tuple(found)

    def waits(self, state: State) -> tuple[tuple[int, StepNote], ...]:
        locals_ = state[self._cells :]
        return tuple((u, self.note(state, u)) for u, local in enumerate(locals_) if self._status[local] != RETURNED)

    def unit_name(self, unit: int) -> str:
        group, index = divmod(unit, self.per_group)
        return f"workgroup {group} invocation {index}"

    # --- the step tables of the compiled explorer (progress/core/kernel_jit.py) ---

    @property
    def n_cells(self) -> int:
        return self._cells

    def local_count(self) -> int:
        return len(self._locals)

    def local_status(self, local: int) -> int:
        return self._status[local]

    def barrier_of(self, local: int) -> int:
        """A number per barrier instruction (function, block, position) a WAITING local waits at."""
        where = _position(self._locals[local])
        return self._barriers.setdefault(where, len(self._barriers))

    def access_cells(self, unit: int, local: int) -> tuple[tuple[int, ...], bool]:
        access = self._access_of(unit, local)
        return tuple(access.cells), access.barrier

    def step_result(self, unit: int, local: int, values: tuple[int, ...]) -> tuple[tuple[tuple[int, int], ...], int]:
        access = self._access_of(unit, local)
        state = [0] * self._cells
        for cell, value in zip(access.cells, values):
            state[cell] = value
        return self._step(unit, local, tuple(state))

    def access_writes(self, unit: int, local: int) -> bool:
        """Whether `unit`'s access from `local` may write (what `footprint` says)."""
        access = self._access_of(unit, local)
        return not access.barrier and access.instruction.opcode not in READS

    def released(self, unit: int, local: int) -> int:
        return self._released_local(unit, local)

    # --- what progress.core.reduce reads (the Footprinted protocol) ----------

    def footprint(self, state: State, unit: int) -> tuple[tuple[int, ...], bool] | None:
        local = state[self._cells + unit]
        if self._status[local] != POISED:
            return None
        access = self._access_of(unit, local)
        if access.barrier or access.collective:
            return None
        return access.cells, access.instruction.opcode not in READS

    def arriving(self, state: State, unit: int) -> bool:
        """Whether `unit`'s next step is its arrival at a workgroup barrier
        (docs/semantics.md section 13 folds some of them)."""
        local = state[self._cells + unit]
        if self._status[local] != POISED:
            return False
        access = self._access_of(unit, local)
        return access.barrier and not access.collective

    def step(self, state: State, unit: int) -> State:
        local = state[self._cells + unit]
        if self._status[local] == LOOPING:
            return state
        writes, new_local = self._step(unit, local, state)
        at = self._cells + unit
        new = state[:at] + (new_local,) + state[at + 1 :]
        if self._status[new_local] == WAITING:
            new = self._release(unit, new)
        return _written(new, writes)

    def active(self, state: State, unit: int) -> bool:
        return self._status[state[self._cells + unit]] in (POISED, LOOPING)

    def fresh(self, state: State, unit: int) -> bool:
        """A unit's local state changes only by its own steps (a release
        follows its arrival), so one that differs from its first has stepped."""
        at = self._cells + unit
        return state[at] == self.initial[at]

    def interchangeable(self) -> tuple[tuple[int, ...], ...]:
        """Blocks of units (each workgroup's invocations) within which
        permuting the units whose local state cannot read an invocation id
        again (`id_free`) maps runs to runs (docs/semantics.md section 12);
        none for a kernel with subgroup operations (lanes are told apart)."""
        if self.per_group < 2 or self.collective:
            return ()
        units = range(len(self.groups))
        return tuple(tuple(units[g * self.per_group : (g + 1) * self.per_group]) for g in range(max(self.groups) + 1))

    def id_free(self, local: int) -> bool:
        """Whether no instruction that names an invocation id built-in is
        reachable from local state `local` (in any frame of its stack, calls
        included): its behaviour does not depend on which invocation holds it."""
        free = self._id_free
        while len(free) <= local:
            state = self._locals[len(free)]
            reads = self._reads.reachable
            free.append(state[0] == RETURNED or not any(reads(f[0], f[1], f[2]) for f in state[1]))
        return free[local]

    def workgroup_cells(self) -> tuple[int, int] | None:
        """(first Workgroup cell, Workgroup cells per workgroup) when no
        instruction names a workgroup id built-in (WorkgroupId,
        GlobalInvocationId) and the kernel has no subgroup steps
        (docs/semantics.md section 14's condition on the code: pointers into
        Workgroup memory are relative to the workgroup's copy, so local
        states never name their workgroup); else None."""
        if self.collective or len(set(self.groups)) < 2:
            return None
        view = self.interpreter.view
        named = {
            v.id for v in view.variables.values() if v.storage_class == "Input" and view.builtin(v.id) in GROUP_IDS
        }
        for code in self.interpreter.codes.values():
            for block in code.blocks:
                for inst in block.instructions:
                    if any(isinstance(o, Id) and o.value in named for o in inst.operands):
                        return None
        return self.layout.groups_at, self.layout.group_size

    def phase_bit(self, cell: int) -> int:
        """The bit of the Workgroup variable that holds `cell` in `phase_writes`'s
        masks, 0 for a cell that is not Workgroup memory (docs/semantics.md section 15)."""
        bits = self._cell_bits
        return bits[cell] if cell < len(bits) else 0

    def phase_writes(self, local: int) -> int:
        """The Workgroup variables (a mask of `phase_bit`s) that a unit in local
        state `local` may write before it next arrives at a Workgroup barrier
        (docs/semantics.md section 15; `phases.PhaseWrites`): 0 for one that waits or has returned."""
        found = self._phase_writes
        while len(found) <= local:
            state = self._locals[len(found)]
            found.append(self._phases.pending(state[1]) if state[0] in (POISED, LOOPING) else 0)
        return found[local]

    @cached_property
    def _cell_bits(self) -> list[int]:
        layout, phases = self.layout, self._phases
        bits = [0] * self._cells
        size = layout.group_size
        for var, base in layout.group_base.items():
            width = (sorted([b for b in layout.group_base.values() if b > base]) or [size])[0] - base
            for w in range((self._cells - layout.groups_at) // max(1, size)):
                for at in range(width):
                    bits[layout.groups_at + w * size + base + at] = phases.bit(var)
        return bits

    @cached_property
    def _phases(self) -> PhaseWrites:
        interpreter = self.interpreter
        return PhaseWrites(interpreter.view, interpreter.codes, interpreter.constants)

    @cached_property
    def _reads(self) -> _IdReads:
        return _IdReads(self.interpreter, PER_INVOCATION)

    def canonical(self, state: State, blocks: tuple[tuple[int, ...], ...]) -> State:
        """The representative of `state`'s orbit: in each block, the units
        that may read their id keep their local states, and the others' local
        states are sorted into the remaining places (blocks are contiguous)."""
        n = self._cells
        new = list(state)
        free = self.id_free
        for block in blocks:
            places = [n + u for u in block if free(state[n + u])]
            for at, local in zip(places, sorted(state[at] for at in places)):
                new[at] = local
        return tuple(new)

    def permuted(self, state: State, sigma: tuple[int, ...]) -> State:
        """`state` with unit u's local state given to unit sigma[u]."""
        n = self._cells
        new = list(state)
        for unit, image in enumerate(sigma):
            new[n + image] = state[n + unit]
        return tuple(new)

    def local(self, state: State, unit: int) -> int:
        """The number of `unit`'s local state in `state` (equal numbers: equal local states)."""
        return state[self._cells + unit]

    # --- stepping -----------------------------------------------------------

    def _intern(self, local: Any) -> int:
        """The number of a frozen local state: states hold numbers, so they hash fast and share memory."""
        number = self._ids.get(local)
        if number is None:
            number = self._ids[local] = len(self._locals)
            self._locals.append(local)
            self._status.append(local[0])
        return number

    def _access_of(self, unit: int, local: int) -> Access:
        key = (unit, local)
        access = self._access.get(key)
        if access is None:
            access = self.interpreter.access(self.interpreter.thaw(self._locals[local]), unit)
            assert access is not None, "a poised invocation is at a visible action"
            self._access[key] = access
        return access

    def _step(self, unit: int, local: int, state: State) -> tuple[tuple[tuple[int, int], ...], int]:
        access = self._access_of(unit, local)
        old = tuple([state[c] for c in access.cells])
        key = (unit, local, old)
        result = self._after.get(key)
        if result is None:
            frozen = self._locals[local]
            if access.barrier or access.collective:
                result = ((), self._intern((WAITING,) + frozen[1:]))
            else:
                run = self.interpreter.thaw(frozen)
                writes = self.interpreter.perform(run, unit, old)
                result = (writes, self._intern(self.interpreter.settle(run, unit)))
            self._after[key] = result
        return result

    def _fire(self, unit: int, state: State) -> State:
        """`unit` has just arrived at a subgroup instruction: when every member
        of its subgroup that has not returned waits at it, perform it for all
        of them (`Interpreter.collective`) within this step; members all
        waiting at different instructions (one a subgroup one) are non-uniform
        control flow, an error of the kernel with both source lines."""
        n, status = self._cells, self._status
        members = [u for u in self._lanes[self.subgroups[unit]] if status[state[n + u]] != RETURNED]
        locals_ = [state[n + u] for u in members]
        if any(status[local] != WAITING for local in locals_):
            return state
        if len({_position(self._locals[local]) for local in locals_}) != 1:
            raise self._non_uniform(members, locals_)
        key = tuple(members) + tuple(locals_)
        after = self._collective.get(key)
        if after is None:
            runs = [self.interpreter.thaw(self._locals[local]) for local in locals_]
            self.interpreter.collective(runs, members)
            after = self._collective[key] = tuple(
                self._intern(self.interpreter.settle(run, u)) for run, u in zip(runs, members)
            )
        new = list(state)
        for u, local in zip(members, after):
            new[n + u] = local
        return tuple(new)

    def _uniform_at_barrier(self, unit: int, state: State) -> None:
        """A workgroup barrier arrival while every other member of the subgroup
        that has not returned waits, one of them at a subgroup instruction: an error."""
        n, status = self._cells, self._status
        members = [u for u in self._lanes[self.subgroups[unit]] if status[state[n + u]] != RETURNED]
        locals_ = [state[n + u] for u in members]
        if all(status[local] == WAITING for local in locals_) and any(
            self._access_of(u, local).collective for u, local in zip(members, locals_)
        ):
            raise self._non_uniform(members, locals_)

    def _non_uniform(self, members: list[int], locals_: list[int]) -> InputError:
        first = self._instruction(locals_[0])
        other_at = next(
            i
            for i, local in enumerate(locals_)
            if _position(self._locals[local]) != _position(self._locals[locals_[0]])
        )
        other = self._instruction(locals_[other_at])

        def shown(unit: int, inst: Instruction) -> str:
            text = f" `{inst.source.text.strip()}`" if inst.source and inst.source.text else ""
            return f"{self.unit_name(unit)} is at {inst.where()}{text} ({inst.opcode})"

        return InputError(
            f"{self.name}: non-uniform control flow in a subgroup: {shown(members[0], first)}; "
            f"{shown(members[other_at], other)}; a subgroup operation needs every invocation of its subgroup "
            "that has not returned at the same instruction (maximal reconvergence is not modelled: "
            "docs/semantics.md section 10)"
        )

    def _release(self, unit: int, state: State) -> State:
        """Release `unit`'s workgroup when all of it waits at one barrier (its
        subgroup, when it waits at a subgroup instruction: `_fire`)."""
        if self._access_of(unit, state[self._cells + unit]).collective:
            return self._fire(unit, state)
        if self.collective:  # without subgroup steps no such error can arise
            self._uniform_at_barrier(unit, state)
        first = self._cells + self.groups[unit] * self.per_group
        members = state[first : first + self.per_group]
        status = self._status
        if any(status[m] != WAITING for m in members):  # the common case, decided before positions
            return state
        where = {_position(self._locals[m]) if self._status[m] == WAITING else None for m in members}
        if len(where) != 1 or None in where:
            return state
        base = first - self._cells
        released = tuple(self._released_local(base + i, local) for i, local in enumerate(members))
        return state[:first] + released + state[first + self.per_group :]

    def _released_local(self, unit: int, local: int) -> int:
        key = (unit, local)
        after = self._released.get(key)
        if after is None:
            run = self.interpreter.thaw(self._locals[local])
            run.top.at += 1
            after = self._released[key] = self._intern(self.interpreter.settle(run, unit))
        return after

    def _instruction(self, local: int) -> Instruction:
        fid, block, at = self._locals[local][1][-1][:3]
        return self.interpreter.codes[fid].blocks[block].instructions[at]


PER_INVOCATION = frozenset(
    {"LocalInvocationId", "LocalInvocationIndex", "GlobalInvocationId", "SubgroupLocalInvocationId", "SubgroupId"}
)
"""The built-ins whose value differs between invocations of one workgroup."""


GROUP_IDS = frozenset({"WorkgroupId", "GlobalInvocationId"})
"""The built-ins whose value differs between workgroups (section 14)."""


def _has_collective(interpreter: Interpreter) -> bool:
    """Whether some function holds a subgroup operation or a subgroup barrier."""
    for code in interpreter.codes.values():
        for block in code.blocks:
            for inst in block.instructions:
                if inst.opcode in COLLECTIVE or (
                    inst.opcode == "OpControlBarrier" and interpreter.constants.get(_first_id(inst)) == 3
                ):
                    return True
    return False


def _first_id(inst: Instruction) -> int:
    operand = inst.operands[0] if inst.operands else None
    return operand.value if isinstance(operand, Id) else -1


class _IdReads:
    """Where an instruction naming one of `names` (an Input variable's
    built-in) can still be reached, per function: `reachable(f, b, i)` from
    instruction i of block b of function f, calls included."""

    def __init__(self, interpreter: Interpreter, names: frozenset[str]):
        view = interpreter.view
        wanted = {v.id for v in view.variables.values() if v.storage_class == "Input" and view.builtin(v.id) in names}
        codes = interpreter.codes
        direct = {
            fid: [
                [any(isinstance(o, Id) and o.value in wanted for o in inst.operands) for inst in b.instructions]
                for b in code.blocks
            ]
            for fid, code in codes.items()
        }
        calls = {
            fid: [
                [_id_of(inst.operands[0]) if inst.opcode == "OpFunctionCall" else None for inst in b.instructions]
                for b in code.blocks
            ]
            for fid, code in codes.items()
        }
        reads = {fid: any(map(any, rows)) for fid, rows in direct.items()}
        changed = True
        while changed:  # a function reads if it calls one that does
            changed = False
            for fid, rows in calls.items():
                if not reads[fid] and any(c is not None and reads.get(c, False) for row in rows for c in row):
                    reads[fid] = changed = True
        self._at = {
            fid: [
                [d or (c is not None and reads.get(c, False)) for d, c in zip(drow, crow)]
                for drow, crow in zip(direct[fid], calls[fid])
            ]
            for fid in codes
        }
        self._from_block = {}
        for fid, code in codes.items():
            succ = [[code.index[label] for label in successors(b) if label in code.index] for b in code.blocks]
            reach = [any(row) for row in self._at[fid]]
            changed = True
            while changed:
                changed = False
                for b, nexts in enumerate(succ):
                    if not reach[b] and any(reach[s] for s in nexts):
                        reach[b] = changed = True
            self._from_block[fid] = (reach, succ)

    def reachable(self, fid: int, block: int, at: int) -> bool:
        reach, succ = self._from_block[fid]
        return any(self._at[fid][block][at:]) or any(reach[s] for s in succ[block])


def _id_of(operand: object) -> int | None:
    return operand.value if isinstance(operand, Id) else None


def _check_launch(workgroups: int, per_group: int, path: str) -> None:
    if workgroups < 1:
        raise InputError(f"{path}: --workgroups {workgroups}: a launch needs at least 1 workgroup")
    if per_group < 1:
        raise InputError(f"{path}: the workgroup size is {per_group}: LocalSize must be at least 1 in every dimension")
    if workgroups > MAX_WORKGROUPS:
        raise InputError(f"{path}: --workgroups {workgroups}: at most {MAX_WORKGROUPS} workgroups can be checked")
    if per_group > MAX_PER_WORKGROUP:
        raise InputError(
            f"{path}: the workgroup size is {per_group} invocations; at most {MAX_PER_WORKGROUP} per workgroup "
            "can be checked (--local-size sets a smaller workgroup where the kernel's size is a specialization "
            "constant or read as gl_WorkGroupSize)"
        )


def _integers(value: Any) -> list[int]:
    """An integer or a vector of them as a list; a pointer (a tagged tuple) as none."""
    if isinstance(value, int):
        return [value]
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return list(value)
    return []


def _position(local: Any) -> tuple[Any, ...]:
    """The barrier instruction a waiting invocation is at (function, block, position)."""
    return tuple(local[1][-1][:3])


def _written(cells: tuple[int, ...], writes: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    if not writes:
        return cells
    new = list(cells)
    for at, value in writes:
        new[at] = value
    return tuple(new)
