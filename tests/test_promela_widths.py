"""Promela export never lets a variable wrap: each is declared wide enough for
every value it takes (byte/short/int by range), or the export refuses. A
thread of 256 instructions used to get a `byte` pc: pc 256 (its end) wrapped
to 0, the thread ran again forever, and SPIN said "may not terminate" about a
test that is guaranteed to terminate."""

from __future__ import annotations

import re
import shutil

import pytest
from spin_oracle import spin_terminates

from progress.back.promela import WIDTHS, promela_type, to_promela
from progress.core.analyze import check_program, queries_for
from progress.core.registry import find_model
from progress.front.axb.parse import parse_program

RANGES = {name: (low, high) for name, low, high in WIDTHS}


def straight_line(length: int, value: int = 1) -> str:
    """One thread of `length` instructions, each 'if x == 1 goto end' (x stays
    0), so the thread runs through all of them once and ends."""
    body = "".join(f"  AXB(x, {value}, end, false, 0)\n" for _ in range(length))
    return f"test line{length}\nthread 0\n{body}thread 1\n  AXB(y, 0, end, true, {value})\n"


def declared(promela: str, variable: str) -> str:
    found = re.search(rf"^(?:hidden )?(\w+) {variable}\b", promela, re.MULTILINE)
    assert found, variable
    return found.group(1)


@pytest.mark.parametrize("length, value", [(255, 1), (256, 1), (40000, 1), (3, 255), (3, 256), (3, 2**31 - 1)])
def test_every_variable_holds_its_range(length, value):
    program = parse_program(straight_line(length, value), "t.axb")
    promela = to_promela(program, find_model("OBE"))
    low, high = RANGES[declared(promela, "pc")]
    assert low <= 0 and length <= high  # pc runs 0..length (the end)
    low, high = RANGES[declared(promela, "mem")]
    assert low <= 0 and value <= high
    assert declared(promela, "pc") == ("byte" if length <= 255 else "short" if length < 2**15 else "int")


def test_a_range_no_type_holds_is_refused():
    assert promela_type("x", 0, 255) == "byte" and promela_type("x", -1, 0) == "short"
    assert promela_type("x", 0, 2**31 - 1) == "int"
    with pytest.raises(ValueError, match="a program counter ranges over 0..2147483648, beyond Promela's int"):
        promela_type("a program counter", 0, 2**31)


@pytest.mark.skipif(shutil.which("spin") is None or shutil.which("gcc") is None, reason="SPIN and gcc not installed")
def test_spin_agrees_on_a_thread_of_256_instructions(tmp_path):
    program = parse_program(straight_line(256), "t.axb")
    model = find_model("OBE")
    (verdict,) = check_program(program, queries_for([model], ("weak",)), witnesses=False).verdicts
    assert verdict.terminates is True
    assert spin_terminates(to_promela(program, model), tmp_path) is True
