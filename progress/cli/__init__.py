"""The `progress` command line: the only place that reads files, prints and exits.

Subcommands are loaded lazily ("module:attribute") so that `progress check`
never imports what only other commands need (z3, plotting, CUDA).
"""

from __future__ import annotations

import _signal  # the C module, loaded at once: `signal` imports enum, which takes a while

_interrupts: list[int] = []


def _defer_interrupt(signum, frame):
    """Ctrl-C while the CLI's modules load is remembered, not raised: a
    KeyboardInterrupt inside an import can surface as another exception
    (a RuntimeError from a class body), which would be a crash."""
    _interrupts.append(signum)


if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _defer_interrupt)


def _accept_interrupts() -> None:
    """From here on Ctrl-C raises KeyboardInterrupt and SIGTERM `Terminated`
    (when `main` deferred it); one received while loading raises now."""
    if _signal.getsignal(_signal.SIGINT) is _defer_interrupt:
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
    if _signal.getsignal(_signal.SIGTERM) is _defer_interrupt:
        _signal.signal(_signal.SIGTERM, _terminate)
    if _interrupts:
        terminated = _signal.SIGTERM in _interrupts
        _interrupts.clear()
        if terminated:
            _terminated.append(_signal.SIGTERM)
            raise Terminated()
        raise KeyboardInterrupt()


import _thread  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import traceback  # noqa: E402

import click  # noqa: E402

from progress import __version__  # noqa: E402
from progress.cli.outputs import GuardedStream, finish_output  # noqa: E402
from progress.errors import EXIT_INTERNAL, EXIT_USAGE, ProgressError  # noqa: E402

COMMANDS = {
    "check": "progress.cli.check:check",
    "models": "progress.cli.models:models",
    "synth": "progress.cli.synth:synth",
    "run": "progress.cli.run:run",
    "conform": "progress.cli.conform:conform",
    "classify": "progress.cli.classify:classify_command",
    "show": "progress.cli.show:show",
    "import": "progress.cli.port:import_command",
    "export": "progress.cli.port:export_command",
    "separate": "progress.cli.separate:separate",
    "select": "progress.cli.select:select_command",
    "serve": "progress.cli.serve:serve",
    "results": "progress.cli.results:results_group",
    "devices": "progress.cli.devices:devices_command",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, attribute = COMMANDS[name].split(":")
        command = getattr(importlib.import_module(module), attribute)
        _accept_interrupts()
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="progress")
def cli():
    """Decide, classify, synthesize and run GPU forward-progress litmus tests.

    Exit status: 0 guaranteed to terminate / all expectations met, 1 may not
    terminate / mismatch found, 2 bad input or usage, 3 inconclusive.
    """


EXIT_SIGINT, EXIT_SIGTERM = 130, 143
"""128 + the signal's number, as shells report a process killed by it."""

REPORT_TO = "the progress maintainers' issue tracker, with the command line, its input files and `progress --version`"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like SIGINT's KeyboardInterrupt so that every command
    stops the same way (children killed, rows written so far kept)."""


_terminated: list[int] = []
_running: list[bool] = []
"""Non-empty while `main` runs: a swallowed interrupt is delivered again only then."""


def _terminate(signum, frame):
    _terminated.append(signum)
    raise Terminated()


def _unraisable(unraisable) -> None:
    """sys.unraisablehook while a command runs: what a finalizer raised.

    Ctrl-C (or SIGTERM) that lands while a finalizer runs would be printed
    and dropped by Python, and the run would go on; it is delivered again to
    the main thread instead. A finalizer of an llvmlite object whose
    construction Ctrl-C cut short (numba compiling: `'PipelineTuningOptions'
    object has no attribute '_as_parameter_'`, at the next collection or at
    exit) has nothing to release: it prints nothing. Anything else is printed
    as Python prints it."""
    error = unraisable.exc_value
    if isinstance(error, KeyboardInterrupt):
        _lost.append(signal.SIGTERM if isinstance(error, Terminated) else signal.SIGINT)
        # From a thread, a moment later: called here, the handler would run inside this hook.
        threading.Timer(0.05, _deliver_lost).start()
        return
    if not _half_built_llvm_object(unraisable):
        sys.__unraisablehook__(unraisable)


_lost: list[signal.Signals] = []
"""Signals whose KeyboardInterrupt a finalizer or a C callback (llvmlite's
object-code hook, numba compiling) swallowed during this `main`: an error
that follows is their consequence (numba: `no compiled object yet`), an
interrupt, not a bug."""


def _deliver_lost() -> None:
    if _lost and _running:
        _thread.interrupt_main(_lost[-1])


def _half_built_llvm_object(unraisable) -> bool:
    """The error is llvmlite's ObjectRef.close on an object whose __init__ never set its pointer."""
    error, where = unraisable.exc_value, unraisable.exc_traceback
    if not isinstance(error, AttributeError) or not str(error).endswith(("'_as_parameter_'", "'_ptr'")):
        return False
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    return where is not None and f"{os.sep}llvmlite{os.sep}" in where.tb_frame.f_code.co_filename


