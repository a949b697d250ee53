"""The kernel semantics (docs/semantics.md section 8) against verdicts
computed by hand, the AXB checker on the same tests written as GLSL, and
lassos replayed on the kernel's own transitions."""

from __future__ import annotations

import pytest
from kernel_helpers import KERNELS, compile_glsl, parse_expect, replay, system, verdicts

from progress.core.analyze import check_program, check_system, queries_for
from progress.core.registry import all_models, find_model
from progress.errors import Inconclusive, InputError
from progress.front.axb.parse import parse_program
from progress.report.render import report_json

ALL_FAIL = {name: False for name in parse_expect("unfair F | fair/weak F")}

SPIN_LOCK = """#version 450
layout(local_size_x = LOCAL) in;
layout(std430, binding = 0) buffer Lock { uint lock; uint count; };
void main() {
    while (atomicExchange(lock, 1u) == 1u) { }
    count = count + 1u;
    atomicExchange(lock, 0u);
}
"""

PRODUCER_CONSUMER = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint data; uint flag; uint got; };
void main() {
    if (gl_WorkGroupID.x == PRODUCER) {
        data = 42u;
        atomicExchange(flag, 1u);
    } else {
        while (atomicAdd(flag, 0u) == 0u) { }
        got = data;
    }
}
"""


def _expect(text: str) -> dict[str, bool]:
    return parse_expect(text)


def test_spin_lock_at_two_workgroups(tmp_path):
    """The holder has taken a step, so OBE keeps it fair; HSA may starve it
    while workgroup 0 spins (the lowest id, the only fair one)."""
    kernel = system(compile_glsl(SPIN_LOCK.replace("LOCAL", "1"), tmp_path / "lock"), 2)
    assert verdicts(kernel) == _expect(
        "unfair F | fair/weak P | fair/strong P | HSA/weak F | HSA/strong F | OBE/weak P | OBE/strong P"
        " | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P"
    )


def test_spin_lock_with_two_invocations_in_one_workgroup(tmp_path):
    """Both invocations share workgroup 0: HSA makes both fair (their
    workgroup is the lowest), so the holder runs: every fair model passes."""
    kernel = system(compile_glsl(SPIN_LOCK.replace("LOCAL", "2"), tmp_path / "lock2"), 1)
    assert kernel.groups == (0, 0)
    got = verdicts(kernel)
    assert got.pop("unfair") is False
    assert all(got.values())


def test_message_passing_needs_the_producer_scheduled(tmp_path):
    """Producer 0, consumer 1: HSA favours the producer; OBE may never start
    it; LOBE starts it once the consumer has started."""
    kernel = system(compile_glsl(PRODUCER_CONSUMER.replace("PRODUCER", "0u"), tmp_path / "mp"), 2)
    assert verdicts(kernel) == _expect(
        "unfair F | fair/weak P | fair/strong P | HSA/weak P | HSA/strong P | OBE/weak F | OBE/strong F"
        " | HSA+OBE/weak P | HSA+OBE/strong P | LOBE/weak P | LOBE/strong P"
    )


ATOMIC_STORE_AND_ALL = """#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint data; uint flag; uint got; };
void main() {
    if (gl_WorkGroupID.x == 0u) {
        data = 42u;
        atomicStore(flag, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
    } else {
        uvec2 seen = uvec2(0u);
        while (all(equal(seen, uvec2(0u))) && !any(notEqual(seen, uvec2(0u)))) {
            seen.y = atomicLoad(flag, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
        }
        got = data;
    }
}
"""


def test_atomic_store_load_and_vector_all_any_are_message_passing(tmp_path):
    """OpAtomicStore to shared memory (the interpreter took its cells from a
    result type it does not have) and OpAll/OpAny (outside the subset):
    the same program as PRODUCER_CONSUMER, the same verdicts."""
    module = compile_glsl(ATOMIC_STORE_AND_ALL, tmp_path / "store")
    opcodes = {i.opcode for i in module.instructions}
    assert {"OpAtomicStore", "OpAtomicLoad", "OpAll", "OpAny"} <= opcodes
    reference = system(compile_glsl(PRODUCER_CONSUMER.replace("PRODUCER", "0u"), tmp_path / "mp"), 2)
    assert verdicts(system(module, 2)) == verdicts(reference)


def test_message_passing_reversed_needs_a_fair_scheduler(tmp_path):
    """Producer 1, consumer 0: only the fair model runs the producer."""
    kernel = system(compile_glsl(PRODUCER_CONSUMER.replace("PRODUCER", "1u"), tmp_path / "mpr"), 2)
    got = verdicts(kernel)
    assert {k: v for k, v in got.items() if v} == {"fair/weak": True, "fair/strong": True}


def test_skipped_barrier_deadlocks_under_every_model(tmp_path):
    kernel = system(compile_glsl(KERNELS / "barrier_skip.comp", tmp_path / "skip"), 1)
    report = check_system(kernel, queries_for(all_models()))
    assert [v.terminates for v in report.verdicts] == [False] * 11
    lasso = report.verdicts[0].witness
    assert lasso.kind == "deadlock"
    assert lasso.summary == "deadlock: workgroup 0 invocation 0 waits at barrier(), barrier_skip.comp:10"
    replay(kernel, lasso)


def test_barrier_releases_and_both_invocations_finish(tmp_path):
    kernel = system(compile_glsl(KERNELS / "barrier_ok.comp", tmp_path / "ok"), 1)
    assert all(verdicts(kernel).values())


def test_local_livelock_is_a_self_loop(tmp_path):
    kernel = system(compile_glsl(KERNELS / "spin_forever.comp", tmp_path / "spin"), 1)
    report = check_system(kernel, queries_for(all_models()))
    assert [v.terminates for v in report.verdicts] == [False] * 11
    lasso = report.verdicts[0].witness
    assert lasso.summary.startswith("livelock: workgroup 0 invocation 0 loops locally without a visible action")
    assert len(lasso.steps) - lasso.loop_start == 1
    replay(kernel, lasso)


@pytest.mark.parametrize(
    "kernel_file, axb_file",
    [
        ("mutex.comp", "litmus/paper/mutex.axb"),
        ("dining.comp", "litmus/paper/dining_philosophers.axb"),
        ("barrier_2.comp", "litmus/idioms/barrier_2.axb"),
    ],
)
def test_axb_written_as_glsl_gets_the_axb_verdicts(tmp_path, repo, kernel_file, axb_file):
    """The same test, hand-written in the paper's `while (pc != n) switch (pc)`
    form: the same 11 verdicts and the same state counts as the AXB checker."""
    queries = queries_for(all_models())
    program = parse_program((repo / axb_file).read_text(), axb_file)
    axb = check_program(program, queries, witnesses=False)
    kernel = system(compile_glsl(KERNELS / kernel_file, tmp_path / "k"), len(program.threads))
    spirv = check_system(kernel, queries, witnesses=False)
    assert [(v.terminates, v.states) for v in spirv.verdicts] == [(v.terminates, v.states) for v in axb.verdicts]


@pytest.mark.parametrize("name", ["barrier_skip", "spin_forever", "message_passing", "plain_spin"])
def test_every_lasso_replays(tmp_path, name):
    workgroups = 2 if name in ("message_passing", "plain_spin") else 1
    kernel = system(compile_glsl(KERNELS / f"{name}.comp", tmp_path / name), workgroups)
    report = check_system(kernel, queries_for(all_models()))
    lassos = [v.witness for v in report.verdicts if v.witness is not None]
    assert lassos
    for lasso in lassos:
        replay(kernel, lasso)


def test_lasso_names_source_lines(tmp_path):
    kernel = system(compile_glsl(KERNELS / "message_passing.comp", tmp_path / "mp"), 2)
    report = check_system(kernel, [q for q in queries_for([find_model("OBE")]) if q.fairness == "weak"])
    lasso = report.verdicts[0].witness
    assert lasso.kind == "starvation"
    note = lasso.steps[-1].note
    assert note.where == "message_passing.comp:11"
    assert "atomicAdd(flag, 0u)" in note.text
    assert note.action == "AtomicIAdd flag"


def test_same_bytes_twice(tmp_path):
    module = compile_glsl(SPIN_LOCK.replace("LOCAL", "1"), tmp_path / "lock")
    texts = [report_json(check_system(system(module, 3), queries_for(all_models())), "lock.comp") for _ in range(2)]
    assert texts[0] == texts[1]


def test_optimizer_deletes_a_plain_spin(tmp_path):
    """`spirv-opt -O` removes `while (flag == 0u) {}` on a plain load: the
    optimized kernel passes OBE, which the source fails."""
    source = verdicts(system(compile_glsl(KERNELS / "plain_spin.comp", tmp_path / "a"), 2))
    optimized = verdicts(system(compile_glsl(KERNELS / "plain_spin.comp", tmp_path / "b", optimize=True), 2))
    assert source["OBE/weak"] is False and source["unfair"] is False
    assert all(optimized.values())


def test_workgroup_memory_has_one_copy_per_workgroup(tmp_path):
    source = """#version 450
layout(local_size_x = 2) in;
shared uint flag;
layout(std430, binding = 0) buffer Out { uint seen[4]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    if (i == 0u) { flag = gl_WorkGroupID.x + 1u; }
    barrier();
    seen[gl_GlobalInvocationID.x] = flag;
}
"""
    kernel = system(compile_glsl(source, tmp_path / "wg"), 2)
    assert all(verdicts(kernel).values())
    names = [name for name, _ in kernel.layout.names]
    assert names == ["seen[0]", "seen[1]", "seen[2]", "seen[3]", "wg0:flag", "wg1:flag"]
    final = _final_cells(kernel)
    assert final == {(("seen[0]", 1), ("seen[1]", 1), ("seen[2]", 2), ("seen[3]", 2), ("wg0:flag", 1), ("wg1:flag", 2))}


def _final_cells(kernel) -> set:
    """The memory of every reachable state where everything has returned."""
    seen, todo, finals = {kernel.initial}, [kernel.initial], set()
    while todo:
        state = todo.pop()
        if kernel.finished(state):
            finals.add(kernel.cells(state))
        for _, nxt in kernel.successors(state):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return finals


def test_runtime_array_and_init(tmp_path):
    source = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint total; uint data[]; };
void main() {
    uint sum = 0u;
    for (uint i = 0u; i < data.length(); i++) { sum += data[i]; }
    total = sum - 1u;
}
"""
    module = compile_glsl(source, tmp_path / "rt")
    kernel = system(module, 1, {"data": 3}, (("data", None, 5), ("data", 2, 0xFFFFFFFF)))
    assert _final_cells(kernel) == {(("total", 8), ("data[0]", 5), ("data[1]", 5), ("data[2]", 0xFFFFFFFF))}


def test_out_of_bounds_index_is_an_error_with_its_line(tmp_path):
    source = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint data[]; };
void main() {
    uint i = 4u;
    data[i] = 1u;
}
"""
    kernel_module = compile_glsl(source, tmp_path / "oob")
    with pytest.raises(InputError, match=r"oob.comp:6: OpAccessChain: index 4 is out of bounds .* length 4"):
        check_system(system(kernel_module, 1, {"data": 4}), queries_for(all_models()))


def test_local_computation_without_end_is_inconclusive(tmp_path, monkeypatch):
    import progress.front.spirv.execute as execute

    monkeypatch.setattr(execute, "LOCAL_STEPS", 2000)
    source = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint x; };
void main() {
    uint i = 0u;
    while (i != 4000000000u) { i++; }
    x = i;
}
"""
    kernel = system(compile_glsl(source, tmp_path / "long"), 1)
    with pytest.raises(Inconclusive, match="without a visible action"):
        _ = kernel.initial
    report = check_system(system(compile_glsl(source, tmp_path / "long"), 1), queries_for(all_models()))
    assert {v.terminates for v in report.verdicts} == {None}
    assert "ran 2000 instructions without a visible action" in report.verdicts[0].reason


@pytest.mark.parametrize(
    "workgroups, buffers, init, message",
    [
        (0, {}, (), "at least 1 workgroup"),
        (65, {}, (), "--workgroups 65: at most 64 workgroups can be checked"),
        (1, {"nope": 2}, (), "no runtime-sized array is called 'nope'"),
        (1, {"data": -1}, (), "a length must be at least 1"),
        (1, {}, (), "needs a length: --buffer data=LEN"),
        (1, {"data": 2}, (("data", 2, 1),), "no shared memory cell is called 'data\\[2\\]'"),
        (1, {"data": 2}, (("ghost", None, 1),), "no shared memory cell is called 'ghost'"),
        (1, {"data": 2}, (("data", None, 2**32),), "does not fit in 32 bits"),
    ],
)
def test_bad_launches_are_input_errors(tmp_path, workgroups, buffers, init, message):
    source = """#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint data[]; };
void main() { data[0] = 1u; }
"""
    module = compile_glsl(source, tmp_path / "launch")
    with pytest.raises(InputError, match=message):
        system(module, workgroups, buffers, init)
