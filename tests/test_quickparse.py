"""The quick reader (progress/front/axb/quickparse.py) returns parse_program's Program
or None: never a different Program, never a Program where parse_program
reports an error; and it does take the usual layouts."""

from __future__ import annotations

from conftest import long_twin
from hypothesis import given, settings
from hypothesis import strategies as st
from test_parse_frontends import axb_text, mutated

from progress.errors import InputError
from progress.front.axb.parse import parse_program
from progress.front.axb.quickparse import quick_program


def agrees(text: str, path: str = "dir/t.axb") -> bool:
    """Whether the quick reader took the text (and if so, that it agrees)."""
    quick = quick_program(text, path)
    try:
        full = parse_program(text, path)
    except InputError:
        assert quick is None, text
        return False
    assert quick is None or quick == full, text
    return quick is not None


def _agrees_with_parse_program_or_declines(text):
    agrees(text)


test_agrees_with_parse_program_or_declines, test_agrees_with_parse_program_or_declines_in_full = long_twin(
    _agrees_with_parse_program_or_declines,
    (st.one_of(axb_text(), mutated()),),
    150,
    600,
    derandomize=True,
    deadline=None,
)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(axb_text(clean=True))
def test_takes_the_usual_layout(text):
    """Clean layouts with `\\n` line ends and no trailing comments are taken
    (when they are valid at all), so the agreement above is not vacuous."""
    if "\r" not in text and "#x" not in text and "# note" not in text:
        try:
            parse_program(text, "t.axb")
        except InputError:
            return
        assert agrees(text), text


def test_every_published_test_is_taken_and_equal(oopsla_dir):
    files = sorted(oopsla_dir.rglob("*.axb"))
    assert len(files) == 483
    assert all(agrees(f.read_text(), str(f)) for f in files)


def test_names_and_declines():
    assert quick_program("thread 0\n AXB(x, 0, end, true, 1)\n", "a/b/c7.axb").name == "c7"
    assert quick_program("thread 0\n AXB(x, 0, end, true, 1)\n", "<string>").name == "test"
    for text in (
        "thread 0\n AXB(x, 0, end, true, 1)  # trailing comment\n",
        "thread 0\r\n AXB(x, 0, end, true, 1)\r\n",
        "thread 0\n AXB(x, 0, 2, true, 1)\n",
        "thread 1\n AXB(x, 0, end, true, 1)\n",
        "thread 0\n",
        "test a\ntest b\nthread 0\n AXB(x, 0, end, true, 1)\n",
        "init x = 1\ninit x = 2\nthread 0\n AXB(x, 0, end, true, 1)\n",
        "thread 0\n AXB(end, 0, end, true, 1)\n",
        "thread 0\n AXB(x, 0, end, true, 2147483648)\n",
        "thread 0\n AXB(x, 0, end, true, 1)\ninit x = 1\n",
        "AXB(x, 0, end, true, 1)\n",
        "",
    ):
        assert quick_program(text, "t.axb") is None, text
