"""Draw a test's LTS under one model, like the paper's Figs. 5-6: states
(memory, pcs, the model's memory), steps labelled `T0:i {F}`, end states
marked, and the witness of non-termination highlighted (its strongly
connected set shaded, the lasso's loop in red, the way there in blue).

Pure: builds DOT or plain text; rendering with Graphviz is the CLI's job.
"""

from __future__ import annotations

from dataclasses import dataclass

from progress.core.analyze import NO_FAIRNESS, fair_sets
from progress.core.check import STRONG, WEAK, scoped_strong_witness, scoped_weak_witness, witness
from progress.core.lts import LTS, Budget, ProgramLTS, explore, explore_system, product
from progress.core.program import Program
from progress.core.scoped import Hierarchy, ScopedFair, ScopedModel, at_scope
from progress.core.semantics import Machine, compile_program
from progress.core.system import Grouping, System
from progress.core.witness import Lasso, build_lasso, deadlock_lasso
from progress.models.base import ProgressModel

Edge = tuple[int, int, int]  # (source, thread, destination)


@dataclass(frozen=True)
class Picture:
    """What to draw: the product LTS, F per state, the witness (if any) and
    the lasso's edges, split into the way to the loop and the loop."""

    program: Program | System
    model: ProgressModel | ScopedModel
    fairness: str
    explored: ProgramLTS
    lts: LTS
    fair: list[int]
    members: frozenset[int]
    lasso: Lasso | None
    prefix: tuple[Edge, ...]
    loop: tuple[Edge, ...]

    @property
    def terminates(self) -> bool:
        return self.lasso is None


def picture(
    program: Program,
    model: ProgressModel | ScopedModel,
    fairness: str,
    max_states: int | None = None,
    scope: str = "workgroup",
) -> Picture:
    """Explore `program` under `model` and `fairness` ("weak", "strong"; "none"
    or anything for a model without fairness) and find the witness; `scope`
    places the threads (docs/semantics.md section 10: a plain model is then
    that scope's)."""
    budget = Budget(max_states)
    explored = explore(compile_program(program), budget)
    n = len(program.threads)
    if scope != "workgroup":
        if not isinstance(model, ScopedModel):
            from progress.core.registry import find_model

            model = at_scope(model, scope, find_model("fair"), model.name)
        return _scoped_picture(program, model, fairness, explored, Hierarchy.axb(n, scope), budget)
    if isinstance(model, ScopedModel):
        model = model.workgroup  # one thread per workgroup: (M, x, y) is M (section 10)
    lts = product(explored.lts, model.memory, n, budget)
    fair = fair_sets(lts, model, n)
    mode = fairness if model.has_fairness else WEAK
    members = witness(lts, fair, mode)
    shown = (program, model, fairness if model.has_fairness else NO_FAIRNESS, explored, lts, fair)
    if members is None:
        return Picture(*shown, frozenset(), None, (), ())
    lasso = build_lasso(explored, lts, fair, members, mode)
    edges = follow(lts, [step.thread for step in lasso.steps])
    loop_start = lasso.loop_start
    return Picture(*shown, frozenset(members), lasso, tuple(edges[:loop_start]), tuple(edges[loop_start:]))


def kernel_picture(
    system: System, model: ProgressModel | ScopedModel, fairness: str, max_states: int | None = None
) -> Picture:
    """`picture` for a System (a kernel): units step, F lifted from the model's
    threads; a reachable deadlock is the witness (docs/semantics.md section 8);
    a scoped model's F over the kernel's subgroups (section 10)."""
    budget = Budget(max_states)
    explored = explore_system(system, budget)
    if isinstance(model, ScopedModel) and not model.plain:
        hierarchy = Hierarchy.of_sizes(system.groups, getattr(system, "subgroup_size", None))
        return _scoped_picture(system, model, fairness, explored, hierarchy, budget)
    if isinstance(model, ScopedModel):
        model = model.workgroup
    grouping = Grouping(system.groups)
    lts = product(explored.lts, model.memory, grouping.n_threads, budget, grouping.groups)
    fair = fair_sets(lts, model, grouping.n_threads, grouping)
    mode = fairness if model.has_fairness else WEAK
    shown = (system, model, fairness if model.has_fairness else NO_FAIRNESS, explored, lts, fair)
    if explored.deadlocks:
        lasso = deadlock_lasso(explored, lts, fair, mode)
        dead = set(explored.deadlocks)
        members = frozenset(s for s, origin in enumerate(lts.origin) if origin in dead)
        return Picture(*shown, members, lasso, tuple(follow(lts, [step.thread for step in lasso.steps])), ())
    found = witness(lts, fair, mode)
    if found is None:
        return Picture(*shown, frozenset(), None, (), ())
    lasso = build_lasso(explored, lts, fair, found, mode)
    edges = follow(lts, [step.thread for step in lasso.steps])
    return Picture(*shown, frozenset(found), lasso, tuple(edges[: lasso.loop_start]), tuple(edges[lasso.loop_start :]))


