"""WGSL overrides at their defaults (progress/front/wgsl/overrides.py): naga-wasm
sets no pipeline constants, so an `override` is checked as a `const` of its
initializer, positions unchanged."""

from __future__ import annotations

import pytest

from progress.errors import InputError
from progress.front.spirv.load import launch_system, load_kernel
from progress.front.wgsl.overrides import with_defaults

COUNTED = """// progress: --workgroups 1
@id(7) override TURNS: u32 = 3u;
override LAST = TURNS - 1u;
@group(0) @binding(0) var<storage, read_write> a: array<atomic<u32>, 4>;
@compute @workgroup_size(1)
fn main() {
    for (var i = 0u; i < TURNS; i++) {
        atomicAdd(&a[LAST], 1u);
    }
}
"""


def test_an_override_is_its_default_value():
    text, names = with_defaults(COUNTED, "k.wgsl")
    assert names == ("TURNS", "LAST")
    assert text.split("\n")[1] == "       const    TURNS: u32 = 3u;"  # @id(7) blanked, the same columns
    assert [len(line) for line in text.split("\n")] == [len(line) for line in COUNTED.split("\n")]
    kernel = load_kernel(COUNTED.encode(), "k.wgsl", "wgsl")
    assert (
        kernel.notes[-1]
        == "k.wgsl: overrides at their default values (progress sets no pipeline constants): TURNS, LAST"
    )
    system = launch_system(kernel, "k", "k.wgsl")
    state = system.initial
    while not system.finished(state):
        ((_, state),) = system.successors(state)
    assert dict(system.cells(state))["a[2]"] == 3


def test_an_override_without_a_default_is_refused_at_its_name():
    source = "@id(1) override SIZE: u32;\n@compute @workgroup_size(1)\nfn main() {}\n"
    with pytest.raises(InputError) as caught:
        load_kernel(source.encode(), "k.wgsl", "wgsl")
    assert str(caught.value.position) == "k.wgsl:1:17"
    assert caught.value.message.startswith("override SIZE has no default value")


def test_errors_after_an_override_keep_their_columns():
    source = "@id(3) override N: u32 = 2u;\n@compute @workgroup_size(N)\nfn main() { let x: u32 = 1i; }\n"
    with pytest.raises(InputError) as caught:
        load_kernel(source.encode(), "k.wgsl", "wgsl")
    assert str(caught.value.position) == "k.wgsl:3:17"
    assert caught.value.position.text == "fn main() { let x: u32 = 1i; }"
