"""Kernel headers: launch settings and expectations in a kernel's leading
comments; bad headers are positioned InputErrors; the command line wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from progress.errors import InputError, UsageError
from progress.front.header import (
    MAX_BUFFER_LENGTH,
    MAX_WORKGROUPS,
    LaunchSettings,
    kernel_expectations,
    launch_settings,
    parse_buffer,
    parse_init,
    parse_workgroups,
)

KERNELS = Path(__file__).parent / "data" / "kernels"


def test_settings_from_a_glsl_header():
    settings = launch_settings((KERNELS / "barrier.comp").read_text(), "barrier.comp", "glsl")
    assert settings.workgroups == 2
    assert dict(settings.buffers) == {"data": 4}
    assert settings.init == (("data", 3, 7),)
    assert settings.entry is None and settings.optimize is None


def test_several_lines_and_both_option_forms():
    text = (
        "; progress: --workgroups=3 --init lock=1\n;\n"
        "; progress: --buffer q=8 --optimize --entry main\nOpCapability Shader\n"
    )
    settings = launch_settings(text, "k.spvasm", "spvasm")
    assert settings == LaunchSettings(3, {"q": 8}, (("lock", None, 1),), "main", True)


def test_only_the_leading_comments_are_the_header():
    text = "#version 450\n// progress: --workgroups 5\n"
    assert launch_settings(text, "k.comp", "glsl") == LaunchSettings()


def test_negative_values_are_32_bit_patterns():
    assert parse_init("x=-1") == ("x", None, 0xFFFFFFFF)
    assert parse_init("a[2]=7") == ("a", 2, 7)


def test_the_command_line_overrides_the_header_option_by_option():
    header = LaunchSettings(2, {"a": 4, "b": 2}, (("a", 0, 1), ("x", None, 5)), "main")
    cli = LaunchSettings(None, {"b": 8}, (("x", None, 9),), None, True)
    merged = header.overridden_by(cli)
    assert merged == LaunchSettings(2, {"a": 4, "b": 8}, (("a", 0, 1), ("x", None, 9)), "main", True)


BAD = {
    "// progress: --workgroups 0\n": (1, 27, "outside 1..64"),
    "// progress: --workgroups 1000000000\n": (1, 27, "outside 1..64"),
    "// progress: --workgroups " + "9" * 5000 + "\n": (1, 27, "outside 1..64"),
    "// progress: --workgroups two\n": (1, 27, "wants a whole number"),
    "// progress: --workgroups\n": (1, 14, "needs a value"),
    "// progress: --workgroups 1 --workgroups 2\n": (1, 42, "given twice"),
    "//\n// progress: --buffer data\n": (2, 23, "wants NAME=LENGTH"),
    "// progress: --buffer data=0\n": (1, 23, "outside 1.."),
    f"// progress: --buffer data={MAX_BUFFER_LENGTH + 1}\n": (1, 23, "outside 1.."),
    "// progress: --buffer d=1 --buffer d=2\n": (1, 36, "given twice"),
    "// progress: --init x=4294967296\n": (1, 21, "not a 32-bit integer"),
    "// progress: --init x[99999999]=1\n": (1, 21, "index is outside"),
    "// progress: --init x=1 --init x=2\n": (1, 32, "same location twice"),
    "// progress: --max-states 5\n": (1, 14, "not a launch setting"),
    "// progress: --entry 3x\n": (1, 22, "entry point's name"),
}


@pytest.mark.parametrize("text", sorted(BAD))
def test_bad_headers_are_positioned(text):
    line, column, message = BAD[text]
    with pytest.raises(InputError) as caught:
        launch_settings(text, "k.comp", "glsl")
    position = caught.value.position
    assert (position.path, position.line, position.column) == ("k.comp", line, column)
    assert message in caught.value.message


def test_option_parsers_for_the_command_line():
    assert parse_workgroups(str(MAX_WORKGROUPS)) == MAX_WORKGROUPS
    assert parse_buffer("data=4") == ("data", 4)
    for bad in ("0", "-1", "65", "1e3", ""):
        with pytest.raises(UsageError):
            parse_workgroups(bad)


def test_expectations_in_a_kernel_header():
    found = kernel_expectations((KERNELS / "message.comp").read_text(), "message.comp", "glsl")
    assert found[("FAIR", "weak")] is True and found[("UNFAIR", "none")] is False
    with pytest.raises(InputError) as caught:
        kernel_expectations("#version 450\n// expect: unfair F\n", "k.comp", "glsl")
    assert "no '// expect:' line" in caught.value.message
    with pytest.raises(InputError) as caught:
        kernel_expectations("// expect: unfair X\n", "k.comp", "glsl")
    assert caught.value.position.line == 1 and caught.value.position.column == 12


def test_glslang_names_of_hlsl_buffers_read():
    assert parse_buffer("@data=4") == ("@data", 4)
    assert parse_init("@data[1]=3") == ("@data", 1, 3)
