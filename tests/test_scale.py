"""The large-test checker (progress/core/scale.py) against the unreduced
Python checker and the brute-force oracle (tests/brute.py): symmetric
programs (identical threads, where the quotient and its lifts are used),
random programs, the idiom families, early stops, the model reductions'
contract, and the CLI on large files (bounds, exit codes).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess

import brute
import families
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from in_process import progress
from test_check_properties import instructions, programs

from progress.core import explore_jit, lift, packed, scale
from progress.core.analyze import LARGE, check_program, queries_for
from progress.core.contract import check_model_contract
from progress.core.lts import explore
from progress.core.program import Program
from progress.core.registry import all_models, find_model
from progress.core.semantics import compile_program
from progress.front.axb.parse import parse_program

QUERIES = queries_for(all_models())
ASKS = [(q.model, q.fairness == "strong") for q in QUERIES]
SETTINGS = dict(
    derandomize=True,
    deadline=None,
    database=None,
    max_examples=30,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def large(program: Program, **bounds) -> list[bool | None]:
    outcomes = scale.check_large(program, ASKS, **bounds)
    assert outcomes is not None
    return [o.terminates for o in outcomes]


def lassoed(program: Program) -> list[bool | None]:
    """check_large's verdicts with lassos, each lasso checked by the
    independent validator (tests/brute.py: replayed on its own semantics,
    F from its own models, the loop's weak or strong condition)."""
    outcomes = scale.check_large(program, ASKS, witnesses=True)
    assert outcomes is not None
    for (model, strong), outcome in zip(ASKS, outcomes):
        assert (outcome.witness is None) == (outcome.terminates is not False)
        if outcome.witness is not None:
            fairness = "strong" if strong else "weak"
            assert outcome.witness.fairness == fairness
            assert brute.lasso_problems(program, model.name, fairness, outcome.witness) == []
    return [o.terminates for o in outcomes]


def unreduced(program: Program) -> list[bool | None]:
    return [v.terminates for v in check_program(program, QUERIES, witnesses=False).verdicts]


def oracle(program: Program) -> list[bool]:
    found = brute.verdicts(program, limit=20_000)
    return [found[(q.model.name, q.fairness)] for q in QUERIES]


@st.composite
def symmetric_programs(draw) -> Program:
    """k >= 2 copies of one thread, and maybe one other thread before or after."""
    length = draw(st.integers(1, 3))
    locs = ("x", "y")[: draw(st.integers(1, 2))]
    body = tuple(draw(instructions(locs, i, length)) for i in range(length))
    threads = [body] * draw(st.integers(2, 4))
    if draw(st.booleans()):
        other_length = draw(st.integers(1, 2))
        other = tuple(draw(instructions(locs, i, other_length)) for i in range(other_length))
        threads.insert(draw(st.integers(0, len(threads))), other)
    return Program("symmetric", tuple(threads), ())


@pytest.mark.long
@settings(**SETTINGS)
@given(program=symmetric_programs())
def test_symmetric_programs_agree_with_brute_force(program, monkeypatch_lifts):
    got = lassoed(program)
    event(f"lifted: {monkeypatch_lifts.calls > 0}")
    assert got == oracle(program) == unreduced(program)


@pytest.mark.long
@settings(**SETTINGS)
@given(programs())
def test_random_programs_agree_with_the_python_checker(program):
    assert lassoed(program) == unreduced(program)


@pytest.fixture
def monkeypatch_lifts(monkeypatch):
    """Counts the quotient SCCs decided on their lifts (so that the tests
    know the lift path runs)."""
    counter = dataclasses.make_dataclass("Counter", [("calls", int)])(0)
    real = lift._lift

    def counted(*args):
        counter.calls += 1
        return real(*args)

    monkeypatch.setattr(lift, "_lift", counted)
    return counter


@pytest.fixture
def lift_everything(monkeypatch):
    """Every SCC of a symmetric quotient counts as needing its lift, so the
    lifts decide every verdict there."""
    real = explore_jit.components

    def all_inexact(*args):
        comp, ncomp, cyclic, steppers, exits, inexact = real(*args)
        inexact[:] = True
        return comp, ncomp, cyclic, steppers, exits, inexact

    monkeypatch.setattr(explore_jit, "components", all_inexact)


@settings(**SETTINGS)
@given(program=symmetric_programs())
def test_lifts_alone_agree_with_brute_force(program, lift_everything, monkeypatch_lifts):
    before = monkeypatch_lifts.calls
    assert lassoed(program) == oracle(program)
    event(f"lifts: {monkeypatch_lifts.calls > before}")


def test_a_symmetric_livelock_needs_its_lift(monkeypatch_lifts):
    """Two identical threads that keep resetting each other (found by the
    property test above): the quotient's cycle carries a swap of the two, so
    it is decided on its lift."""
    body = "  AXB(y, 1, 0, true, 0)\n  AXB(x, 0, 2, true, 0)\n  AXB(y, 0, 0, true, 0)\n"
    program = parse_program(f"thread 0\n{body}thread 1\n{body}", "resetters.axb")
    assert lassoed(program) == unreduced(program) == oracle(program)
    assert monkeypatch_lifts.calls > 0


@pytest.mark.parametrize("family", sorted(families.FAMILIES))
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_families_agree_with_the_python_checker(family, n):
    program = parse_program(families.FAMILIES[family](n), f"{family}_{n}.axb")
    want = unreduced(program)
    assert lassoed(program) == want
    if n <= 3:
        assert want == oracle(program)


@pytest.mark.parametrize("family", ["barrier", "ticket"])
def test_an_early_stop_changes_no_verdict(family, monkeypatch):
    """With a look at the partial product after every few states, failing
    products stop early; the verdicts stay the unreduced checker's."""
    program = parse_program(families.FAMILIES[family](5), f"{family}.axb")
    monkeypatch.setattr(scale, "FIRST_LOOK", 8)
    assert lassoed(program) == unreduced(program)


def test_mutex_16_checks_fast_with_every_reduction():
    program = parse_program(families.mutex(16), "mutex_16.axb")
    outcomes = scale.check_large(program, ASKS)
    assert [o.terminates for o in outcomes] == [False, True, True, False, False, True, True, True, True, True, True]
    by_model = {model.name: o.states for (model, _), o in zip(ASKS, outcomes)}
    assert by_model["OBE"] == 273  # one state per orbit of 16 identical threads
    assert by_model["fair"] == 33


def test_bounds_give_inconclusive_verdicts():
    program = parse_program(families.mutex(12), "mutex_12.axb")
    assert set(large(program, max_states=1000)) == {None}
    assert set(large(program, time_limit=1e-9)) == {None}


def test_check_program_hands_large_tests_over_and_keeps_small_ones():
    small = parse_program(families.mutex(3), "mutex_3.axb")
    assert all(v.witness is not None for v in check_program(small, QUERIES).verdicts if v.terminates is False)
    big = parse_program(families.barrier(8), "barrier_8.axb")
    report = check_program(big, QUERIES)
    assert [v.terminates for v in report.verdicts] == large(big)
    assert max(v.states for v in report.verdicts) > LARGE
    bounded = check_program(big, QUERIES, max_states=LARGE)
    assert {v.terminates for v in bounded.verdicts} == {None}


def test_ticket_16_needs_a_third_word():
    """126 bits of fields (46 instructions a thread): more than two 62-bit words."""
    shape = packed.layout(compile_program(parse_program(families.ticket(16), "ticket_16.axb")))
    assert shape is not None and shape.n_words == 3


def narrowest(machine):
    """The layout with words as narrow as the widest field: nearly a word per field."""
    shape = packed.layout(machine)
    assert shape is not None
    return packed.layout(machine, word_bits=max(1, *shape.widths), max_words=64)


@pytest.fixture
def wide_keys(monkeypatch):
    """check_large packs every state into as many words as it can."""
    words = []

    def wide(machine):
        shape = narrowest(machine)
        words.append(shape.n_words)
        return shape

    monkeypatch.setattr(scale, "layout", wide)
    return words


@settings(**SETTINGS)
@given(program=programs())
def test_wide_keys_agree_with_the_python_checker(program, wide_keys):
    assert lassoed(program) == unreduced(program)
    event(f"words: {min(wide_keys[-1], 4)}+")


@settings(**SETTINGS)
@given(program=symmetric_programs())
def test_wide_symmetric_keys_agree_with_the_python_checker(program, wide_keys):
    assert lassoed(program) == unreduced(program)
    assert wide_keys[-1] >= 2


@settings(**SETTINGS)
@given(program=programs(), bits=st.integers(1, 62))
def test_keys_of_any_width_round_trip(program, bits):
    """pack, unpack, words and join invert each other on every reachable state, and
    Layout.step is Machine.step, whatever the word width."""
    machine = compile_program(program)
    shape = packed.layout(machine, word_bits=bits, max_words=64)
    if shape is None:
        assert bits < max(packed.layout(machine).widths)
        return
    for state in explore(machine).states:
        key = shape.pack(state)
        assert shape.unpack(key) == state and shape.join(shape.words(key)) == key
        assert all(0 <= word < 1 << 62 for word in shape.words(key)) and len(shape.words(key)) == shape.n_words
        for t in range(machine.n_threads):
            if shape.enabled(key) >> t & 1:
                assert shape.unpack(shape.step(key, t)) == machine.step(state, t)


def too_wide(threads: int = 2, cells: int = 250) -> str:
    """Every thread writes 1, 2, 3 into each of `cells` locations: 2 bits a
    location, 500 bits for them alone, more than the widest key; 901^threads states."""
    body = "".join(f"  AXB(x{c}, 9, end, true, {v})\n" for c in range(cells) for v in (1, 2, 3))
    return "".join(f"thread {t}\n{body}" for t in range(threads))


def test_a_program_too_wide_to_pack_goes_back_to_the_python_checker(tmp_path):
    """Past MAX_WORDS words: check_large declines, check_program goes on in
    Python within the caller's bounds, and the CLI stops inconclusive (exit 3)."""
    program = parse_program(too_wide(), "wide.axb")
    assert packed.layout(compile_program(program)) is None
    assert scale.check_large(program, ASKS) is None
    path = tmp_path / "wide.axb"
    path.write_text(too_wide())
    done = progress("check", path, "--max-states", LARGE + 10)  # in this process (tests/in_process.py)
    assert done.returncode == 3 and f"state bound of {LARGE + 10}" in done.stdout, done.stdout + done.stderr


def test_more_threads_than_the_kernel_takes_go_back_to_the_python_checker():
    """31 one-instruction threads: no state bound is reached by the Python
    checker either (2^31 states), so the bound decides, as it would there."""
    program = parse_program("".join(f"thread {t}\n  AXB(x, 0, end, true, 1)\n" for t in range(31)), "wide.axb")
    assert scale.check_large(program, ASKS) is None
    report = check_program(program, QUERIES, max_states=LARGE + 10, witnesses=False)
    assert {v.terminates for v in report.verdicts} == {None}


@pytest.mark.parametrize(
    ("name", "change", "words"),
    [
        ("HSA", {"symmetric": True}, "declared symmetric"),
        ("OBE", {"view": lambda started, n: started & 1}, "view("),
        ("OBE", {"contains": ("fair",)}, "claims to contain"),
    ],
)
def test_the_contract_catches_false_reduction_claims(name, change, words):
    broken = dataclasses.replace(find_model(name), **change)
    with pytest.raises(AssertionError, match=words.replace("(", r"\(")):
        check_model_contract(broken)


@pytest.mark.long
def test_cli_on_a_large_test(tmp_path):
    path = tmp_path / "barrier_10.axb"
    path.write_text(families.barrier(10))

    def run(*args: str) -> subprocess.CompletedProcess:
        return progress("check", path, *args)  # in this process (tests/in_process.py)

    assert run().returncode == 1
    bounded = run("--max-states", "500")
    assert bounded.returncode == 3 and "state bound of 500" in bounded.stdout
    fair = run("-m", "fair", "--format", "json")
    assert fair.returncode == 0 and fair.stdout.count('"terminates":true') == 2
    first, second = run("--format", "json"), run("--format", "json")
    assert first.stdout == second.stdout
    verdicts = json.loads(first.stdout)["results"]
    assert [v["terminates"] for v in verdicts] == [False, True, True, False, False] + [False] * 6
    for verdict in verdicts:
        assert (verdict["witness"] is None) == verdict["terminates"]
    text = run("-m", "HSA", "--weak")
    assert text.returncode == 1 and "starvation: thread 1 never runs" in text.stdout and "loop:" in text.stdout


def test_large_lassos_name_concrete_states_on_every_path():
    """mutex 16 (symmetric quotients), chain 16 and barrier 12 (early stops):
    every failing verdict's lasso passes the validator on the concrete program."""
    for name, n in (("mutex", 16), ("chain", 16), ("barrier", 12)):
        program = parse_program(families.FAMILIES[name](n), f"{name}_{n}.axb")
        assert lassoed(program) == large(program)


def test_a_memory_that_cannot_be_tabulated_goes_back_to_the_python_checker():
    """A plug-in memory whose `after` raises on a value runs never reach
    (counting steps past 3) is not tabulated; check_program decides alone."""
    from progress.models.base import Memory, ProgressModel

    def after(count: int, thread: int) -> int:
        if count >= 3:
            raise ValueError("no run of this test gets here")
        return count + 1

    odd = ProgressModel("steps", "F = every enabled thread", lambda e, m, n: e, Memory("steps", lambda n: 0, after))
    program = parse_program("thread 0\n  AXB(x, 0, end, true, 1)\nthread 1\n  AXB(x, 1, end, true, 0)\n", "two.axb")
    assert scale.check_large(program, [(odd, False)]) is None
