"""`progress run` and `conform` attacked: colliding keys, numeric options out of
range, overwriting and resuming the wrong results, signals, children that
outlive the run, outputs that cannot be written, long silent phases; and
`progress show` on an LTS too big for Graphviz.

Everything runs on the CPU backend (a C compiler is needed) with a private
cache under the test's temporary directory.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from progress.cli import main
from progress.front.axb.parse import parse_program
from progress.gpu.heuristics import MAX_LAUNCH
from progress.gpu.runner import Settings, check_launches, check_settings

DATA = Path(__file__).parent / "data" / "gpu"
needs_cc = pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None, reason="no C compiler")
SPIN_FOREVER = "test spin\nthread 0\n  AXB(x, 0, 0, false, 0)\nthread 1\n  AXB(y, 0, end, true, 1)\n"
FAST = ["--backend", "cpu", "--iterations", "1", "--deadline", "1s", "--instances", "1"]


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _main(*args) -> int:
    with pytest.raises(SystemExit) as exit_info:
        main([str(a) for a in args])
    return exit_info.value.code


def _suite(root: Path) -> Path:
    """Two directories holding different tests under the same name, 0.axb."""
    for sub, name in (("2t2i", "pc_increasing.axb"), ("3t3i", "pc_decreasing.axb")):
        (root / sub).mkdir(parents=True)
        shutil.copy(DATA / name, root / sub / "0.axb")
    return root


def _rows(path: Path) -> list[str]:
    return path.read_text().splitlines()


# -- class 2: every test named runs, under a key of its own ------------------------------------


@needs_cc
def test_two_directories_with_the_same_file_names_are_refused_not_half_run(tmp_path, capsys):
    suite = _suite(tmp_path / "s")
    out = tmp_path / "r.csv"
    assert _main("run", suite / "2t2i", suite / "3t3i", *FAST, "-o", out) == 2
    err = capsys.readouterr().err
    assert "two tests would have the key 0.axb" in err and "common directory" in err
    assert not out.exists()
    # the fix the message names: the common directory, whose keys differ
    assert _main("run", suite, *FAST, "-o", out) == 0
    assert _rows(out) == ["test,plain,rr,chunked", "2t2i/0.axb,P,P,P", "3t3i/0.axb,P,P,P"]


@needs_cc
def test_a_list_and_a_directory_colliding_are_refused_and_a_file_named_twice_runs_once(tmp_path, capsys):
    suite = _suite(tmp_path / "s")
    listing = tmp_path / "s" / "3t3i" / "tests.txt"
    listing.write_text("0.axb\n")
    assert _main("run", suite / "2t2i", f"@{listing}", *FAST, "-o", tmp_path / "x.csv") == 2
    assert "two tests would have the key 0.axb" in capsys.readouterr().err
    out = tmp_path / "once.csv"
    assert _main("run", suite, suite / "2t2i" / "0.axb", f"@{listing}", *FAST, "-o", out) == 0
    assert [row.split(",")[0] for row in _rows(out)] == ["test", "2t2i/0.axb", "3t3i/0.axb"]


def test_conform_refuses_a_key_that_names_different_tests_in_two_suites(tmp_path, capsys):
    suite = _suite(tmp_path / "s")
    table = tmp_path / "r.csv"
    table.write_text("test,plain\n0.axb,P\n")
    assert _main("conform", table, "--suite", suite / "2t2i", "--suite", suite / "3t3i") == 2
    err = capsys.readouterr().err
    assert "0.axb matches two different tests" in err and len(err.strip().splitlines()) == 1
    shutil.copy(suite / "2t2i" / "0.axb", suite / "3t3i" / "0.axb")  # the same test twice is no ambiguity
    assert _main("conform", table, "--suite", suite / "2t2i", "--suite", suite / "3t3i") == 0


# -- class 3: numeric options in range, or a usage error naming the range -------------------------


BAD_OPTIONS = [
    (["--instances", "4294967296"], "from 1 to 2147483647"),  # used to wrap to 0 workgroups: a P that never ran
    (["--instances", "2147483648"], "from 1 to 2147483647"),
    (["--instances", "0"], "from 1 to 2147483647"),
    (["--instances", "-3"], "from 1 to 2147483647"),
    (["--instances", "9" * 5000], "from 1 to 2147483647"),  # beyond Python's int-string limit
    (["--instances", "3000"], "the cpu backend launches at most 4096"),  # 2 threads x 3000 OS threads
    (["--iterations", "2147483648"], "1<=x<=2147483647"),
    (["--iterations", "0"], "1<=x<=2147483647"),
    (["--deadline", "inf"], "not a duration"),
    (["--deadline", "infs"], "not a duration"),
    (["--deadline", "nanms"], "not a duration"),
    (["--deadline", "1e400s"], "not a duration"),
    (["--deadline", "50"], "needs a unit: 50ms or 50s?"),  # the default is 50ms: a bare 50 is ambiguous
    (["--deadline", "0s"], "from 1us to 1h"),
    (["--deadline", "2h"], "from 1us to 1h"),
    (["--iterations", "200", "--deadline", "1h"], "more than a week"),  # the host guard's time-out must fit
]


@needs_cc
@pytest.mark.parametrize(
    ("args", "message"), BAD_OPTIONS, ids=lambda v: " ".join(v)[:40] if isinstance(v, list) else ""
)
def test_numeric_options_out_of_range_are_usage_errors(tmp_path, capsys, args, message):
    out = tmp_path / "r.csv"
    code = _main("run", DATA, "--backend", "cpu", "-o", out, *args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err
    assert not out.exists() and not (tmp_path / "cache").exists(), "refused before anything was compiled or written"


def test_the_launch_limit_of_every_backend_is_checked_before_running():
    from progress.gpu.cpu import CpuBackend
    from progress.gpu.cuda import CudaBackend

    program = parse_program(SPIN_FOREVER, "spin.axb")  # 2 threads
    assert CudaBackend.max_workgroups == MAX_LAUNCH == 2**31 - 1
    cuda = CudaBackend.__new__(CudaBackend)  # no GPU needed: only the limit and auto are used
    check_launches(cuda, [program], Settings(instances=(2**31 - 1) // 2))
    with pytest.raises(ValueError, match="needs 2147483648 workgroups; the cuda backend launches at most 2147483647"):
        check_launches(cuda, [program], Settings(instances=2**30))
    cpu = CpuBackend.__new__(CpuBackend)
    check_launches(cpu, [program], Settings(instances=2048))
    with pytest.raises(ValueError, match="at most 2048 for it"):
        check_launches(cpu, [program], Settings(instances=2049))


def test_settings_fit_the_generated_codes_types():
    check_settings(Settings(iterations=2**31 - 1, deadline_s=1e-6, instances=2**31 - 1))
    for bad in (
        Settings(iterations=2**31),
        Settings(instances=0),
        Settings(instances=2**31),
        Settings(deadline_s=float("inf")),
        Settings(deadline_s=float("nan")),
        Settings(iterations=1000, deadline_s=3600.0),
    ):
        with pytest.raises(ValueError):
            check_settings(bad)


# -- class 4: results are never lost or mixed ---------------------------------------------------


@needs_cc
def test_an_existing_results_file_is_not_overwritten_without_force(tmp_path, capsys):
    out = tmp_path / "r.csv"
    out.write_text("precious\n")
    assert _main("run", DATA, *FAST, "-o", out) == 2
    assert "r.csv exists: pass --resume to continue that run, --force to overwrite it" in capsys.readouterr().err
    assert out.read_text() == "precious\n"
    assert _main("run", DATA, *FAST, "-o", out, "--resume", "--force") == 2
    assert _main("run", DATA, *FAST, "-o", out, "--force") == 0
    assert _rows(out)[0] == "test,plain,rr,chunked"


@needs_cc
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--iterations", "2"], "iterations=1 (not 2)"),
        (["--deadline", "2s"], "deadline_s=1.0 (not 2.0)"),
        (["--instances", "2"], "instances=1 (not 2)"),
        (["--heuristics", "plain"], "CSV heuristics plain,rr,chunked (not plain)"),
        (["OTHER"], "inputs="),
    ],
)
def test_resume_refuses_a_csv_written_for_other_inputs_or_options(tmp_path, capsys, change, message):
    out = tmp_path / "r.csv"
    assert _main("run", DATA, *FAST, "-o", out) == 0
    first = out.read_bytes()
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(DATA / "pc_increasing.axb", other / "pc_increasing.axb")
    paths = [other] if change == ["OTHER"] else [DATA]
    options = [] if change == ["OTHER"] else change
    capsys.readouterr()
    assert _main("run", *paths, *FAST, *options, "-o", out, "--resume") == 2
    err = capsys.readouterr().err
    assert f"--resume: {out} holds another run" in err and message in err
    assert out.read_bytes() == first
    assert _main("run", DATA, *FAST, "-o", out, "--resume") == 0  # the same run resumes
    assert out.read_bytes() == first


@needs_cc
def test_only_runs_the_listed_tests_and_refuses_a_key_that_names_none(tmp_path, capsys):
    suite = _suite(tmp_path / "s")
    out = tmp_path / "r.csv"
    listed = tmp_path / "failed.txt"
    listed.write_text("# the failures of an earlier run\n\n3t3i/0.axb  # pc_decreasing\n")
    assert _main("run", suite, *FAST, "--only", listed, "-o", out) == 0
    assert _rows(out) == ["test,plain,rr,chunked", "3t3i/0.axb,P,P,P"]
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["tests"] == 1 and meta["only"] == str(listed)
    first = out.read_bytes()
    capsys.readouterr()
    # another selection is another run: --resume refuses it, and the CSV is untouched
    listed.write_text("2t2i/0.axb\n3t3i/0.axb\n")
    assert _main("run", suite, *FAST, "--only", listed, "-o", out, "--resume") == 2
    assert "holds another run" in capsys.readouterr().err and out.read_bytes() == first
    # a key that names no test: exit 2 at its line, nothing written
    listed.write_text("2t2i/0.axb\n2t2i/nope.axb\n")
    assert _main("run", suite, *FAST, "--only", listed, "-o", tmp_path / "x.csv") == 2
    err = capsys.readouterr().err
    assert f"{listed}:2:1" in err and "no test has the key '2t2i/nope.axb'" in err
    assert not (tmp_path / "x.csv").exists()
    listed.write_text("# nothing\n")
    assert _main("run", suite, *FAST, "--only", listed, "-o", tmp_path / "x.csv") == 2
    assert "names no test" in capsys.readouterr().err


@needs_cc
def test_resume_without_the_runs_metadata_is_refused(tmp_path, capsys):
    out = tmp_path / "r.csv"
    out.write_text("test,plain,rr,chunked\npc_decreasing.axb,P,P,P\n")
    assert _main("run", DATA, *FAST, "-o", out, "--resume") == 2
    assert "cannot tell which run wrote" in capsys.readouterr().err


def _progress_run(tmp_path: Path, out: Path) -> subprocess.Popen:
    spin = tmp_path / "spin.axb"
    spin.write_text(SPIN_FOREVER)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "progress", "run", str(spin), "--backend", "cpu", "--heuristics", "plain"]
    argv += ["--iterations", "1", "--instances", "1", "--deadline", "1h", "-o", str(out)]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _test_child(parent: int, cache: Path, timeout: float = 60.0) -> int:
    """The pid of the compiled test `parent` started (waits for it)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and _ppid(int(entry.name)) == parent:
                try:
                    exe = os.readlink(entry / "exe")
                except OSError:
                    continue
                if exe.startswith(str(cache)):
                    return int(entry.name)
        time.sleep(0.05)
    raise AssertionError("the run never started its test program")


