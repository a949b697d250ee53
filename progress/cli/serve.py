"""`progress serve`: the playground, the suites' pages and the WebGPU runner over HTTP."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING

import click

from progress.cli.inputs import expand, read_text
from progress.core.registry import all_models
from progress.errors import UsageError
from progress.front.axb.parse import parse_program
from progress.web.limits import Limits
from progress.web.suites import Suite, build_suite, description_of

if TYPE_CHECKING:
    from progress.web.site import Site

SHIPPED = Path(__file__).parents[1] / "web" / "litmus"
"""litmus/ of the checkout (`progress/web/litmus` links to it; package data in an install)."""
DEFAULT_DB = "progress-results.db"
"""The results database's default (progress.gpu.database.DEFAULT_PATH): the one `progress devices` reads."""


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback by default).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0: any free port.")
@click.option(
    "--suite",
    "suites",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A directory of .axb tests to serve as a suite named after it (repeatable; fixed at start). "
    "None: the suites shipped in litmus/.",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
    show_default=True,
    help="The results database (SQLite) that submitted runs go to; created if missing.",
)
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=Limits.max_states,
    show_default=True,
    help="A check past this many states answers inconclusive.",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(0.01, 600.0),
    default=Limits.time_limit_s,
    show_default=True,
    help="Seconds a check may take before it answers inconclusive.",
)
@click.option(
    "--submissions-per-minute",
    type=click.IntRange(1, 10_000),
    default=Limits.submissions_per_minute,
    show_default=True,
    help="Result submissions accepted per client address and minute.",
)
def serve(host, port, suites, db, max_states, time_limit, submissions_per_minute):
    """Serve the browser front: a playground (check a test or a kernel, see
    its verdicts, lasso and LTS), each --suite's (without --suite: each
    folder of .axb tests in the shipped litmus/) verdicts, counts and a page
    per test (explained, with an explorer that runs it on the visitor's GPU),
    a WebGPU runner that runs a suite on the visitor's GPU and, when asked,
    stores the result in --db, a conformance page per device, a summary by
    vendor and browser, a glossary and the documentation.

    Every test of every suite is checked before the server starts; a bad test
    is an error (exit 2), as is an address that cannot be listened on. Stop
    with Ctrl-C.
    """
    from progress.web.app import serve as run_server

    limits = Limits(max_states=max_states, time_limit_s=time_limit, submissions_per_minute=submissions_per_minute)
    site = build_site(list(suites) or shipped_suites(), db, limits)
    listener = _listen(host, port)
    bound = listener.getsockname()
    shown = f"http://{_shown(bound[0])}:{bound[1]}/ ({len(site.suites)} suite(s), results in {db})"
    click.echo(f"progress serve: {shown}")
    run_server(site, listener)


def build_site(directories: list[Path], db: Path, limits: Limits) -> Site:
    """The server's state: these suites loaded and checked, `db` usable (else UsageError)."""
    from progress.gpu.database import usable_database
    from progress.web.site import Site

    loaded = load_suites(directories, limits)
    usable_database(db)
    return Site({s.name: s for s in loaded}, db, tuple(all_models()), limits)


def shipped_suites(root: Path = SHIPPED) -> list[Path]:
    """The folders directly in `root` that hold .axb tests (the kernel folders hold none), sorted."""
    if not root.is_dir():
        return []
    return sorted(folder for folder in root.iterdir() if folder.is_dir() and any(folder.rglob("*.axb")))


def load_suites(directories: list[Path], limits: Limits) -> list[Suite]:
    """Each directory's tests, keyed by their path inside it, checked."""
    found: dict[str, Suite] = {}
    for directory in directories:
        if not directory.is_dir():
            raise UsageError(f"--suite {directory}: not a directory")
        name = directory.resolve().name or "suite"
        if name in found:
            raise UsageError(f"two --suite directories are named {name}: rename one (a suite is named after it)")
        entries = []
        for path in expand([os.fspath(directory)]):
            text = read_text(path)
            entries.append((path.relative_to(directory).as_posix(), text, parse_program(text, os.fspath(path))))
        readme = directory / "README.md"
        about = description_of(read_text(readme)) if readme.is_file() else ""
        found[name] = build_suite(name, entries, all_models(), limits.suite_states, about)
    return list(found.values())


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket, or UsageError saying why not (before anything is served)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise UsageError(f"--host {host}: {error.strerror or error}") from None
    family, kind, proto, _, address = infos[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(address)
        listener.listen(128)
    except OSError as error:
        listener.close()
        raise UsageError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return listener


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host
