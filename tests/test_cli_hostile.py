"""Hostile input, environment and output: every failure is exit 2 with one
line naming its cause, never a traceback, never exit 1 (a verdict: "may not
terminate") and never the last-resort status 70 (an internal error). And the
last-resort handler itself: an unexpected exception is exit 70 with a short
message saying where to report it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from progress.cli import main
from progress.errors import EXIT_INTERNAL

BIG = "9" * 5000  # past Python's 4300-digit int-string limit
TEST = "test t\nthread 0\n  AXB(x, 0, end, true, 1)\n"
MUTEX = Path(__file__).resolve().parents[1] / "litmus" / "paper" / "mutex.axb"
FILES = {
    "value.axb": f"thread 0\n  AXB(x, {BIG}, end, true, 1)\n",
    "target.axb": f"thread 0\n  AXB(x, 0, {BIG}, true, 1)\n",
    "thread.axb": f"thread {BIG}\n  AXB(x, 0, end, true, 1)\n",
    "init.axb": f"init x = {BIG}\nthread 0\n  AXB(x, 0, end, true, 1)\n",
    "value.txt": f"THREAD0\natomic_store(0, {BIG})\n",
    "location.txt": f"THREAD0\natomic_store({BIG}, 1)\n",
    "thread.txt": f"THREAD{BIG}\natomic_store(0, 1)\n",
    "target.txt": f"THREAD0\natomic_chk_branch(0, 1, {BIG})\n",
    "good.txt": "THREAD0\natomic_store(0, 1)\n",
    "good.axb": TEST,
    "results.csv": "test,plain\npaper/mutex.axb,P\n",
}


def run(*args, cwd, stdout=subprocess.PIPE):
    done = subprocess.run(
        [sys.executable, "-m", "progress", *map(str, args)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        timeout=60,
    )
    return done.returncode, done.stdout or "", done.stderr


def assert_refused(status: int, err: str, cause: str) -> None:
    assert status == 2, (status, err[-2000:])
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    assert cause in err, err[-2000:]


def in_process(args, cwd: Path, monkeypatch, capsys, stdout: str | None = None) -> tuple[int, str]:
    """main(ARGS) in this process (no interpreter start-up): (exit status, stderr)."""
    monkeypatch.chdir(cwd)
    with open(stdout or os.devnull, "w") as sink:
        monkeypatch.setattr(sys, "stdout", sink)
        with pytest.raises(SystemExit) as exit_info:
            main([str(arg) for arg in args])
    return exit_info.value.code, capsys.readouterr().err


@pytest.fixture()
def hostile(tmp_path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_huge_number_in_a_test_is_a_positioned_error_and_the_batch_goes_on(hostile, monkeypatch, capsys):
    names = ["value.axb", "target.axb", "thread.axb", "init.axb"]
    status, err = in_process(["check", *names, "good.axb", "-m", "OBE", "--weak"], hostile, monkeypatch, capsys, "o")
    assert_refused(status, err, "9999999999...(5000 digits)")
    assert all(f"{name}:" in err for name in names)
    assert "checked 1 test(s)" in (hostile / "o").read_text()


@pytest.mark.parametrize("name", ["value.txt", "location.txt", "thread.txt", "target.txt"])
def test_a_huge_number_in_an_artifact_file_is_a_positioned_error(hostile, name, monkeypatch, capsys):
    status, err = in_process(["import", name, "-o", "out"], hostile, monkeypatch, capsys)
    assert_refused(status, err, f"{name}:")
    assert "(5000 digits)" in err


COMMANDS = {
    "check": ["check", MUTEX],
    "check-batch": ["check", MUTEX.parent],
    "classify": ["classify", MUTEX.parent],
    "import": ["import", "good.txt"],
    "export": ["export", MUTEX],
    "export-promela": ["export", MUTEX, "--format", "promela", "--model", "OBE"],
    "show": ["show", MUTEX, "--model", "OBE", "--weak"],
    "show-dot": ["show", MUTEX, "--model", "OBE", "--weak", "--format", "dot"],
    "models": ["models"],
    "conform": ["conform", "results.csv", "--suite", MUTEX.parents[1]],
    "synth": ["synth", "-t", "2", "-i", "2", "--out", "s.db"],
    "help": ["--help"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_standard_output_on_a_full_disk_is_exit_2_for_every_command(hostile, command, monkeypatch, capsys):
    status, err = in_process(COMMANDS[command], hostile, monkeypatch, capsys, stdout="/dev/full")
    assert_refused(status, err, "error: cannot write standard output: No space left on device")
    assert err.count("cannot write standard output") == 1


def test_a_full_disk_found_only_at_exit_is_exit_2_in_a_real_process(hostile):
    # Small outputs stay buffered until the interpreter flushes at exit; main flushes first.
    with open("/dev/full", "w") as full:
        status, _, err = run("check", MUTEX, "--model", "OBE", "--weak", cwd=hostile, stdout=full)
    assert_refused(status, err, "error: cannot write standard output: No space left on device")
    assert "Exception ignored" not in err


@pytest.mark.parametrize(
    "command",
    [
        ["classify", MUTEX, "-o"],
        ["import", "good.txt", "-o"],
        ["export", MUTEX, "-o"],
        ["show", MUTEX, "--model", "OBE", "--weak", "-o"],
    ],
)
@pytest.mark.parametrize("target", ["/dev/full", "/proc/version"])  # /proc: read-only, even for root
def test_an_output_file_that_cannot_be_written_is_exit_2(hostile, command, target, monkeypatch, capsys):
    status, err = in_process([*command, target], hostile, monkeypatch, capsys)
    assert_refused(status, err, f"error: cannot write {target}:")


def test_synth_export_to_a_directory_that_cannot_be_made_is_exit_2(hostile):
    status, _, err = run("synth", "-t", "2", "-i", "2", "--out", "s.db", "--export", "/proc/no/such", cwd=hostile)
    assert_refused(status, err, "error: cannot make directory /proc/no/such")


def test_a_closed_pipe_is_exit_2_not_a_traceback(hostile):
    reader = subprocess.Popen(["head", "-c", "1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        status, _, err = run("check", MUTEX.parents[1], cwd=hostile, stdout=reader.stdin)
    finally:
        reader.stdin.close()
        reader.wait(timeout=10)
    assert status in (0, 2), err  # 0 when everything fit in the pipe before head left
    assert "Traceback" not in err and "Exception ignored" not in err
    if status == 2:
        assert "error: cannot write standard output: Broken pipe" in err


def test_a_fifo_does_not_hang_any_reader(hostile):
    os.mkfifo(hostile / "x.axb")
    for command in (["check", "x.axb"], ["classify", "x.axb", "good.axb"], ["export", "x.axb"]):
        status, _, err = run(*command, cwd=hostile)
        assert_refused(status, err, "not a regular file (a FIFO)")


def test_an_unexpected_exception_is_its_own_status_with_where_to_report(monkeypatch, capsys):
    import progress.cli.check as check_command

    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(check_command, "check_program", broken)
    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(MUTEX)])
    assert exit_info.value.code == EXIT_INTERNAL == 70
    err = capsys.readouterr().err
    assert "progress: internal error: ZeroDivisionError: division by zero" in err
    assert "this is a bug in progress, not a verdict (exit 70); please report it to" in err
    assert "Traceback" not in err
    monkeypatch.setenv("PROGRESS_DEBUG", "1")
    with pytest.raises(SystemExit):
        main(["check", str(MUTEX)])
    assert "Traceback" in capsys.readouterr().err


def test_ctrl_c_re_raised_as_another_error_is_an_interruption_not_a_crash(monkeypatch, capsys):
    """A KeyboardInterrupt inside a class body's __set_name__ (a lazy numba import mid-run)
    surfaces as a RuntimeError caused by it: still exit 130 'interrupted', never 70."""
    import progress.cli.check as check_command

    class Interrupting:
        def __set_name__(self, owner, name):
            raise KeyboardInterrupt

    def importing(*args, **kwargs):
        type("Lazy", (), {"attribute": Interrupting()})

    monkeypatch.setattr(check_command, "check_program", importing)
    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(MUTEX)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 130, err
    assert "interrupted" in err and "internal error" not in err


KERNEL = """// progress: --workgroups 2
#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Data { uint flag; uint data[]; };
void main() {
    data[gl_WorkGroupID.x] = 1u;
}
"""
HOSTILE_KERNELS = {
    "rejected.comp": "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {\n    uint x = nothing;\n}\n",
    "subgroup.comp": "#version 450\n#extension GL_ARB_shader_ballot : require\n"
    "layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer D { uint x; };\n"
    "void main() {\n    x = readFirstInvocationARB(1u);\n}\n",
    "image.comp": "#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0, r32ui) uniform uimage2D img;\n"
    "void main() {\n    imageStore(img, ivec2(0, 0), uvec4(1u));\n}\n",
    "oob.comp": "#version 450\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer D { uint d[2]; };\n"
    "void main() {\n    uint i = 2u;\n    d[i] = 1u;\n}\n",
    "empty.comp": "",
    "random.spv": "\x03\x02\x23\x07 not really SPIR-V at all",
}


@pytest.mark.parametrize(
    "options, cause",
    [
        (["--workgroups", "0"], "--workgroups '0' is outside 1..64"),
        (["--workgroups", str(10**9)], "--workgroups '1000000000' is outside 1..64"),
        (["--workgroups", BIG], "--workgroups '99999"),
        (["--workgroups", "-3"], "--workgroups wants a whole number"),
        (["--buffer", "data=-1"], "--buffer wants NAME=LENGTH, not 'data=-1'"),
        (["--buffer", "data=0"], "the length is outside 1..65536"),
        (["--buffer", "ghost=4"], "no runtime-sized array is called 'ghost' (Data, data)"),
        (["--buffer", "data=2", "--init", "data[2]=1"], "no shared memory cell is called 'data[2]'"),
        (["--buffer", "data=2", "--init", "ghost=1"], "no shared memory cell is called 'ghost'"),
        (["--buffer", "data=2", "--init", f"flag={2**32}"], "the value is not a 32-bit integer"),
        ([], "needs a length: --buffer data=LEN"),
        (["--buffer", "data=2", "--workgroups", "64", "--entry", "other"], "no entry point"),
    ],
)
def test_bad_kernel_launches_are_exit_2_with_the_reason(tmp_path, options, cause, monkeypatch, capsys):
    (tmp_path / "k.comp").write_text(KERNEL)
    status, err = in_process(["check", "k.comp", *options], tmp_path, monkeypatch, capsys)
    assert_refused(status, err, cause)


@pytest.mark.parametrize(
    "name, cause",
    [
        ("rejected.comp", "rejected.comp:4:"),
        ("subgroup.comp", "OpSubgroupFirstInvocationKHR: this subgroup operation is not supported"),
        ("image.comp", "image.comp:"),
        ("oob.comp", "oob.comp:6: OpAccessChain: index 2 is out of bounds"),
        ("empty.comp", "empty"),
        ("random.spv", "random.spv"),
    ],
)
def test_hostile_kernels_are_exit_2_with_the_reason(tmp_path, name, cause, monkeypatch, capsys):
    (tmp_path / name).write_text(HOSTILE_KERNELS[name])
    status, err = in_process(["check", name], tmp_path, monkeypatch, capsys)
    assert_refused(status, err, cause)


def test_a_hostile_kernel_does_not_stop_a_batch(tmp_path):
    (tmp_path / "oob.comp").write_text(HOSTILE_KERNELS["oob.comp"])
    status, out, err = run("check", "oob.comp", MUTEX, "--model", "OBE", "--weak", cwd=tmp_path)
    assert_refused(status, err, "index 2 is out of bounds")
    assert "mutex: OBE weak: guaranteed to terminate" in out and "1 file(s) with bad input" in out


MORE_HOSTILE_KERNELS = {
    # the launch in the file's own header, not on the command line: refused at the header's position
    "zero.comp": "// progress: --workgroups 0\n#version 450\nlayout(local_size_x = 1) in;\n"
    "layout(std430, binding = 0) buffer D { uint x; };\nvoid main() {\n    x = 1u;\n}\n",
    "billion.comp": "// progress: --workgroups 1000000000\n#version 450\nlayout(local_size_x = 1) in;\n"
    "layout(std430, binding = 0) buffer D { uint x; };\nvoid main() {\n    x = 1u;\n}\n",
    # an index out of range on one interleaving only: read from memory another workgroup writes
    "racy_index.comp": "// progress: --workgroups 2\n#version 450\nlayout(local_size_x = 1) in;\n"
    "layout(std430, binding = 0) buffer D { uint index; uint d[2]; };\nvoid main() {\n"
    "    if (gl_WorkGroupID.x == 0u) {\n        atomicExchange(index, 5u);\n    } else {\n"
    "        d[atomicOr(index, 0u)] = 1u;\n    }\n}\n",
    "wave.hlsl": "// progress: --workgroups 2 --buffer d=2\nRWStructuredBuffer<uint> d : register(u0);\n"
    "[numthreads(1, 1, 1)]\nvoid main(uint3 id : SV_GroupID) {\n    d[id.x] = QuadAny(id.x == 0u) ? 1u : 0u;\n}\n",
    "undeclared.comp": "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {\n"
    "    uint x = atomicExchange(nothing, 1u);\n}\n",
}


@pytest.mark.parametrize(
    "name, cause",
    [
        ("zero.comp", "zero.comp:1:27: error: --workgroups '0' is outside 1..64"),
        ("billion.comp", "billion.comp:1:27: error: --workgroups '1000000000' is outside 1..64"),
        ("racy_index.comp", "racy_index.comp:9: OpAccessChain: index 5 is out of bounds of an array of length 2"),
        ("wave.hlsl", "wave.hlsl:5:5: error: OpGroupNonUniformQuadAnyKHR: this subgroup operation is not supported"),
        ("undeclared.comp", "undeclared.comp:4:29: error: 'nothing' : undeclared identifier"),
    ],
)
def test_hostile_kernel_files_are_exit_2_with_a_position(tmp_path, name, cause):
    """Through the console script, as users run it: never a verdict, a traceback, 1 or 70."""
    (tmp_path / name).write_text(MORE_HOSTILE_KERNELS[name])
    status, out, err = run("check", name, cwd=tmp_path)
    assert_refused(status, err + out, cause)
    assert (
        "guaranteed to terminate" not in out.split("checked")[0] and "may not terminate" not in out.split("checked")[0]
    )


def test_export_glsl_of_bad_input_writes_nothing(tmp_path):
    (tmp_path / "empty.axb").write_text("thread 0\n")
    status, out, err = run("export", "--format", "glsl", "empty.axb", "-o", "empty.comp", cwd=tmp_path)
    assert_refused(status, err, "empty.axb:1:8: error: thread 0 is empty")
    assert not (tmp_path / "empty.comp").exists()