def _scoped_picture(
    program: Program | System,
    model: ScopedModel,
    fairness: str,
    explored: ProgramLTS,
    hierarchy: Hierarchy,
    budget: Budget,
) -> Picture:
    """The picture under a scoped model: its memory, F shown as the individually
    fair units, the witness by section 10's group conditions."""
    scoped = ScopedFair(model, hierarchy)
    lts = product(explored.lts, scoped.memory, hierarchy.units, budget)
    extended = [scoped.fair(e, m) for e, m in zip(lts.enabled, lts.memory)]
    fair = [f & hierarchy.unit_mask for f in extended]
    mode = fairness if model.has_fairness else WEAK
    shown = (program, model, fairness if model.has_fairness else NO_FAIRNESS, explored, lts, fair)
    if explored.deadlocks:
        lasso = deadlock_lasso(explored, lts, extended, mode, None, hierarchy)
        dead = set(explored.deadlocks)
        members = frozenset(s for s, origin in enumerate(lts.origin) if origin in dead)
        return Picture(*shown, members, lasso, tuple(follow(lts, [step.thread for step in lasso.steps])), ())
    if mode == STRONG:
        found = scoped_strong_witness(lts, extended, hierarchy.lift, hierarchy.units, hierarchy.group_mask)
    else:
        found = scoped_weak_witness(lts, extended, hierarchy.lift)
    if found is None:
        return Picture(*shown, frozenset(), None, (), ())
    lasso = build_lasso(explored, lts, extended, found, mode, None, None, hierarchy)
    edges = follow(lts, [step.thread for step in lasso.steps])
    return Picture(*shown, frozenset(found), lasso, tuple(edges[: lasso.loop_start]), tuple(edges[lasso.loop_start :]))


def follow(lts: LTS, threads: list[int]) -> list[Edge]:
    """The edges taken from the initial state when `threads` step in turn."""
    edges, state = [], 0
    for thread in threads:
        dst = next(d for t, d in lts.succ[state] if t == thread)
        edges.append((state, thread, dst))
        state = dst
    return edges


def state_name(index: int) -> str:
    """A, B, ..., Z, AA, AB, ... as in the paper's figures."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def _threads(mask: int) -> str:
    return "{" + ",".join(str(t) for t in range(mask.bit_length()) if mask >> t & 1) + "}"


def state_text(pic: Picture, state: int) -> str:
    """`m=0 | pc 0,1` (for a kernel: the cells, then a line per invocation:
    its next source line and action and the values it holds, `waits` at a
    barrier, `ret` once returned), then the model's memory, e.g. `started {0}`."""
    raw = pic.explored.states[pic.lts.origin[state]]
    machine = pic.explored.machine
    if isinstance(machine, Machine):
        memory = " ".join(f"{loc}={value}" for loc, value in machine.memory_of(raw).items())
        text = f"{memory} | pc " + ",".join(str(pc) for pc in machine.pcs_of(raw))
    else:
        text = " ".join(f"{cell}={value}" for cell, value in machine.cells(raw)) + "\n" + _units(pic, state)
    remembered = pic.lts.memory[state]
    if isinstance(pic.model, ScopedModel):
        if remembered is not None:  # (workgroup level, each workgroup's subgroup level, each subgroup's lane level)
            text += f"\nscoped memory {remembered!r}"
    elif pic.model.memory.name == "started" and isinstance(remembered, int):
        text += f"\nstarted {_threads(remembered)}"
    elif remembered is not None:
        text += f"\n{pic.model.memory.name} {remembered!r}"
    return text


def _units(pic: Picture, state: int) -> str:
    """A line per invocation: `0.1 :9 Load counter [1]` (its next source line,
    the action there, the values it holds), `0.1 waits :12` at a barrier,
    `0.1 ret` once returned."""
    raw = pic.explored.states[pic.lts.origin[state]]
    machine = pic.explored.machine
    assert not isinstance(machine, Machine)
    waiting = {unit for unit, _ in machine.waits(raw)}
    enabled = pic.lts.enabled[state]
    lines = []
    for unit in range(len(machine.groups)):
        name = _unit(machine, unit)
        if enabled >> unit & 1:
            note = machine.note(raw, unit)
            held = machine.held(raw, unit)
            values = " [" + ",".join(map(str, held)) + "]" if held else ""
            lines.append(f"{name} :{note.where.rpartition(':')[2]} {note.action}{values}")
        elif unit in waiting:
            lines.append(f"{name} waits :{machine.note(raw, unit).where.rpartition(':')[2]}")
        else:
            lines.append(f"{name} ret")
    return "\n".join(lines)


