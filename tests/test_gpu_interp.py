"""The interpreter's encoding and packing as pure functions, and `progress run --codegen interp`
end to end on a reference interpreter in Python (tests/interp_sim.py).

The CUDA kernel itself runs on the device (tests/test_gpu_cuda_interp.py,
results in docs/results/gpu/interp/)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NamedTuple

import click
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from progress.back import interp_cuda
from progress.back.interp_layout import MAX_LENGTH, MAX_LOCATIONS, MAX_VALUE
from progress.core.program import Instr, Program
from progress.errors import ProgressError
from progress.front.axb.parse import parse_program
from progress.gpu import heuristics
from progress.gpu import pack as packing
from progress.gpu.encode import EncodeError, encode, fields, word
from progress.gpu.packed import STOP_EARLY_RULE, plan, run_packed
from progress.gpu.runner import Settings

sys.path.insert(0, str(Path(__file__).parent))
from interp_sim import SimInterp  # noqa: E402

REPO = Path(__file__).parent.parent
SUITE = REPO / "litmus" / "oopsla21"
DATA = Path(__file__).parent / "data" / "gpu"


@given(
    st.integers(0, MAX_LOCATIONS - 1),
    st.integers(0, MAX_LENGTH),
    st.booleans(),
    st.integers(0, MAX_VALUE),
    st.integers(0, MAX_VALUE),
)
def test_word_round_trip(loc, target, xchg, cmp, val):
    packed = word(loc, target, xchg, cmp, val)
    assert 0 <= packed < 2**32
    assert fields(packed) == (loc, target, xchg, cmp, val)


def test_every_suite_test_encodes_to_its_instructions():
    files = sorted(SUITE.rglob("*.axb"))
    assert len(files) == 483
    for path in files:
        program = parse_program(path.read_text(), path.name)
        encoded = encode(program)
        cells = {loc: i for i, loc in enumerate(program.locations)}
        assert encoded.lengths == tuple(len(t) for t in program.threads)
        for t, thread in enumerate(program.threads):
            for i, ins in enumerate(thread):
                got = fields(encoded.words[encoded.starts[t] + i])
                assert got == (cells[ins.loc], ins.target, ins.xchg, ins.cmp, ins.val)


def _program(threads, init=()):
    return Program("t", tuple(tuple(thread) for thread in threads), tuple(init))


def test_refusals_name_the_instruction():
    with pytest.raises(EncodeError, match="val 256") as caught:
        encode(_program([[Instr("x", 0, 1, True, 0), Instr("x", 0, 2, True, MAX_VALUE + 1)]]))
    assert (caught.value.thread, caught.value.index) == (0, 1)
    with pytest.raises(EncodeError, match="cmp 300"):
        encode(_program([[Instr("x", 300, 0, False, 0)]]))
    long = [Instr("x", 0, i + 1, True, 0) for i in range(MAX_LENGTH + 1)]
    with pytest.raises(EncodeError, match="256 instructions"):
        encode(_program([long]))
    many = [Instr(f"x{i}", 0, i + 1, True, 0) for i in range(MAX_LOCATIONS + 1)]
    with pytest.raises(EncodeError, match="129 locations"):
        encode(_program([many]))
    # the largest test the encoding holds is accepted
    assert encode(_program([[Instr("x", MAX_VALUE, MAX_LENGTH, True, MAX_VALUE)] * MAX_LENGTH]))


def test_initial_memory_is_encoded():
    encoded = encode(_program([[Instr("x", 0, 1, True, 1)], [Instr("y", 7, 1, False, 0)]], [("y", 7)]))
    assert encoded.cells == (0, 7)


@given(
    st.sampled_from(heuristics.HEURISTICS),
    st.integers(1, 4),
    st.integers(1, 6),
    st.integers(1, 5),
    st.sampled_from(["", *packing.LAYOUT_CODES]),
)
def test_packing_is_a_bijection_keeping_each_tests_own_order(heuristic, threads, instances, tests, layout):
    m = 1 if heuristic == "plain" else instances
    pack = packing.Pack(heuristic, threads, m, tests, layout)
    assert pack.layout == (layout or packing.LAYOUTS[heuristic])
    launch = heuristics.geometry(heuristic, threads, m)
    seen = [packing.slot(pack, g) for g in range(pack.workgroups)]
    assert sorted(seen) == sorted({(k, i, t) for k in range(tests) for i in range(m) for t in range(threads)})
    for g, (k, i, t) in enumerate(seen):
        assert packing.workgroup_of(pack, k, i, t) == g
        # inside test k, the heuristic's own placement, in its own order
        local = g % launch.workgroups if pack.layout == "concat" else g // tests
        assert heuristics.slot(launch, local) == (i, t)
        assert k == (g // launch.workgroups if pack.layout == "concat" else g % tests)
    for k in range(tests):
        own = [(i, t) for kk, i, t in seen if kk == k]
        assert own == [heuristics.slot(launch, w) for w in range(launch.workgroups)]


def test_pack_layouts_default_per_heuristic_and_refuse_unknown_ones():
    assert [packing.Pack(h, 2, 1, 3).layout for h in ("plain", "rr", "chunked")] == ["concat", "concat", "interleave"]
    assert set(packing.CPU_LAYOUTS.values()) == {"concat"}
    with pytest.raises(ValueError, match="unknown pack layout 'spread'"):
        packing.Pack("rr", 2, 1, 3, "spread")


def test_batches_group_equal_thread_counts_within_the_limit():
    assert packing.batches([2, 2, 2, 3, 3, 2], lambda n: 10 * n, 45) == [
        range(0, 2),
        range(2, 3),
        range(3, 4),
        range(4, 5),
        range(5, 6),
    ]
    assert packing.batches([2] * 5, lambda n: 10, 100) == [range(0, 5)]
    with pytest.raises(ValueError, match="more than the 5"):
        packing.batches([2], lambda n: 10, 5)


def test_buffers_place_each_instance():
    a = encode(_program([[Instr("x", 0, 1, True, 1)], [Instr("x", 1, 1, False, 0)]], [("x", 3)]))
    b = encode(_program([[Instr("x", 0, 1, True, 1), Instr("y", 0, 2, True, 1)], [Instr("y", 1, 0, False, 0)]]))
    got = packing.buffers([a, b], 3)
    assert got.cells.tolist() == [1, 2]
    assert got.bases.tolist() == [0, 3]
    assert got.memory.tolist() == [3, 3, 3, 0, 0, 0, 0, 0, 0]
    assert got.starts.tolist() == [0, 1, 2, 4]
    assert got.lengths.tolist() == [1, 1, 2, 1]


def test_kernel_decodes_the_layout():
    source = interp_cuda.module()
    assert "progress_interp" in source and "((word >> 7u) & 255u)" in source
    assert "progress_now() > limit" in source  # every backward jump checks the deadline


def _words(names):
    return [encode(parse_program((DATA / n).read_text(), n)) for n in names]


def test_run_packed_on_the_reference_interpreter():
    settings = Settings(heuristics.HEURISTICS, iterations=3)
    sim = SimInterp()
    got = {(i, h): o for i, h, o in run_packed(sim, _words(["pc_decreasing.axb", "pc_increasing.axb"]), settings, 64)}
    # in-order, run-to-completion: the consumer before its producer waits forever
    assert got[0, "plain"].failed_instances == (1, 1, 1)
    assert got[0, "chunked"].failed_instances == (4, 4, 4)
    assert [got[1, h].failed_iterations for h in heuristics.HEURISTICS] == [0, 0, 0]
    assert got[0, "rr"].launch == heuristics.geometry("rr", 2, 4)


def test_pack_one_runs_every_test_in_its_own_launch():
    settings = Settings(heuristics.HEURISTICS, iterations=2)
    words = _words(["pc_decreasing.axb", "pc_increasing.axb", "pc_increasing.axb"])
    assert [list(b) for b in plan(SimInterp(), words, settings, 1)] == [[0], [1], [2]]
    assert [len(b) for b in plan(SimInterp(), words, settings, 64)] == [3]
    alone = {(i, h): o.failed_instances for i, h, o in run_packed(SimInterp(), words, settings, 1)}
    packed = {(i, h): o.failed_instances for i, h, o in run_packed(SimInterp(), words, settings, 64)}
    assert alone == packed  # the in-order reference: packing changes nothing it can see


class Flaky(SimInterp):
    """Fails test 0 in every other launch."""

    def launch(self, loaded, iterations, deadline_s, active):
        rows = super().launch(loaded, iterations, deadline_s, active)
        return [[(self.launches % 2) if k == 0 else c for k, c in enumerate(row)] for row in rows]


def test_stop_early_stops_only_once_a_test_both_passed_and_failed():
    settings = Settings(("rr",), iterations=6)
    words = _words(["pc_increasing.axb", "pc_increasing.axb", "pc_decreasing.axb"])
    got = {i: o for i, _, o in run_packed(Flaky(), words, settings, 64, stop_early=True)}
    assert got[0].failed_instances == (1, 0)  # F (1/2): nondeterministic after two
    assert got[1].iterations == 6 and got[1].failed_iterations == 0  # P runs all
    assert got[2].iterations == 6 and got[2].failed_iterations == 6  # deterministic F runs all
    assert "cannot make it P or F (N/N)" in STOP_EARLY_RULE


class Ran(NamedTuple):
    exit_code: int
    output: str


@pytest.fixture
def cli(monkeypatch):
    """`progress run` with `--backend sim`: the reference interpreter."""
    import progress.cli.run as run

    monkeypatch.setitem(run.INTERPRETERS, "sim", "interp_sim:SimInterp")
    monkeypatch.setitem(run.BACKENDS, "sim", "interp_sim:SimInterp")
    monkeypatch.setattr(run, "DEFAULT_INTERP", {"cuda", "sim"})
    for param in run.run.params:
        if param.name == "backend":
            monkeypatch.setattr(param, "type", click.Choice(list(run.BACKENDS)))

    def invoke(*args):
        result = CliRunner().invoke(run.run, [*args, "--backend", "sim"])
        error = result.exception
        if isinstance(error, ProgressError):  # what the CLI's catch site does with it
            return Ran(error.exit_code, result.output + error.render())
        assert error is None or isinstance(error, SystemExit), repr(error)
        return Ran(result.exit_code, result.output)

    return invoke


def test_cli_interp_rows_metadata_and_determinism(cli, tmp_path):
    outs = []
    for name in ("a", "b"):
        result = cli(str(DATA), "--iterations", "2", "--stop-early", "-o", str(tmp_path / f"{name}.csv"))
        assert result.exit_code == 0, result.output
        outs.append((tmp_path / f"{name}.csv").read_bytes())
    assert outs[0] == outs[1]
    assert outs[0].decode().splitlines() == [
        "test,plain,rr,chunked",
        "pc_decreasing.axb,F (2/2),F (2/2),F (2/2)",
        "pc_increasing.axb,P,P,P",
    ]
    meta = json.loads((tmp_path / "a.json").read_text())
    assert meta["codegen"] == "interp" and meta["stop_early"] is True and meta["complete"] is True
    assert meta["stop_early_rule"] == STOP_EARLY_RULE
    assert "tests/s" in result.output


def test_cli_keys_runs_a_synthesized_suite_without_files(cli, tmp_path):
    keys = REPO / "docs" / "results" / "suites" / "2t4i_l3.keys.gz"
    result = cli("--keys", str(keys), "--iterations", "1", "--heuristics", "plain", "-o", str(tmp_path / "k.csv"))
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "k.csv").read_text().splitlines()
    assert lines[0] == "test,plain" and lines[1].startswith("2t4i/0.axb,")
    assert json.loads((tmp_path / "k.json").read_text())["inputs"].startswith("keys:")


@pytest.mark.parametrize(
    "data",
    [b"", b"not a keys file at all", b"\x1f\x8b\x08\x00garbage", b'{"format": "progress-synth-keys"}\n'],
)
def test_cli_refuses_damaged_or_foreign_keys_files(cli, tmp_path, data):
    keys = tmp_path / "bad.keys.gz"
    keys.write_bytes(data)
    result = cli("--keys", str(keys), "-o", str(tmp_path / "k.csv"))
    assert result.exit_code == 2, result.output
    assert "bad.keys.gz" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "k.csv").exists()


def test_cli_refuses_truncated_keys_file(cli, tmp_path):
    import gzip

    whole = gzip.decompress((REPO / "docs/results/suites/2t4i_l3.keys.gz").read_bytes())
    keys = tmp_path / "cut.keys.gz"
    keys.write_bytes(gzip.compress(whole[: len(whole) // 2]))
    result = cli("--keys", str(keys), "-o", str(tmp_path / "k.csv"))
    assert result.exit_code == 2 and "truncated" in result.output, result.output


def test_cli_refuses_a_test_the_encoding_cannot_hold(cli, tmp_path):
    test = tmp_path / "big.axb"
    test.write_text("thread 0\n  AXB(x, 0, end, true, 300)\nthread 1\n  AXB(x, 1, 0, false, 0)\n")
    result = cli(str(test), "-o", str(tmp_path / "r.csv"))
    assert result.exit_code == 2, result.output
    assert "big.axb:2:3" in result.output and "val 300" in result.output and "--codegen per-test" in result.output
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pack", "0"], "--pack takes auto"),
        (["--pack", "99999999999999"], "--pack takes auto"),
        (["--pack", "4194304"], "launches at most 1048576"),
        (["--pack", "5"], "one 2-thread test needs 8 workgroups"),
        (["--codegen", "per-test", "--stop-early"], "--stop-early needs --codegen interp"),
        (["--keys", "x.keys.gz"], "give PATHS or --keys"),
    ],
)
def test_cli_refuses_packing_beyond_the_device(cli, tmp_path, args, message):
    result = cli(str(DATA), *args, "-o", str(tmp_path / "r.csv"))
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_cli_resume_after_a_kill_mid_row(cli, tmp_path):
    out = tmp_path / "r.csv"
    assert cli(str(DATA), "--iterations", "2", "-o", str(out)).exit_code == 0
    whole = out.read_text()
    # killed while writing the second row: half of it reached the disk
    out.write_text(whole[: whole.index("pc_increasing") + 8])
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    (tmp_path / "r.jsonl").write_text("\n".join(lines[:3]) + "\n")
    result = cli(str(DATA), "--iterations", "2", "-o", str(out), "--resume")
    assert result.exit_code == 0, result.output
    assert out.read_text() == whole
    other = cli(str(DATA), "--iterations", "3", "-o", str(out), "--resume")
    assert other.exit_code == 2 and "iterations=2 (not 3)" in other.output
    other = cli(str(DATA), "--iterations", "2", "--codegen", "per-test", "-o", str(out), "--resume")
    assert other.exit_code == 2


def test_conform_keys_verdicts_are_the_checkers(tmp_path):
    """`conform --keys` reads the synthesizer's verdicts; they agree with the checker's on the tests."""
    from progress.cli.conform import keyed_verdicts
    from progress.core.analyze import check_program, queries_for
    from progress.core.registry import all_models
    from progress.synth.canonical import to_program
    from progress.synth.keys import open_keys

    keys = REPO / "docs" / "results" / "suites" / "3t5i.keys.gz"
    with open_keys(keys) as opened:
        sample = [c for _, (c, _) in zip(range(0, 30), opened.tests())]
    rows = {f"3t5i/{n}.axb": {"plain": "P"} for n in range(30)}
    verdicts, missing = keyed_verdicts(keys, rows)
    assert not missing and len(verdicts) == 30
    queries = queries_for(all_models())
    for n, candidate in enumerate(sample):
        checked = check_program(to_program(candidate), queries, witnesses=False).verdicts
        assert {(v.model, v.fairness, v.terminates) for v in checked} == {
            (v.model, v.fairness, v.terminates) for v in verdicts[f"3t5i/{n}.axb"]
        }


def test_conform_wants_suite_or_keys(tmp_path, capsys):
    from progress.cli import main

    results = tmp_path / "r.csv"
    results.write_text("test,plain\n3t5i/0.axb,P\n")
    keys = REPO / "docs" / "results" / "suites" / "3t5i.keys.gz"
    for args in ([], ["--keys", str(keys), "--suite", str(tmp_path)]):
        with pytest.raises(SystemExit) as stopped:
            main(["conform", str(results), *args])
        assert stopped.value.code == 2
        assert "--suite DIR" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        main(["conform", str(results), "--keys", str(keys)])
    assert stopped.value.code in (0, None)
    assert "1 tests checked" in capsys.readouterr().out