def _ppid(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie no longer runs


def _gone_within(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


@needs_cc
@linux_only
def test_sigkill_of_progress_run_kills_the_spinning_test_program(tmp_path):
    run = _progress_run(tmp_path, tmp_path / "r.csv")
    try:
        child = _test_child(run.pid, tmp_path / "cache")
        run.kill()
        run.wait(timeout=30)
        assert _gone_within(child, 10), "the test program outlived a SIGKILLed progress run (deadline: 1 hour)"
    finally:
        run.kill()
        run.communicate()


@needs_cc
@linux_only
@pytest.mark.parametrize(
    ("sig", "status", "word"), [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")]
)
def test_sigterm_and_sigint_stop_the_run_keep_the_header_and_kill_the_child(tmp_path, sig, status, word):
    out = tmp_path / "r.csv"
    run = _progress_run(tmp_path, out)
    try:
        child = _test_child(run.pid, tmp_path / "cache")
        run.send_signal(sig)
        _, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == status, err
    assert err.strip().splitlines()[-1] == word
    assert out.read_text() == "test,plain\n"
    assert json.loads(out.with_suffix(".json").read_text())["complete"] is False
    assert _gone_within(child, 10)


@needs_cc
@linux_only
def test_a_test_program_whose_parent_is_already_gone_exits_at_once(tmp_path):
    from progress.gpu.cpu import CpuBackend

    engine = CpuBackend(cache_dir=tmp_path / "cc")
    engine.prepare([parse_program(SPIN_FOREVER, "spin.axb")])
    argv = engine.command(
        0, __import__("progress.gpu.heuristics", fromlist=["geometry"]).geometry("plain", 2, 1), 1, 3600
    )
    done = subprocess.run(argv, env={**os.environ, "PROGRESS_PARENT_PID": "1"}, timeout=30, capture_output=True)
    assert done.returncode == 4


# -- outputs that cannot be written: exit 2, one line ------------------------------------------------


def _limited_output():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))  # a disk that fills after 64 bytes


@needs_cc
def test_run_on_a_full_disk_is_a_usage_error(tmp_path):
    out = tmp_path / "r.csv"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "progress", "run", str(DATA), *FAST, "-o", str(out)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, preexec_fn=_limited_output)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: cannot write the compile cache {tmp_path}/cache/progress/cpu: File too large"
    )
    assert subprocess.run(argv[:-1] + [str(tmp_path / "fill.csv")], env=env, timeout=120).returncode == 0
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, preexec_fn=_limited_output)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"error: cannot write {out.with_suffix('.json')}: File too large"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize(
    "command",
    [
        ["show", str(DATA / "pc_increasing.axb"), "-m", "HSA"],
        ["show", str(DATA / "pc_increasing.axb"), "-m", "HSA", "--format", "dot", "-o", "/dev/full"],
        ["conform", "RESULTS", "--suite", str(DATA)],
    ],
)
def test_show_and_conform_writing_to_dev_full_are_usage_errors(tmp_path, command):
    table = tmp_path / "r.csv"
    table.write_text("test,plain\npc_increasing.axb,P\n")
    argv = [sys.executable, "-m", "progress", *[str(table) if c == "RESULTS" else c for c in command]]
    with open("/dev/full", "w") as full:
        done = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "No space left on device" in done.stderr


