"""The guard and instructions without a line of their own: Slang writes no DebugLine in
the merge block of a `?:`, so an atomic whose argument is a `?:` had no line and was
refused as dropped (GPUPrefixSums' DeviceBroadcast: `InterlockedExchange(b[i], (i ?
FLAG_REDUCTION : FLAG_INCLUSIVE) | ..., t)`). It takes the last line before it in its
function now; the oracle is the source: each workgroup stores its value."""

from __future__ import annotations

from pathlib import Path

from progress.cli.kernel import kernel_system, terminal_memories
from progress.front.header import LaunchSettings
from progress.front.spirv.load import load_kernel

DATA = Path(__file__).parent / "data" / "guard"


def test_an_atomic_with_a_conditional_argument_is_kept():
    path = DATA / "ternary_atomic.hlsl"
    loaded = load_kernel(path.read_bytes(), path.name, "hlsl", origin=path.parent)
    atomics = [i for i in loaded.module.instructions if i.opcode == "OpAtomicExchange"]
    assert len(atomics) == 1 and atomics[0].source is None  # the case: no line of its own
    (final,) = terminal_memories(kernel_system(path, LaunchSettings()), None, None)
    assert dict(final) == {"flags[0]": 2, "flags[1]": 1}  # gid.x ? 1u : 2u


def test_an_hlsl_entry_point_other_than_main():
    """Slang compiles the `--entry` it is given and names it `main` in the module: the
    loader looked for the given name there ('no entry point named ... the module has
    main'), so no HLSL kernel but `main` could be checked."""
    path = DATA / "two_entries.hlsl"
    given = LaunchSettings(entry="Spin", workgroups=1, buffers={"flags": 2})
    (final,) = terminal_memories(kernel_system(path, given), None, None)
    assert dict(final) == {"flags[0]": 1, "flags[1]": 5}
    given = LaunchSettings(entry="Init", workgroups=2, buffers={"flags": 2})
    (final,) = terminal_memories(kernel_system(path, given), None, None)
    assert dict(final) == {"flags[0]": 0, "flags[1]": 0}


def test_a_loop_bounded_by_a_runtime_arrays_length_is_no_wait():
    """`i < elements.values.length()` names a buffer but reads no memory (OpArrayLength):
    the guard refused the kernel as a deleted wait. Each of 2 workgroups adds 1 to each
    cell under the lock."""
    path = DATA / "length_loop.comp"
    given = LaunchSettings(workgroups=2, buffers={"values": 2})
    (final,) = terminal_memories(kernel_system(path, given), None, None)
    assert dict(final) == {"elements.values[0]": 2, "elements.values[1]": 2, "lock.value": 0}
