"""The pure parts of a kernel run: the control buffer's layout and records,
the launch shapes, and the joined report's rules (which shape speaks to
which model; violation, ok, shown, no evidence)."""

from __future__ import annotations

import struct

import pytest

from progress.back.spirv_checks import CONTROL_WORDS, EXPIRY_BIT, RECORD_WORDS
from progress.back.spirv_deadline import Site
from progress.core.analyze import Verdict
from progress.gpu import kernel_report
from progress.gpu.kernel_report import CARRIES, KernelResult, judgement
from progress.gpu.kernel_run import (
    Iteration,
    KernelLaunch,
    Shape,
    ShapeOutcome,
    WorkgroupRecord,
    control_words,
    parse_shapes,
    read_iteration,
)

LAUNCH = KernelLaunch("k.comp", b"", "main", (2, 1, 1), 3, (), 1, ())


def test_control_words_carry_the_shape_and_budget():
    words = struct.unpack(f"<{CONTROL_WORDS + 3 * RECORD_WORDS}I", control_words(LAUNCH, Shape("reverse"), 77, 5))
    assert words[:9] == (0, 77, 5, 0, 0, 3, 1, 0, 0)
    occupied = struct.unpack_from("<7I", control_words(LAUNCH, Shape("occupied", 9), 1))
    assert occupied[4:7] == (9, 3, 0)
    assert struct.unpack_from("<7I", control_words(LAUNCH, Shape("interleave"), 1))[6] == 2


def test_records_are_read_back():
    words = [0] * (CONTROL_WORDS + 3 * RECORD_WORDS)
    words[3] = 2 | EXPIRY_BIT  # the launch's first leave: site 1, by expiry
    words[8] = 4  # occupier timeouts
    words[CONTROL_WORDS : CONTROL_WORDS + 9] = [2, 0, 0, 1, 1, 1, 0, 2, 2 | EXPIRY_BIT]
    it = read_iteration(struct.pack(f"<{len(words)}I", *words), 3, 0.5)
    assert it.workgroups == (
        WorkgroupRecord(2, 0, None, False),
        WorkgroupRecord(1, 1, 0, False),
        WorkgroupRecord(0, 2, 1, True),
    )
    assert (it.first_site, it.occupier_timeouts) == (1, 4)
    assert not it.finished(2)
    done = Iteration((WorkgroupRecord(2, 0, None, False),) * 3, None, 0, 0.1)
    assert done.finished(2) and not done.finished(3)
    assert not Iteration(done.workgroups, None, 1, 0.1).finished(2)  # an occupier had to time out


def test_shapes_parse_in_canonical_order():
    assert parse_shapes("reverse, alone") == ("alone", "reverse")
    for bad in ("", "alone,sideways", ","):
        with pytest.raises(ValueError, match="launch shape"):
            parse_shapes(bad)


@pytest.mark.parametrize(
    "model, terminates, shape, timed_out, expected",
    [
        ("OBE", True, "alone", True, "VIOLATION"),
        ("OBE", True, "alone", False, "ok"),
        ("OBE", False, "alone", True, "shown"),
        ("OBE", False, "alone", False, "no evidence"),
        ("HSA", True, "reverse", True, "-"),  # the id order is not the kernel's
        ("LOBE", True, "interleave", True, "-"),
        ("OBE", True, "reverse", True, "VIOLATION"),  # OBE reads no ids
        ("OBE", True, "occupied", True, "-"),  # a workgroup without a slot has not started
        ("unfair", True, "occupied", True, "-"),  # the occupiers may spin forever around it
        ("fair", True, "occupied", True, "VIOLATION"),
        ("fair", None, "alone", True, "?"),
    ],
)
def test_judgement(model, terminates, shape, timed_out, expected):
    assert judgement(model, terminates, shape, timed_out) == expected


def test_every_shape_has_its_models():
    assert set(CARRIES) == {"alone", "occupied", "reverse", "interleave"}
    assert CARRIES["alone"] == kernel_report.ALL
    assert all(CARRIES[s] <= kernel_report.ALL for s in CARRIES)


def test_the_joined_text_names_violations_and_sites():
    site = Site(0, "loop", "main", "k.comp:7", "while (x) {")
    launch = KernelLaunch("k.comp", b"", "main", (1, 1, 1), 2, (), 1, (site,))
    stuck = Iteration((WorkgroupRecord(0, 1, 0, False), WorkgroupRecord(1, 0, None, False)), 0, 0, 0.05)
    outcome = ShapeOutcome(Shape("alone"), (stuck, stuck), None, 100)
    verdicts = (Verdict("OBE", "weak", True, 10, 12), Verdict("HSA", "weak", False, 10, 12))
    result = KernelResult(launch, verdicts, (outcome,), {"alone": "none finished"})
    text = kernel_report.text(result)
    assert "alone: F (2/2) (2x first at loop k.comp:7 `while (x) {`)" in text
    assert "violations: OBE/weak under alone" in text
    assert kernel_report.rows(result) == [
        {"model": "OBE/weak", "checker": "P", "alone": "VIOLATION"},
        {"model": "HSA/weak", "checker": "F", "alone": "shown"},
    ]
