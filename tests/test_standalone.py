"""The project stands alone (issue 27): nothing tracked reaches outside the
checkout for its data. The OOPSLA'21 suite and its results are litmus/oopsla21."""

from __future__ import annotations

import subprocess

from conftest import REPO

FORBIDDEN = ("../" + "shared", "PROGRESS_" + "SHARED")
"""Spelled in two parts so that this file does not name them itself."""
OLD_HOME = "shared/data/" + "oopsla21"
RECORD_SUFFIXES = (".json", ".txt")
"""Machine-written records of past runs under docs/results/ (metadata, logs)
keep the absolute input paths those runs read; every page, script, test and
benchmark names the copy in the tree."""


def tracked_files() -> list[str]:
    done = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    files = [name for name in done.stdout.decode().split("\0") if name]
    assert len(files) > 1000, "git ls-files listed too little: not a checkout?"
    return files


def offenders(files: dict[str, str]) -> list[str]:
    """`name: word` for each forbidden word a file's text holds."""
    found = []
    for name, text in files.items():
        found += [f"{name}: {word}" for word in FORBIDDEN if word in text]
        is_record = name.startswith("docs/results/") and name.endswith(RECORD_SUFFIXES)
        if OLD_HOME in text and not is_record:
            found.append(f"{name}: {OLD_HOME}")
    return found


def test_nothing_tracked_names_the_old_shared_folder():
    files = {}
    for name in tracked_files():
        path = REPO / name
        if path.is_file():  # else deleted in the working tree, not yet committed
            files[name] = path.read_bytes().decode("utf-8", errors="replace")
    assert offenders(files) == []


def test_the_scan_sees_each_kind_of_offender():
    old = FORBIDDEN[0] + "/data/oopsla21"
    assert offenders(
        {
            "docs/x.md": f"progress check {old}",
            "tests/conftest.py": "os.environ.get('" + FORBIDDEN[1] + "')",
            "docs/results/gpu/run.json": '"/work/' + OLD_HOME + '"',
            "benchmarks/b.py": 'REPO / "x" / "' + OLD_HOME + '"',
        }
    ) == [
        f"docs/x.md: {FORBIDDEN[0]}",
        f"docs/x.md: {OLD_HOME}",
        f"tests/conftest.py: {FORBIDDEN[1]}",
        f"benchmarks/b.py: {OLD_HOME}",
    ]
