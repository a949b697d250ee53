"""Ctrl-C at any moment of a cold start (issue 33): exit 130, one line, no
traceback, and a store and numba cache that the next run uses.

One Ctrl-C here, inside the cold compile of one entry point (the suite's
time); benchmarks/ctrl_c_cold.py spreads more of them over a wholly cold
start (docs/results/ctrl_c.md).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from conftest import default_sigint, file_tree


def progress_with(command: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """`progress demo` where demo is `command` (a click command's body, in a script), to exit."""
    script = tmp_path / "demo.py"
    script.write_text(
        "import sys, time\nimport click\nfrom progress import cli\n\n"
        "@click.command()\ndef demo():\n"
        + textwrap.indent(textwrap.dedent(command), "    ")
        + "\n\ncli.COMMANDS['demo'] = '__main__:demo'\nsys.argv = ['progress', 'demo']\ncli.main()\n"
    )
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, preexec_fn=default_sigint
    )


def test_a_half_built_llvm_object_prints_nothing(tmp_path):
    """What Ctrl-C leaves when it cuts llvmlite's PipelineTuningOptions.__init__
    short (numba compiling) printed `AttributeError: 'PipelineTuningOptions'
    object has no attribute '_as_parameter_'` from its finalizer when it was
    collected."""
    done = progress_with(
        """
        from llvmlite.binding.newpassmanagers import PipelineTuningOptions
        global kept
        kept = object.__new__(PipelineTuningOptions)  # finalized at exit
        dropped = object.__new__(PipelineTuningOptions)
        dropped.cycle = dropped
        del dropped
        import gc
        gc.collect()  # as Python collects now and then: the finalizer runs mid-run
        raise KeyboardInterrupt
        """,
        tmp_path,
    )
    assert (done.returncode, done.stderr.strip()) == (130, "interrupted")


def test_another_finalizers_error_is_still_printed(tmp_path):
    done = progress_with(
        """
        class Broken:
            def __del__(self):
                raise ValueError("a real bug")
        Broken()
        """,
        tmp_path,
    )
    assert done.returncode == 0 and "ValueError: a real bug" in done.stderr


def test_ctrl_c_inside_a_finalizer_still_stops_the_run(tmp_path):
    """Python drops an exception raised in a finalizer, so Ctrl-C whose
    handler ran there was lost and the run went on; it is delivered again."""
    done = progress_with(
        """
        class Finalized:
            def __del__(self):
                raise KeyboardInterrupt  # as when SIGINT's handler runs in a finalizer
        Finalized()
        started = time.monotonic()
        while time.monotonic() - started < 20:
            time.sleep(0.01)
        print("not interrupted")
        """,
        tmp_path,
    )
    assert (done.returncode, done.stderr.strip(), done.stdout) == (130, "interrupted", "")


def test_ctrl_c_swallowed_by_a_c_callback_is_an_interrupt_not_a_bug(tmp_path):
    """Ctrl-C whose handler runs in a ctypes callback (llvmlite's object-code
    hook while numba compiles) is printed and dropped by ctypes; numba then
    fails (`RuntimeError: no compiled object yet for <Library ...>`): that
    was exit 70, "internal error", with a cold cache about one time in three
    at 6 s into the resumed compile below."""
    done = progress_with(
        """
        import ctypes
        def hook():
            raise KeyboardInterrupt
        ctypes.CFUNCTYPE(None)(hook)()
        raise RuntimeError("no compiled object yet for <Library 'batch_tables'>")
        """,
        tmp_path,
    )
    assert (done.returncode, done.stderr.strip()) == (130, "interrupted")


def interrupted_run(args: list[str], env: dict[str, str], delay: float) -> tuple[int, str, str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "progress", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    assert child.stderr is not None
    first = child.stderr.readline()  # the run has begun: the CLI's handlers are in place
    assert first.startswith("progress: building the space"), first
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    return child.returncode, out, first + err


def warm_cache_but(cold: str, folder: Path) -> Path | None:
    """A numba cache folder (NUMBA_CACHE_DIR) holding what this process's cache
    holds, except the files of module `cold` (those it must compile again); None
    where this process has no cache folder of its own (progress.jit)."""
    from progress import jit

    source = jit.cache_dir()
    if source is None or not source.is_dir():
        return None
    cold_files = shutil.ignore_patterns(f"{cold}.*")
    shutil.copytree(source, folder / source.name, ignore=cold_files)
    return folder


def test_ctrl_c_during_a_cold_compile_then_resume(tmp_path, reference):
    """Ctrl-C while numba compiles cold, then a resume that finishes on the
    store and the cache the interrupted run left and finds what an
    uninterrupted run finds. The numba cache holds what the `reference` run
    compiled except the batch classifier's module (progress/core/fastcheck.py,
    about 13 s of CPU to compile): so the run compiles that one entry point cold
    (not the judge too, which took the suite 40 s of CPU for this test), and
    Ctrl-C comes 2 s into the run, before that compile could end (asserted:
    nothing of it was saved). benchmarks/ctrl_c_cold.py spreads Ctrl-C over a
    wholly cold start (docs/results/ctrl_c.md); Ctrl-C while the CLI loads:
    tests/test_synth_cli.py."""
    numba = warm_cache_but("fastcheck", tmp_path / "numba")
    numba = numba or tmp_path / "numba"  # no cache of its own here: all cold
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba), XDG_CACHE_HOME=str(tmp_path / "cache"))
    db, export = tmp_path / "run.db", tmp_path / "export"
    start = ["synth", "-t", "2", "-i", "3", "--out", str(db)]
    code, out, err = interrupted_run(start, env, 2.0)
    said = [line for line in err.splitlines() if not line.startswith("progress: ")]
    assert code == 130 and "Traceback" not in err and "Exception ignored" not in err, (code, err)
    assert len(said) <= 1 and "interrupted" in out + err, (out, err)
    assert not list(numba.rglob("fastcheck.check_batch-*")), "the compile ended before Ctrl-C: not a cold compile"
    done = subprocess.run(
        [sys.executable, "-m", "progress", *start, "--resume", "--export", str(export)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert file_tree(export) == reference
