"""Subgroups in kernels (docs/semantics.md section 10, docs/kernels.md "Subgroups"):
every subgroup operation's results against their definitions, HLSL's wave
intrinsics, non-uniform arrival as an error with both lines, collective steps
in lassos, and the lane-scope verdicts reasoned in the corpus kernels."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO
from in_process import progress

from progress.core.analyze import Query, check_system
from progress.core.lts import terminal_memories
from progress.core.model_spec import parse_models
from progress.errors import InputError
from progress.front.header import LaunchSettings
from progress.front.spirv.load import launch_system, load_kernel
from tests import brute_scoped

DATA = REPO / "tests" / "data" / "subgroups"
KERNELS = REPO / "litmus" / "kernels"


def _system(path: Path, kind: str = "glsl", size: int | None = None):
    loaded = load_kernel(path.read_bytes(), path.name, kind, LaunchSettings(subgroup_size=size))
    return launch_system(loaded, path.stem, str(path))


def _end(path: Path, kind: str = "glsl", size: int | None = None) -> list[int]:
    """The cells of the one end state a deterministic kernel has."""
    ends = terminal_memories(_system(path, kind, size), 2_000_000, 300)
    assert len(ends) == 1
    return [value for _, value in next(iter(ends))]


def _expected_ops(size: int, invocations: int = 4) -> list[list[int]]:
    """What ops.comp writes, from the definitions (the GLSL names in comments)."""
    rows = []
    for i in range(invocations):
        lane, first = i % size, i - i % size
        lanes = range(min(size, invocations - first))
        add = [x + 1 for x in lanes]
        votes = sum(1 << x for x in lanes if x >= 1)
        product = 1
        for x in add:
            product *= x
        xor = 0
        for x in lanes:
            xor ^= 1 << x
        rows.append(
            [
                sum(add),  # subgroupAdd
                sum(add[: lane + 1]),  # subgroupInclusiveAdd
                sum(add[:lane]),  # subgroupExclusiveAdd
                5,  # subgroupMin(lane + 5)
                max(lanes) + 5,  # subgroupMax
                product,  # subgroupMul
                sum(1 << x for x in lanes),  # subgroupOr
                xor,  # subgroupXor
                8,  # subgroupAnd(lane | 8)
                int(lane == 0),  # subgroupElect
                int(all(x < 3 for x in lanes)),  # subgroupAll
                int(any(x == 1 for x in lanes)),  # subgroupAny
                1,  # subgroupAllEqual(lane / 8)
                3,  # subgroupBroadcast(lane * 3, 1)
                7,  # subgroupBroadcastFirst(lane + 7)
                lane ^ 1,  # subgroupShuffleXor(lane, 1)
                lane + 21 if lane + 1 in lanes else 0,  # subgroupShuffleDown(lane + 20, 1): 0 past the last lane
                votes,  # subgroupBallot(lane >= 1).x
                bin(votes).count("1"),  # subgroupBallotBitCount
                bin(votes & ((1 << lane) - 1)).count("1"),  # subgroupBallotExclusiveBitCount
                votes >> lane & 1,  # subgroupBallotBitExtract
                size * 100 + (invocations // size) * 10 + i // size,  # gl_SubgroupSize, gl_NumSubgroups, gl_SubgroupID
                (1 << lane) - 1,  # gl_SubgroupLtMask.x
                (lane + 1) % size,  # subgroupShuffle(lane, (lane + 1) % gl_SubgroupSize)
            ]
        )
    return rows


@pytest.mark.parametrize("size", [4, 2])
def test_every_subgroup_operation_computes_its_definition(size):
    cells = _end(DATA / "ops.comp", size=size)
    assert [cells[24 * i : 24 * i + 24] for i in range(4)] == _expected_ops(size)


def _expected_more_ops(lanes: list[int]) -> list[list[int]]:
    """What more_ops.comp writes for one subgroup of `lanes`, from the definitions
    (clusters of 2^k consecutive lanes, quads of 4, a partition = the lanes its ballot names)."""

    def reduce(values, members, op):
        out = None
        for m in members:
            out = values[m] if out is None else op(out, values[m])
        return out

    rows = []
    for lane in lanes:
        pair = [m for m in lanes if m // 2 == lane // 2]
        parity = [m for m in lanes if m % 2 == lane % 2]
        plus = {m: m + 1 for m in lanes}
        rows.append(
            [
                reduce(plus, [m for m in lanes if m // 2 == lane // 2], lambda a, b: a + b),  # clustered add, 2
                reduce({m: 3 * m for m in lanes}, [m for m in lanes if m // 4 == lane // 4], max),  # clustered max, 4
                1 << lane,  # clustered or, clusters of 1
                (lane & ~3) + 2 + 10 if (lane & ~3) + 2 in lanes else 0,  # quad broadcast of quad lane 2
                (lane ^ 1) + 20,  # quad swap horizontal
                (lane ^ 2) + 30,  # quad swap vertical
                (lane ^ 3) + 40,  # quad swap diagonal
                sum(1 << m for m in pair),  # subgroupPartitionNV(lane / 2).x
                sum(plus[m] for m in pair),  # partitioned add
                sum(plus[m] for m in pair if m <= lane),  # partitioned inclusive add
                sum(plus[m] for m in pair if m < lane),  # partitioned exclusive add
                min(m + 5 for m in parity),  # partitioned min over subgroupPartitionNV(lane % 2)
            ]
        )
    return rows


@pytest.mark.parametrize("size", [4, 8])
def test_clustered_quad_and_partitioned_operations_compute_their_definitions(size):
    cells = _end(DATA / "more_ops.comp", size=size)
    assert [cells[12 * i : 12 * i + 12] for i in range(4)] == _expected_more_ops([0, 1, 2, 3])


def test_hlsl_quad_intrinsics_through_the_hlsl_compiler():
    """QuadReadAcrossX/Y/Diagonal read lane XOR 1/2/3, QuadReadLaneAt(lane, 3) lane 3 of the quad."""
    assert _end(DATA / "quad.hlsl", "hlsl") == [(i ^ 1) * 1000 + (i ^ 2) * 100 + (i ^ 3) * 10 + 3 for i in range(4)]


def test_a_cluster_wider_than_the_subgroup_is_an_error_at_its_line():
    with pytest.raises(InputError, match="more_ops.comp:17:.*a cluster of 4 lanes in a subgroup of 2"):
        check_system(_system(DATA / "more_ops.comp", size=2), [Query(parse_models(["fair"])[0], "weak")])


@pytest.mark.parametrize("size", [4, 2])
def test_rotate_reads_lane_plus_delta_around_the_subgroup_or_its_cluster(size):
    cells = _end(DATA / "rotate.spvasm", "spvasm", size=size)
    rows = []
    for i in range(4):
        lane = i % size
        whole = (lane + 1) % size  # rotate(lane + 50, 1)
        pair = lane - lane % 2 + (lane + 1) % 2  # rotate(lane + 60, 1, cluster 2)
        rows.append([whole + 50, pair + 60])
    assert [cells[2 * i : 2 * i + 2] for i in range(4)] == rows


def _explicit(system) -> list[dict[int, int]]:
    """The kernel's LTS as tests/brute_scoped.py takes it: succ[state] = {unit: next}."""
    index, succ, todo = {system.initial: 0}, [{}], [system.initial]
    while todo:
        state = todo.pop()
        out = {}
        for unit, after in system.successors(state):
            if after not in index:
                index[after] = len(succ)
                succ.append({})
                todo.append(after)
            out[unit] = index[after]
        succ[index[state]] = out
    return succ