def main(argv=None) -> None:
    """Console entry point: the one catch site for the project's errors.

    Every outcome is an exit status: the command's own, 2 for the project's
    errors (and for standard output that cannot be written, flushed here so
    `> /dev/full` is named, not a traceback at exit), 130 for Ctrl-C, 143 for
    SIGTERM, and EXIT_INTERNAL (70) for anything unexpected: a bug, never a
    verdict.

    Ctrl-C is a KeyboardInterrupt while a command runs (commands that write
    stores or files handle it: exit 130); SIGTERM is handled the same way
    (a KeyboardInterrupt subclass, `Terminated`: "terminated", exit 143), and
    deferred like Ctrl-C while the command's modules load. Once the command
    is done, run as the `progress` script (no argv), a late Ctrl-C or SIGTERM
    no longer changes its exit."""
    in_main = threading.current_thread() is threading.main_thread()  # only it may set handlers
    previous = signal.signal(signal.SIGTERM, _defer_interrupt) if in_main else None
    hook, sys.unraisablehook = sys.unraisablehook, _unraisable
    _lost.clear()
    _running.append(True)
    _terminated.clear()
    stdout = sys.stdout
    if stdout is not None:
        sys.stdout = GuardedStream(stdout)
    try:
        code = _run(argv)
        if _terminated and code == EXIT_SIGINT:  # a command that handled the interrupt itself (synth)
            code = EXIT_SIGTERM
        failed = finish_output(sys.stdout) if stdout is not None else None
        if failed is not None and code not in (EXIT_INTERNAL, EXIT_SIGINT, EXIT_SIGTERM):
            if code != failed.exit_code:  # else the command already said so
                _say(failed.render())
            code = failed.exit_code
    finally:
        _running.clear()
        sys.stdout = stdout
        if argv is None and in_main:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            gc.collect()  # what an interrupt left half-built is finalized now, under the hook, not at exit
        else:
            sys.unraisablehook = hook
            if in_main:
                signal.signal(signal.SIGTERM, previous)
    sys.exit(code)


def _run(argv) -> int:
    """Run the command; its exit status, every error rendered on standard error."""
    try:
        code = cli.main(args=argv, prog_name="progress", standalone_mode=False)
        _accept_interrupts()
    except SystemExit as done:
        code = done.code
    except ProgressError as error:
        _say(error.render())
        return error.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt) as error:
        terminated = isinstance(error, Terminated) or isinstance(error.__cause__, Terminated)
        _say("terminated" if terminated else "interrupted")
        return EXIT_SIGTERM if terminated else EXIT_SIGINT
    except click.ClickException as error:
        try:
            error.show()
        except OSError:
            pass
        return 2 if error.exit_code == 2 else error.exit_code
    except Exception as error:  # the last resort: a bug must not read as a verdict
        interrupt = _interrupt_behind(error)
        if interrupt is not None or _lost:  # Ctrl-C or SIGTERM that a library re-raised or swallowed
            terminated = isinstance(interrupt, Terminated) or (interrupt is None and _lost[-1] == signal.SIGTERM)
            _say("terminated" if terminated else "interrupted")
            return EXIT_SIGTERM if terminated else EXIT_SIGINT
        _say(f"progress: internal error: {type(error).__name__}: {error}")
        _say(f"this is a bug in progress, not a verdict (exit {EXIT_INTERNAL}); please report it to {REPORT_TO}")
        if os.environ.get("PROGRESS_DEBUG"):
            traceback.print_exc()
        else:
            _say("(PROGRESS_DEBUG=1 prints the traceback)")
        return EXIT_INTERNAL
    if code is None or isinstance(code, int):
        return code or 0
    _say(str(code))
    return EXIT_USAGE


def _interrupt_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt (or `Terminated`) in `error`'s chain of causes, if any:
    Python turns one raised inside a class body's `__set_name__` (numba's modules,
    imported lazily mid-run) into a RuntimeError caused by it."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _say(text: str) -> None:
    """A line on standard error; if even that cannot be written, the exit status still tells."""
    try:
        click.echo(text, err=True)
    except (OSError, ValueError):
        pass