# -- class 5: long operations show progress and respect limits -----------------------------------------


@needs_cc
def test_compiling_reports_progress_per_test(tmp_path, capsys):
    from progress.gpu.cpu import CpuBackend

    engine = CpuBackend(cache_dir=tmp_path / "cc")
    programs = [parse_program((DATA / n).read_text(), n) for n in ("pc_increasing.axb", "pc_decreasing.axb")]
    programs.append(parse_program(SPIN_FOREVER, "spin.axb"))
    seen: list[int] = []
    engine.prepare(programs, progress=seen.append)
    assert seen == [1, 2, 3]
    assert [p.name for p in engine.programs] == ["pc_increasing", "pc_decreasing", "spin"]
    assert len(set(engine.executables)) == 3  # in the programs' order, whatever finished first
    assert _main("run", DATA, *FAST, "-o", tmp_path / "r.csv") == 0
    assert "compiling 2 tests" in capsys.readouterr().err


def _big_lts(path: Path) -> Path:
    """4 independent threads of 8 steps: 9^4 = 6561 states."""
    lines = ["test big"]
    for t in range(4):
        lines.append(f"thread {t}")
        lines += [f"  AXB(x{t}, 0, {i + 1 if i < 7 else 'end'}, true, {i % 2})" for i in range(8)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_show_refuses_to_hand_graphviz_a_huge_lts(tmp_path, capsys, fmt):
    big = _big_lts(tmp_path / "big.axb")
    started = time.monotonic()
    assert _main("show", big, "-m", "HSA", "-o", tmp_path / f"big.{fmt}") == 2
    assert time.monotonic() - started < 30
    err = capsys.readouterr().err
    assert "6561 states, more than --max-draw 1000" in err and "--format text or dot" in err
    assert not (tmp_path / f"big.{fmt}").exists()
    assert _main("show", big, "-m", "HSA", "--format", "dot", "-o", tmp_path / "big.dot") == 0  # DOT at any size
    assert (tmp_path / "big.dot").read_text().count("[label=") >= 6561


@needs_cc
def test_test_names_are_shown_literally_in_the_progress_bar(tmp_path, capsys):
    suite = tmp_path / "m"
    (suite / "x[").mkdir(parents=True)
    shutil.copy(DATA / "pc_increasing.axb", suite / "x[" / "]a.axb")  # key x[/]a.axb: rich markup that closes nothing
    shutil.copy(DATA / "pc_decreasing.axb", suite / "\x1b[31mred.axb")
    out = tmp_path / "r.csv"
    assert _main("run", suite, *FAST, "-o", out) == 0
    assert sorted(_rows(out)[1:]) == ["\x1b[31mred.axb,P,P,P", "x[/]a.axb,P,P,P"]  # the CSV keeps the keys as they are
    err = capsys.readouterr().err
    assert "\x1b[31m" not in err and "x[/]a.axb" in err


@needs_cc
def test_an_output_that_cannot_be_opened_is_named_in_one_line(tmp_path, capsys):
    out = tmp_path / "r.csv"
    (tmp_path / "r.jsonl").mkdir()  # the detail file's place is taken
    assert _main("run", DATA, *FAST, "-o", out) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"error: cannot write {tmp_path / 'r.jsonl'}: Is a directory"
    (tmp_path / "file.csv").write_text("")  # a file where a directory must be
    assert _main("run", DATA, *FAST, "-o", tmp_path / "file.csv" / "r.csv") == 2
    assert "cannot make directory" in capsys.readouterr().err


def test_sigterm_to_a_command_that_handles_interrupts_itself_exits_143(monkeypatch, capsys):
    """`progress synth` catches KeyboardInterrupt, commits, and exits 130 itself;
    under SIGTERM the status must still say SIGTERM."""
    import progress.cli as cli_module

    def handles_its_interrupts(**kwargs):
        cli_module._accept_interrupts()  # as loading the command does: SIGTERM now raises
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        except KeyboardInterrupt:
            print("interrupted: covered 3 of 7 units; continue with --resume", file=sys.stderr)
            raise SystemExit(130) from None

    monkeypatch.setattr(cli_module.cli, "main", handles_its_interrupts)
    assert _main("synth") == 143
    monkeypatch.setattr(cli_module.cli, "main", lambda **kwargs: os.kill(os.getpid(), signal.SIGINT) or time.sleep(5))
    assert _main("synth") == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "interrupted"
    assert signal.getsignal(signal.SIGTERM) is not cli_module._terminate  # the handler is main's only


@needs_cc
@pytest.mark.parametrize("companion", [".json", ".jsonl"])
def test_a_planted_companion_file_or_symlink_is_not_written_through(tmp_path, capsys, companion):
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    out = tmp_path / "shared" / "r.csv"
    out.parent.mkdir()
    out.with_suffix(companion).symlink_to(victim)  # another user's plant beside the results
    assert _main("run", DATA, *FAST, "-o", out) == 2
    assert f"{out.with_suffix(companion)} exists" in capsys.readouterr().err
    assert victim.read_text() == "keep me\n" and not out.exists()