@pytest.mark.parametrize("models", [("fair", "fair", m) for m in ("unfair", "HSA", "OBE", "HSA+OBE", "LOBE", "fair")])
def test_a_wait_after_a_quad_swap_against_the_brute_force_oracle(models):
    """quad_wait.comp: lane 0 spins until lane 1 stores what the quad swap gave it;
    the scoped verdicts equal brute_scoped's witnesses (every subset of the product)."""
    system = _system(DATA / "quad_wait.comp")
    weak, strong = brute_scoped.witnesses(_explicit(system), list(system.groups), list(system.subgroups), models, 40)
    model = parse_models(["/".join(models)])[0]
    report = check_system(system, [Query(model, "weak"), Query(model, "strong")])
    assert [v.terminates for v in report.verdicts] == [not weak, not strong]
    assert not weak if models[2] in ("OBE", "HSA+OBE", "LOBE", "fair") else weak  # lane 1 arrived: it has started


def test_hlsl_wave_intrinsics_through_the_hlsl_compiler():
    """Through the HLSL compiler (Slang): WaveActiveSum is a Reduce,
    WavePrefixSum an exclusive scan (the sum over the lanes below), WaveIsFirstLane an elect."""
    assert _end(DATA / "wave_sum.hlsl", "hlsl") == [1001, 1010, 1030, 1060]


