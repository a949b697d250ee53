"""Kernels written for the Vulkan memory model (OpMemoryModel Logical Vulkan, the
VulkanMemoryModel capabilities, queue-family and device scopes, MakeAvailable /
MakeVisible semantics and memory operands, Volatile) are read, and checked as the
same kernels without them: the checker's accesses are sequentially consistent, so
these annotations change neither a verdict nor a final memory."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO

from progress.cli.kernel import check_kernel, given_settings, kernel_system, terminal_memories
from progress.core.analyze import queries_for
from progress.core.registry import all_models
from progress.front.header import LaunchSettings
from progress.front.spirv.load import load_kernel

KERNELS = REPO / "litmus" / "kernels"
LAUNCH = Path(__file__).parent / "data" / "launch"


def verdicts(path: Path) -> list[tuple[str, str, bool | None]]:
    result = check_kernel(
        path, LaunchSettings(), queries_for(all_models()), max_states=None, time_limit=None, witnesses=False
    )
    return [(v.model, v.fairness, v.terminates) for v in result.checked[0].report.verdicts]


def test_the_vulkan_memory_model_version_checks_as_the_plain_one():
    annotated, plain = KERNELS / "vulkan_mm_message_passing.comp", KERNELS / "message_passing.comp"
    module = load_kernel(annotated.read_bytes(), annotated.name, "glsl").module
    assert module.view.memory_model == ("Logical", "Vulkan")
    assert {"VulkanMemoryModel", "VulkanMemoryModelDeviceScope"} <= set(module.view.capabilities)
    assert verdicts(annotated) == verdicts(plain)
    final = [terminal_memories(kernel_system(path, LaunchSettings()), None, None) for path in (annotated, plain)]
    assert final[0] == final[1] == {(("data", 42), ("result", 42), ("flag", 1))}


def test_memory_operands_scopes_and_volatile_in_assembly():
    path = LAUNCH / "vulkan_mm.spvasm"
    assert terminal_memories(kernel_system(path, given_settings(None, [], [], None, None)), None, None) == {
        (("token", 1), ("payload", 42), ("got", 42))
    }
    assert verdicts(path) == verdicts(KERNELS / "message_passing.comp")