def _unit(machine: System, unit: int) -> str:
    """`1.0`: workgroup 1, invocation 0."""
    group, index = divmod(unit, len(machine.groups) // (max(machine.groups) + 1))
    return f"{group}.{index}"


def labels(pic: Picture) -> list[str]:
    """Every state's text (`state_text`), made distinct: a state whose text
    another state has too gets `(variant k)` (states that differ only in
    what the text leaves out; not seen in the corpus)."""
    texts = [state_text(pic, state) for state in range(pic.lts.size)]
    seen: dict[str, int] = {}
    for state, text in enumerate(texts):
        seen[text] = seen.get(text, 0) + 1
        if seen[text] > 1:
            texts[state] = f"{text}\n(variant {seen[text]})"
    return texts


def step_label(pic: Picture, state: int, thread: int) -> str:
    """`T0:1 {0,1}`: thread, instruction index, F before the step (for a
    kernel: invocation `w.i`, source line)."""
    raw = pic.explored.states[pic.lts.origin[state]]
    machine = pic.explored.machine
    if not isinstance(machine, Machine):
        line = machine.note(raw, thread).where.rpartition(":")[2]
        return f"{_unit(machine, thread)}:{line} {_threads(pic.fair[state])}"
    pc = machine.pcs_of(raw)[thread]
    return f"T{thread}:{pc} {_threads(pic.fair[state])}"


def verdict_text(pic: Picture) -> str:
    where = pic.model.name if pic.fairness == NO_FAIRNESS else f"{pic.model.name} {pic.fairness}"
    if pic.lasso is None:
        return f"{pic.program.name} under {where}: guaranteed to terminate"
    return f"{pic.program.name} under {where}: may not terminate ({pic.lasso.summary})"


def _title(pic: Picture) -> str:
    """The verdict, then the diagnosis one clause per line."""
    head = verdict_text(pic)
    if pic.lasso is None:
        return head
    head = head[: -len(pic.lasso.summary) - 3]
    return "\n".join([head] + pic.lasso.summary.split("; "))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def node_id(state: int) -> str:
    """The SVG id of a state's node when drawn `with_ids` (`s_B`)."""
    return f"s_{state_name(state)}"


def edge_id(source: int, thread: int, destination: int) -> str:
    """The SVG id of a step's edge when drawn `with_ids` (`e_B_1_C`)."""
    return f"e_{state_name(source)}_{thread}_{state_name(destination)}"


def to_dot(pic: Picture, with_ids: bool = False) -> str:
    """A Graphviz digraph; the same picture gives the same bytes. `with_ids`
    names every node and edge (`node_id`, `edge_id`) for a page to find in the SVG."""
    loop, prefix = set(pic.loop), set(pic.prefix)
    texts = labels(pic)
    lines = [
        "digraph lts {",
        f"  label={_quote(_title(pic))};",
        "  labelloc=t; fontsize=11;",
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
        '  start [shape=point, width=0.08, label=""];',
        f"  start -> {state_name(0)};",
    ]
    for state in range(pic.lts.size):
        attributes = [f"label={_quote(state_name(state) + chr(10) + texts[state])}"]
        if with_ids:
            attributes.append(f"id={_quote(node_id(state))}")
        if pic.lts.enabled[state] == 0:
            attributes.append("peripheries=2")
        if state in pic.members:
            attributes.append('fillcolor="#fde2c8"')
        if any(state == e[0] for e in pic.loop):
            attributes.append('color="#c0392b", penwidth=2')
        lines.append(f"  {state_name(state)} [{', '.join(attributes)}];")
    for state, edges in enumerate(pic.lts.succ):
        for thread, dst in edges:
            attributes = [f"label={_quote(step_label(pic, state, thread))}"]
            if with_ids:
                attributes.append(f"id={_quote(edge_id(state, thread, dst))}")
            if (state, thread, dst) in loop:
                attributes += ['color="#c0392b"', 'fontcolor="#c0392b"', "penwidth=2.5"]
            elif (state, thread, dst) in prefix:
                attributes += ['color="#2e6fb7"', 'fontcolor="#2e6fb7"', "penwidth=1.8"]
            lines.append(f"  {state_name(state)} -> {state_name(dst)} [{', '.join(attributes)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_text(pic: Picture) -> str:
    """States and steps one per line; `*` marks the witness set and the loop."""
    lines = [verdict_text(pic), f"{pic.lts.size} states, {pic.lts.transitions} transitions"]
    loop = set(pic.loop)
    texts = labels(pic)
    for state, edges in enumerate(pic.lts.succ):
        mark = "*" if state in pic.members else " "
        end = "  (end)" if pic.lts.enabled[state] == 0 else ""
        if end and pic.lasso is not None and pic.lasso.kind == "deadlock" and state in pic.members:
            end = "  (deadlock)"
        lines.append(f"{mark} {state_name(state)}  [{texts[state].replace(chr(10), '] [')}]{end}")
        for thread, dst in edges:
            arrow = "=>" if (state, thread, dst) in loop else "->"
            lines.append(f"      {arrow} {state_name(dst):<4} {step_label(pic, state, thread)}")
    if pic.lasso is not None and pic.loop:
        lines.append(
            "loop (=>): "
            + " ".join(f"{state_name(s)} -T{t}->" for s, t, _ in pic.loop)
            + f" {state_name(pic.loop[0][0])}"
        )
    return "\n".join(lines) + "\n"
