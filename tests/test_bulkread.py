"""The bulk reader (progress/front/axb/bulkread.py) against its references: it takes a
text exactly when `quick_parts` does, and then gives `quick_parts`' threads
and init, `text_of_parts`' hash and `record_of`'s record, with its memo warm
or cold, whatever it read before."""

from __future__ import annotations

import pytest
from conftest import long_twin
from hypothesis import given, settings
from hypothesis import strategies as st
from test_parse_frontends import axb_text, mutated

from progress.core.batch import record_of
from progress.core.canonical import hash_of_text, text_of_parts
from progress.front.axb import bulkread
from progress.front.axb.bulkread import BulkReader
from progress.front.axb.quickparse import quick_parts

READER = BulkReader()
"""Shared by the generated cases: its memo carries over from text to text."""


def agrees(text: str, reader: BulkReader = READER) -> bool:
    """Whether the reader took the text (and if so, that it agrees)."""
    got = reader.read(text)
    quick = quick_parts(text, "dir/t.axb")
    if quick is None:
        assert got is None, text
        return False
    assert got is not None, text
    threads, init = quick[1:]
    assert (got.threads, got.init) == (threads, init), text
    assert got.hash == hash_of_text(text_of_parts(threads, init)), text
    assert got.record == record_of(threads, init), text
    return True


LOCATION = st.sampled_from(["l0", "l1", "l2", "l3", "l01", "x", "l"])


@st.composite
def plain_layout(draw):
    """Tests as `synth --export` writes them, with locations named l0, l1, ...
    in order of first use or not, init lines or not, comments."""
    lines = []
    if draw(st.booleans()):
        lines.append("test t" + str(draw(st.integers(0, 9))))
    lines += draw(st.lists(st.sampled_from(["# a comment", "# canonical hash 0123", "", "  "]), max_size=2))
    for loc in draw(st.lists(LOCATION, max_size=3, unique=True)):
        lines.append(f"init {loc} = {draw(st.sampled_from([0, 1, 2, 7]))}")
    for tid in range(draw(st.integers(1, 3))):
        lines.append(f"thread {tid}")
        n = draw(st.integers(1, 3))
        for _ in range(n):
            target = draw(st.integers(0, n))
            shown = "end" if target == n and draw(st.booleans()) else str(target)
            xchg = draw(st.sampled_from(["true", "false"]))
            lines.append(
                f"  AXB({draw(LOCATION)}, {draw(st.integers(0, 2))}, {shown}, {xchg}, {draw(st.integers(0, 2))})"
            )
    return "\n".join(lines) + "\n"


def _agrees_with_its_references_or_declines(text):
    agrees(text)


test_agrees_with_its_references_or_declines, test_agrees_with_its_references_or_declines_in_full = long_twin(
    _agrees_with_its_references_or_declines,
    (st.one_of(axb_text(), mutated(), plain_layout()),),
    150,
    600,
    derandomize=True,
    deadline=None,
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(plain_layout())
def test_takes_the_plain_layout(text):
    """The export layout is always taken (so the agreement above is not vacuous)."""
    assert agrees(text)


@pytest.mark.long
def test_every_published_test_and_a_synthesized_export_are_taken(oopsla_dir, reference):
    files = sorted(oopsla_dir.rglob("*.axb"))
    assert all(agrees(f.read_text()) for f in files)
    exported = [data.decode() for name, data in reference.items() if name.endswith(".axb")]
    assert len(exported) > 100
    reader = BulkReader()
    assert all(agrees(text, reader) for text in exported)
    assert all(agrees(text, reader) for text in exported)  # again, from the memo


def test_a_full_memo_starts_afresh(monkeypatch, oopsla_dir):
    monkeypatch.setattr(bulkread, "MAX_REMEMBERED", 5)
    reader = BulkReader()
    files = sorted(oopsla_dir.rglob("*.axb"))[:60]
    assert all(agrees(f.read_text(), reader) for f in files)
    assert len(reader._lines) < 5 + 40 and len(reader._threads) < 5 + 10  # one text past the limit at most


@pytest.mark.parametrize(
    "text",
    [
        "thread 0\n  AXB(l1, 0, end, true, 1)\n",  # l1 before l0: not the canonical naming
        "init l0 = 3\ninit l5 = 2\nthread 0\n  AXB(l0, 3, end, true, 1)\n",  # init-only location
        "init x = 1\nthread 0\n  AXB(l0, 0, end, true, 1)\nthread 1\n  AXB(x, 1, 0, false, 0)\n",
        "thread 0\n  AXB(l0, 0, end, true, 1)\nthread 1\n  AXB(l01, 0, end, true, 1)\n",
    ],
)
def test_names_other_than_the_canonical_ones(text):
    assert agrees(text, BulkReader())


def test_declines_what_quick_parts_declines():
    reader = BulkReader()
    for text in (
        "thread 0\r\n AXB(x, 0, end, true, 1)\r\n",
        "thread 0\n AXB(x, 0, end, true, 1)  # trailing comment\n",
        "thread 0\n AXB(x, 0, 2, true, 1)\n",
        "thread 1\n AXB(x, 0, end, true, 1)\n",
        "thread 0\n AXB(x, 0, end, true, 1)\ntest late\n",
        "test a\ntest b\nthread 0\n AXB(x, 0, end, true, 1)\n",
        "init x = 1\ninit x = 2\nthread 0\n AXB(x, 0, end, true, 1)\n",
        "thread 0\nthread 1\n AXB(x, 0, end, true, 1)\n",
        "AXB(x, 0, end, true, 1)\n",
        "# nothing\n",
    ):
        assert reader.read(text) is None, text
        assert quick_parts(text, "t.axb") is None, text
