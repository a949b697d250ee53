"""Every .axb reader, one answer (issue 23): the same generated text, good
and bad, goes to `parse_program` (its line recognizer, else lark), to the
grammar alone, to `quick_program` / `quick_parts` and to `BulkReader.read`
(a fresh one and one whose memo carries over from text to text).

The parser's answer is the reference: a Program, or an InputError with its
position. The grammar alone gives the same Program (spans included) or the
same rendered error. A fast reader gives the same Program (it keeps no
spans), or None ("not mine, ask the parser"); it never takes a text the
parser refuses, and never raises. The bulk reader takes exactly what
`quick_parts` takes, with the canonical hash and kernel record of that
Program. Mutations: stray and unicode characters, huge numbers, bad
targets, threads out of order, CRLF, lone CR, tabs, form feeds, comments
between any two words, keywords in other cases or as names."""

from __future__ import annotations

import re

from conftest import long_twin
from hypothesis import event
from hypothesis import strategies as st

from progress.core.batch import record_of
from progress.core.canonical import canonical_hash
from progress.errors import InputError
from progress.front.axb.bulkread import BulkReader
from progress.front.axb.grammar import parse_items
from progress.front.axb.parse import _build, parse_program
from progress.front.axb.quickparse import quick_parts, quick_program
from progress.source import source_lines

PATH = "suite/t7.axb"
SHARED = BulkReader()
"""Its memo carries over between examples, as in `classify`'s workers."""

CLEAN_NAMES = ["m", "x", "l0", "l1", "l2", "_t", "flag9"]
NAMES = (["l01", "l" + "9" * 30, "Thread", "END", "AXB_1", "_"], ["end", "thread", "test", "init", "true", "axb"])
NAMES[1].extend(["AXB", "aXb", "é", "x-y", "1m", "ｍ"])
CLEAN_NUMBERS = ["0", "1", "2", "3"]
HUGE = ["2147483647", "2147483648", "99999999999999", "0" * 30 + "1", "9" * 5000]
NUMBERS = (["00", "007", "10", *HUGE], ["-1", "１", "1.0", "0x1"])
TARGETS = (["4", "5", "00", *HUGE], ["End", "endx", "END", "-1"])
BOOLS = (["true"], ["True", "FALSE", "1", "truex"])
AXBS = (["aXB", "AxB"], ["AXB2", "AX B", "AXB_", "AXBAXB"])
BLANKS = (["\f", "\r", "\n", " # c\n", "\n\n"], ["\\", "\v", "\u00a0"])
LINE_ENDS = (["\r\n", "  # trailing\n", "\r", " ", "\n\t\n", "\n\r\n", "#c\r\n", "\f\n", "\t# x\t\n"], ["$\n"])
INDENTS = (["\f", " \r", "\r\n"], ["\u202e", "\ufeff"])
STRAY = ["$", "é", "\x00", "\u202e", "\ufeff", "(", ")", ",", "=", "#", "9", "x", "\n", "\r", "\t", "thread 1\n"]
STRAY += ["end", "AXB", "\u00a0", "１", ";"]
NOISE = [(0, 0, 0), (0, 0, 0), (40, 0, 1), (40, 0, 1), (40, 0, 2), (60, 0, 99), (150, 0, 99), (0, 4, 99), (20, 10, 99)]
NOISE += [(60, 30, 99)]
"""Odds in 1000 that a word is strange (a lexical or semantic oddity) and that it is bad (a syntax
error), and how many odd words a text gets at most (one alone in a plain text is the keenest test)."""


class Words:
    """Draws words: a clean one, or at the text's odds a strange or a bad one."""

    def __init__(self, draw, noise: tuple[int, int, int]):
        self.draw, (self.strange, self.bad, self.left) = draw, noise
        self.odds = draw(st.randoms(use_true_random=False))  # uniform, where hypothesis would favour 0

    @property
    def noisy(self) -> bool:
        return self.left > 0

    def __call__(self, clean: list[str], others: tuple[list[str], list[str]]) -> str:
        at = self.odds.randrange(1000) if self.left else 1000
        pool = others[0] if at < self.strange else others[1] if at < self.strange + self.bad else clean
        self.left -= pool is not clean
        return self.draw(st.sampled_from(pool))


def instruction(pick: Words, n: int) -> list[str]:
    """The words of one instruction of a thread of n instructions."""
    target = pick([str(k) for k in range(n + 1)] + ["end"], TARGETS)
    loc, cmp = pick(CLEAN_NAMES, NAMES), pick(CLEAN_NUMBERS, NUMBERS)
    xchg, val = pick(["true", "false"], BOOLS), pick(CLEAN_NUMBERS, NUMBERS)
    return [pick(["AXB", "axb", "Axb"], AXBS), "(", loc, ",", cmp, ",", target, ",", xchg, ",", val, ")"]


