"""The OOPSLA'21 data shipped in litmus/oopsla21: complete, unchanged since
it was copied in (issue 27), licensed, and what the tests and docs use."""

from __future__ import annotations

import csv
import hashlib

from conftest import OOPSLA, REPO

GROUPS = {"2t2i": 8, "2t3i": 176, "2t4i": 173, "3t3i": 21, "3t4i": 105}
DATA_DIGEST = "5429e2cfaa48da865d38d27a5a9c11e381faa116d4b81116e0f48fabebad2f2a"
"""SHA-256 over every file but README.md, in path order (path, NUL, bytes,
NUL each): the bytes copied from the source, which no one edits."""


def data_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in OOPSLA.rglob("*") if p.is_file() and p.name != "README.md"):
        digest.update(path.relative_to(OOPSLA).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def test_the_suite_is_inside_the_repository_and_complete():
    assert OOPSLA == REPO / "litmus" / "oopsla21"
    for group, count in GROUPS.items():
        assert len(list((OOPSLA / group).glob("*.axb"))) == count, group
    assert sum(GROUPS.values()) == 483
    with open(OOPSLA / "cadp_verdicts.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["test"] for row in rows) == sorted(
        p.relative_to(OOPSLA).as_posix() for p in OOPSLA.glob("*/*.axb")
    )
    assert len(list((OOPSLA / "empirical_results").glob("*/*/*.csv"))) == 55


def test_the_data_is_byte_for_byte_what_was_copied_in():
    assert data_digest() == DATA_DIGEST


def test_the_licence_and_the_provenance_travel_with_it():
    assert (OOPSLA / "LICENSE").read_text().startswith("BSD 2-Clause License\n\nCopyright (c) 2020, Tyler Sorensen")
    readme = (OOPSLA / "README.md").read_text()
    assert "github.com/tyler-utah/AlloyForwardProgress" in readme and "## Provenance" in readme
