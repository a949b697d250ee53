"""docs/semantics.md section 6 constraints: one hand-made program per constraint that
only it rejects, judged by the reference (`constraints.violations`) and by
the enum engine's static pruning + LTS judge."""

from __future__ import annotations

import pytest

from progress.front.axb.parse import parse_program
from progress.synth import canonical
from progress.synth.constraints import Constraint, outside, violations
from progress.synth.enum_engine import accepts
from progress.synth.space import Bounds

SPIN_AND_STORE = """
thread 0
  AXB(x, 0, 0, false, 0)   # spin while x == 0
thread 1
  AXB(x, 0, 1, true, 1)    # x = 1
"""

ONLY = {
    # 2: thread 1 may store 1 then 0 before thread 0 looks: thread 0 spins forever.
    Constraint.POSSIBLE_TERMINATION: """
thread 0
  AXB(x, 0, 0, false, 0)
thread 1
  AXB(x, 0, 1, true, 1)
  AXB(x, 0, 2, true, 0)
""",
    # 3: memory only goes 0 -> 1 and every step moves forward: no cycle.
    Constraint.CYCLE: """
thread 0
  AXB(x, 0, 0, true, 1)
thread 1
  AXB(x, 1, 2, false, 0)
  AXB(x, 0, 2, true, 1)
""",
    # 4: a store that compares with 1 (same behaviour as the mutex's release).
    Constraint.MEANINGFUL_COMPARISONS: """
thread 0
  AXB(m, 1, 0, true, 1)
  AXB(m, 1, end, true, 0)
thread 1
  AXB(m, 1, 0, true, 1)
  AXB(m, 0, 2, true, 0)
""",
    # 5: thread 1's second instruction never sees x == 0 (nobody writes 0).
    Constraint.ALL_BRANCHES: """
thread 0
  AXB(x, 0, 0, false, 0)
thread 1
  AXB(x, 0, 1, true, 1)
  AXB(x, 0, 1, false, 0)
""",
    # 6 (sharing): thread 1 writes y, which no other thread reads.
    Constraint.INFLUENCE: """
thread 0
  AXB(x, 0, 0, false, 0)
thread 1
  AXB(y, 0, 1, true, 1)
  AXB(x, 0, 2, true, 1)
""",
}

# 6 (memory change): the second store writes 1 over a 1, always.
NEVER_CHANGES = """
thread 0
  AXB(x, 0, 0, false, 0)
thread 1
  AXB(x, 0, 1, true, 1)
  AXB(x, 0, 2, true, 1)
"""


def program(text: str):
    return parse_program(text, "<test>")


def engine_accepts(prog) -> bool:
    """Whether the enum engine would keep `prog`."""
    lengths = [len(thread) for thread in prog.threads]
    return accepts(canonical.from_program(prog), Bounds(len(lengths), sum(lengths)))


def broken(prog) -> set[Constraint]:
    return {v.constraint for v in violations(prog)}


def test_the_mutex_and_spin_store_meet_every_constraint(repo):
    mutex = parse_program((repo / "litmus/paper/mutex.axb").read_text(), "mutex.axb")
    for prog in (mutex, program(SPIN_AND_STORE)):
        assert violations(prog) == []
        assert engine_accepts(prog)


@pytest.mark.parametrize("constraint", list(ONLY), ids=lambda c: c.name)
def test_a_program_that_only_this_constraint_rejects(constraint):
    prog = program(ONLY[constraint])
    assert broken(prog) == {constraint}
    assert not engine_accepts(prog)


def test_memory_change_part_of_constraint_6_alone():
    prog = program(NEVER_CHANGES)
    found = violations(prog)
    assert [v.constraint for v in found] == [Constraint.INFLUENCE]
    assert "never changes x" in found[0].message
    assert not engine_accepts(prog)


def test_constraint_1_is_implied_by_constraint_2():
    """No program breaks 1 alone: 2 asks an end state to be reachable from the
    initial state. (An exhaustive search of 2t3i, 2t4i and 3t3i finds none
    breaking exactly {1, 2} either.) Deadlock: each waits for the other."""
    prog = program("""
thread 0
  AXB(x, 0, 0, false, 0)
  AXB(y, 0, 2, true, 1)
thread 1
  AXB(y, 0, 0, false, 0)
  AXB(x, 0, 2, true, 1)
""")
    assert {Constraint.END_STATE, Constraint.POSSIBLE_TERMINATION} <= broken(prog)
    assert not engine_accepts(prog)


def test_first_only_stops_at_a_static_violation():
    prog = program(ONLY[Constraint.MEANINGFUL_COMPARISONS])
    assert [v.constraint for v in violations(prog, first_only=True)] == [Constraint.MEANINGFUL_COMPARISONS]


def test_violations_render_with_number_and_title():
    text = str(violations(program(ONLY[Constraint.CYCLE]))[0])
    assert text == "constraint 3 (cycle): the reachable LTS has no cycle"


def test_outside_bounds():
    prog = program(ONLY[Constraint.POSSIBLE_TERMINATION])
    assert outside(prog, Bounds(2, 3)) is None
    assert outside(prog, Bounds(3, 3)) == "2 threads, not 3"
    assert outside(prog, Bounds(2, 4)) == "3 instructions, not 4"
    assert outside(prog, Bounds(2, 3, locations=1)) is None
    three_values = program("thread 0\n  AXB(x, 2, 0, false, 0)\nthread 1\n  AXB(x, 0, 1, true, 1)\n")
    assert outside(three_values, Bounds(2, 2)) == "a value outside 0..1"