@pytest.mark.parametrize(
    "name, lines",
    [("non_uniform.comp", (":12 ", ":14 ")), ("barrier_mix.comp", (":10 ", ":12 "))],
)
def test_non_uniform_arrival_is_an_error_with_both_lines(name, lines):
    with pytest.raises(InputError) as error:
        check_system(_system(DATA / name), [Query(parse_models(["fair"])[0], "weak")])
    message = str(error.value)
    assert "non-uniform control flow" in message
    assert all(line in message for line in lines), message


def test_a_collective_step_shows_as_one_step_of_several_lanes():
    done = progress(  # in this process (tests/in_process.py)
        "check",
        KERNELS / "ballot_leader.comp",
        "-m",
        "fair/fair/HSA",
        "--weak",
        cwd=REPO,
    )
    assert done.returncode == 1, done.stderr
    assert "subgroupBallot" in done.stdout
    assert "performed for invocations 0, 1, 2, 3: one collective step" in done.stdout


def _verdicts(path: Path, models: list[str], fairnesses=("weak", "strong")) -> dict[str, list[bool | None]]:
    system = _system(path)
    out = {}
    for name in models:
        model = parse_models([name])[0]
        report = check_system(system, [Query(model, f) for f in fairnesses], witnesses=False)
        out[name] = [v.terminates for v in report.verdicts]
    return out


def test_warp_spinlock_deadlocks_under_lock_step_and_ends_under_fair_lanes():
    found = _verdicts(
        KERNELS / "warp_spinlock.comp",
        ["fair/fair/unfair", "fair/fair/HSA", "fair/fair/OBE", "fair/fair/LOBE", "fair/fair/fair"],
    )
    assert found == {
        "fair/fair/unfair": [False, False],
        "fair/fair/HSA": [False, False],
        "fair/fair/OBE": [True, True],
        "fair/fair/LOBE": [True, True],
        "fair/fair/fair": [True, True],
    }


def test_ballot_leader_lane_verdicts():
    found = _verdicts(KERNELS / "ballot_leader.comp", ["fair/fair/unfair", "fair/fair/HSA", "fair/fair/OBE"])
    assert found == {"fair/fair/unfair": [False, False], "fair/fair/HSA": [False, False], "fair/fair/OBE": [True, True]}


@pytest.mark.long
def test_subgroup_lookback_scans_and_survives_unfair_lanes():
    ends = terminal_memories(_system(KERNELS / "subgroup_lookback.comp"), None, 300)
    assert {tuple(v for name, v in end if name.startswith("prefixes")) for end in ends} == {(3, 6, 9)}
    assert _verdicts(KERNELS / "subgroup_lookback.comp", ["fair/fair/unfair"], ("weak",)) == {
        "fair/fair/unfair": [True]
    }


def test_subgroup_size_option_and_header():
    bad = progress(  # in this process (tests/in_process.py)
        "check",
        DATA / "ops.comp",
        "--subgroup-size",
        "0",
        cwd=REPO,
    )
    assert bad.returncode == 2 and "--subgroup-size" in bad.stderr
    assert _system(KERNELS / "warp_spinlock.comp").subgroup_size == 2
