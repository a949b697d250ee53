"""WGSL overrides given their values before naga runs (progress/front/wgsl/overrides.py):
naga-wasm sets no pipeline constants, so an `override` is checked as a `const`
of `--spec` (by name or @id), of `--local-size` where `@workgroup_size` names
it, else of its initializer; positions unchanged."""

from __future__ import annotations

import pytest

from progress.errors import InputError
from progress.front.header import LaunchSettings
from progress.front.spirv.load import launch_system, load_kernel
from progress.front.wgsl.overrides import with_values

COUNTED = """// progress: --workgroups 1
@id(7) override TURNS: u32 = 3u;
override LAST = TURNS - 1u;
@group(0) @binding(0) var<storage, read_write> a: array<atomic<u32>, 8>;
@compute @workgroup_size(1)
fn main() {
    for (var i = 0u; i < TURNS; i++) {
        atomicAdd(&a[LAST], 1u);
    }
}
"""

SIZED = """@id(0) override SIZE: u32 = 64u;
override ON: bool = false;
@group(0) @binding(0) var<storage, read_write> a: array<atomic<u32>, 4>;
@compute @workgroup_size(SIZE, 1)
fn main(@builtin(local_invocation_index) i: u32) {
    if (ON) {
        atomicAdd(&a[i], 1u);
    }
}
"""


def final_cells(kernel) -> dict[str, int]:
    """The memory when every invocation has returned (these kernels have one end)."""
    system = launch_system(kernel, "k", "k.wgsl")
    state = system.initial
    while not system.finished(state):
        state = system.successors(state)[0][1]
    return dict(system.cells(state))


def test_an_override_is_its_default_value():
    text, said = with_values(COUNTED, "k.wgsl")
    assert said == ("TURNS at its default", "LAST at its default")
    assert text.split("\n")[1] == "       const    TURNS: u32 = 3u;"  # @id(7) blanked, the same columns
    assert [len(line) for line in text.split("\n")] == [len(line) for line in COUNTED.split("\n")]
    kernel = load_kernel(COUNTED.encode(), "k.wgsl", "wgsl")
    assert kernel.notes[-1] == (
        "k.wgsl: overrides, as constants (naga-wasm sets no pipeline constants): "
        "TURNS at its default, LAST at its default"
    )
    assert final_cells(kernel)["a[2]"] == 3


@pytest.mark.parametrize("key", ["TURNS", "7"])
def test_spec_sets_an_override_by_name_or_id(key):
    kernel = load_kernel(COUNTED.encode(), "k.wgsl", "wgsl", LaunchSettings(spec=((key, 5),)))
    cells = final_cells(kernel)
    assert cells["a[4]"] == 5 and cells["a[2]"] == 0  # LAST follows TURNS
    assert "TURNS = 5u (--spec)" in kernel.notes[-1]


def test_local_size_sets_the_override_workgroup_size_names():
    kernel = load_kernel(SIZED.encode(), "k.wgsl", "wgsl", LaunchSettings(local_size=(3, 1, 1), spec=(("ON", 1),)))
    assert kernel.module.view.local_size(kernel.entry) == (3, 1, 1)
    assert [final_cells(kernel)[f"a[{i}]"] for i in range(4)] == [1, 1, 1, 0]
    assert kernel.notes[-1].endswith("SIZE = 3u (--local-size), ON = true (--spec)")


@pytest.mark.parametrize("key", ["SIZE", "0"])
def test_a_spec_and_a_local_size_of_one_override_are_refused(key):
    """--spec SIZE=4 with --local-size 3: by name the --spec won, by @id the --local-size
    did, both silently; now refused at the override (equal values, or a command-line --spec
    over a header's --local-size, go through: the --spec's value)."""
    settings = LaunchSettings(local_size=(3, 1, 1), spec=((key, 4),))
    with pytest.raises(InputError) as caught:
        load_kernel(SIZED.encode(), "k.wgsl", "wgsl", settings)
    assert f"--spec {key}=4 and --local-size 3,1,1 both set the override SIZE" in caught.value.message
    assert (caught.value.position.line, caught.value.position.column) == (1, 17)
    same = load_kernel(SIZED.encode(), "k.wgsl", "wgsl", LaunchSettings(local_size=(3, 1, 1), spec=((key, 3),)))
    assert same.module.view.local_size(same.entry) == (3, 1, 1)
    header = "// progress: --local-size 3\n" + SIZED
    over = load_kernel(header.encode(), "k.wgsl", "wgsl", LaunchSettings(spec=((key, 2),)))
    assert over.module.view.local_size(over.entry) == (2, 1, 1)


@pytest.mark.parametrize(
    ("source", "settings", "message", "where"),
    [
        (
            "@id(1) override SIZE: u32;\n@compute @workgroup_size(1)\nfn main() {}\n",
            LaunchSettings(),
            "override SIZE has no value: give it one with --spec",
            "k.wgsl:1:17",
        ),
        (
            COUNTED,
            LaunchSettings(spec=(("9", 1),)),
            "k.wgsl: --spec 9=1: no override has @id 9 (the kernel's: 7 TURNS, LAST)",
            None,
        ),
        (COUNTED, LaunchSettings(spec=(("TURN", 1),)), "k.wgsl: --spec TURN=1: no override has the name 'TURN'", None),
        (SIZED, LaunchSettings(spec=(("ON", 2),)), "k.wgsl: override ON is a bool: give it 0, 1, true or false", None),
    ],
)
def test_what_cannot_be_given_a_value_is_refused(source, settings, message, where):
    with pytest.raises(InputError) as caught:
        load_kernel(source.encode(), "k.wgsl", "wgsl", settings)
    assert caught.value.message.startswith(message)
    assert (str(caught.value.position) if caught.value.position else None) == where


def test_an_override_without_default_takes_spec():
    source = "@id(1) override SIZE: u32;\n@compute @workgroup_size(SIZE)\nfn main() {}\n"
    kernel = load_kernel(source.encode(), "k.wgsl", "wgsl", LaunchSettings(spec=(("1", 2),)))
    assert kernel.module.view.local_size(kernel.entry) == (2, 1, 1)


def test_errors_after_an_override_keep_their_columns():
    source = "@id(3) override N: u32 = 2u;\n@compute @workgroup_size(N)\nfn main() { let x: u32 = 1i; }\n"
    with pytest.raises(InputError) as caught:
        load_kernel(source.encode(), "k.wgsl", "wgsl")
    assert str(caught.value.position) == "k.wgsl:3:17"
    assert caught.value.position.text == "fn main() { let x: u32 = 1i; }"