def items(draw, pick: Words) -> list[list[str]]:
    """A test as a list of items, each a list of words."""
    found: list[list[str]] = []
    if draw(st.booleans()):
        found.append(["test", pick(CLEAN_NAMES, NAMES)])
    for loc in draw(st.lists(st.sampled_from(CLEAN_NAMES), max_size=2, unique=True)):
        found.append(["init", pick([loc], (CLEAN_NAMES, NAMES[1])), "=", pick(CLEAN_NUMBERS, NUMBERS)])
    odd = pick.noisy
    for tid in range(draw(st.integers(1, 3))):
        found.append(["thread", pick([str(tid)], ([str(tid + 1), str(max(tid - 1, 0)), "0" + str(tid)], ["x", "-1"]))])
        n = draw(st.integers(0 if odd and draw(st.integers(0, 29)) == 0 else 1, 3))
        found += [instruction(pick, n) for _ in range(n)]
    if odd and draw(st.integers(0, 29)) == 0:
        moved = found.pop(draw(st.integers(0, len(found) - 1)))  # an item out of place
        found.insert(draw(st.integers(0, len(found))), moved)
    return found


@st.composite
def axb_text(draw, noise: tuple[int, int, int] | None = None) -> str:
    """The items written out: blanks (or worse) between words, line ends
    (or worse) between items; noise (0, 0, 0) is the plain layout."""
    pick = Words(draw, draw(st.sampled_from(NOISE)) if noise is None else noise)
    parts = []
    for item in items(draw, pick):
        line = pick(["", "  ", "\t"], INDENTS) + item[0] + pick([" ", "\t"], (["  ", "\n", "\f"], [""]))
        line += "".join(word + pick(["", " ", "\t", "  "], BLANKS) for word in item[1:])
        parts += [line, pick(["\n", "\n", "\n\n", "\n# a comment\n"], LINE_ENDS)]
    return "".join(parts)


@st.composite
def mutated(draw) -> str:
    """A text with up to three edits: a stray piece put in, a slice cut out."""
    text = draw(axb_text())
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.sampled_from([0, 0, 1, 2, 5]))
        text = text[:at] + draw(st.sampled_from(STRAY + [""])) + text[at + cut :]
    return text


def parsed(text: str) -> tuple:
    try:
        program = parse_program(text, PATH)
    except InputError as error:
        return ("error", error.render())
    return ("program", program, program.spans, program.instr_spans)


def by_grammar(text: str) -> tuple:
    lines = source_lines(text)
    try:
        program = _build(parse_items(text, lines, PATH), lines, PATH, None)
    except InputError as error:
        return ("error", error.render())
    return ("program", program, program.spans, program.instr_spans)


def every_reader_agrees(text: str) -> bool:
    """The demands of the module docstring; whether the fast readers took the text."""
    reference = parsed(text)
    assert by_grammar(text) == reference
    program = reference[1] if reference[0] == "program" else None
    quick = quick_program(text, PATH)
    parts = quick_parts(text, PATH)
    assert (quick is None) == (parts is None)
    if quick is None:
        for reader in (SHARED, BulkReader()):
            assert reader.read(text) is None
        return False
    assert program is not None and quick == program  # never a text the parser refuses, never another Program
    threads = tuple(tuple(tuple(instr) for instr in code) for code in program.threads)
    assert parts == (program.name, threads, program.init)
    for reader in (SHARED, BulkReader()):
        got = reader.read(text)
        assert got is not None
        assert (got.threads, got.init) == (threads, program.init)
        assert got.hash == canonical_hash(program)
        assert got.record == record_of(threads, program.init)
    return True


def _every_reader_gives_the_parsers_answer_or_none(text):
    taken = every_reader_agrees(text)
    reference = parsed(text)
    message = reference[1].split(": error: ")[1].split("\n")[0] if reference[0] == "error" else "a program"
    shape = " ".join(re.sub(r"'[^']*'|[0-9][^ ]*", "_", message).split(" ")[:3])
    event(f"{'taken' if taken else 'declined'}; parser: {shape}")  # see them: --hypothesis-show-statistics


test_every_reader_gives_the_parsers_answer_or_none, test_every_reader_gives_the_parsers_answer_or_none_in_full = (
    long_twin(
        _every_reader_gives_the_parsers_answer_or_none,
        (st.one_of(axb_text(), axb_text(), mutated()),),
        100,
        400,
        derandomize=True,
        deadline=None,
    )
)


def _the_fast_readers_take_the_plain_layout(text):
    """Without comments after items, the clean layout is the fast readers'
    (so the agreement above is not vacuous); with them, the parser still
    takes every clean text."""
    assert parsed(text)[0] == "program", text
    if "# note" not in text:
        assert every_reader_agrees(text), text


test_the_fast_readers_take_the_plain_layout, test_the_fast_readers_take_the_plain_layout_in_full = long_twin(
    _the_fast_readers_take_the_plain_layout, (axb_text(noise=(0, 0, 0)),), 75, 300, derandomize=True, deadline=None
)


def test_the_generated_texts_reach_every_answer():
    """Each kind of answer the demands compare occurs among known texts of the generators' shapes."""
    taken = "thread 0\n  AXB(m, 0, end, true, 1)\n"
    declined = "thread 0\n  AXB(m, 0, end, true, 1)  # trailing\n"
    refused = "thread 0\n  AXB(m, " + "9" * 5000 + ", end, true, 1)\n"
    assert every_reader_agrees(taken)
    assert not every_reader_agrees(declined) and parsed(declined)[0] == "program"
    assert not every_reader_agrees(refused) and parsed(refused)[0] == "error"
    reserved = "thread 0\n  AXB(axb, 0, end, true, 1)\n"  # a reserved location: the grammar's fast token once took it
    assert not every_reader_agrees(reserved)
    assert parsed(reserved)[1].startswith("suite/t7.axb:2:7: error: unexpected 'axb'; expected a name")
