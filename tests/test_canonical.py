"""Canonical form: the direct text equals the program route; duplicates by
renaming share a hash; natural sort of paths never compares text with numbers."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from progress.cli.inputs import _natural
from progress.core.canonical import canonical_hash, canonical_program, canonical_text
from progress.core.program import Instr, Program
from progress.front.axb.parse import parse_program


def test_direct_text_equals_the_canonical_program(oopsla_dir):
    for path in sorted(oopsla_dir.glob("*/*.axb")):
        program = parse_program(path.read_text(), str(path))
        assert canonical_text(program) == canonical_program(program).to_axb()


def test_init_lines_that_change_nothing_are_dropped():
    spin = (Instr("b", 0, 1, True, 1),), (Instr("a", 1, 0, False, 0),)
    with_noise = Program("x", spin, (("a", 2), ("b", 0), ("unused", 3)))
    assert canonical_text(with_noise) == canonical_text(Program("y", spin, (("a", 2),)))
    assert "init l1 = 2" in canonical_text(with_noise)


def test_the_suite_has_twenty_renaming_duplicates(oopsla_dir):
    """The data README: 20 tests duplicate another of their group by renaming."""
    counts = Counter()
    for path in sorted(oopsla_dir.glob("*/*.axb")):
        counts[(path.parent.name, canonical_hash(parse_program(path.read_text(), str(path))))] += 1
    assert sum(n - 1 for n in counts.values()) == 20


def test_natural_order_of_mixed_names():
    paths = [Path("d/10.axb"), Path("d/a.axb"), Path("d/2.axb"), Path("d/1a.axb")]
    assert [p.name for p in sorted(paths, key=_natural)] == ["1a.axb", "2.axb", "10.axb", "a.axb"]
