"""Dat3M's SPIR-V termination tests (tests/data/dat3m/) and the results Dat3M expects,
as its SpirvLivenessTest.java lists them, with the progress model of ours each of
Dat3M's hierarchies is (section 9 of docs/semantics.md: a model at the queue-family
scope chooses among workgroups; everything below it fair is our model alone).

Dat3M's hierarchies name a model per scope: `qfObe` is OBE among the workgroups of
the queue family, fair below; `qfObeSgHsa` adds HSA among the invocations of each
subgroup. The ones with a model below the workgroups are scoped models, which this
checker does not have yet (None here)."""

from __future__ import annotations

from pathlib import Path

DAT3M = Path(__file__).parent / "data" / "dat3m"

OURS = {"fairUniform": "fair", "qfObe": "OBE", "qfHsa": "HSA"}
"""Dat3M's hierarchy -> our model; the others (a model at the subgroup scope) are scoped."""

ROWS = (
    ("non-uniform-barrier-1.spv.dis", "fairUniform", "PASS"),
    ("non-uniform-barrier-2.spv.dis", "fairUniform", "FAIL"),
    ("mp-groupID.spvasm", "fairUniform", "PASS"),
    ("mp-groupID.spvasm", "qfObe", "FAIL"),
    ("mp-groupID.spvasm", "qfHsa", "PASS"),
    ("mp-groupID.spvasm", "qfHsaSgUnfair", "PASS"),
    ("mp-atomicAdd-groupID.spvasm", "fairUniform", "PASS"),
    ("mp-atomicAdd-groupID.spvasm", "qfObe", "PASS"),
    ("mp-atomicAdd-groupID.spvasm", "qfObeSgUnfair", "PASS"),
    ("mp-atomicAdd-groupID.spvasm", "qfHsa", "FAIL"),
    ("mp-wg_obe-t_obe.spv.dis", "qfObeSgObe", "PASS"),
    ("mp-wg_obe-t_obe.spv.dis", "qfObeSgHsa", "FAIL"),
    ("mp-wg_obe-t_obe.spv.dis", "qfHsa", "FAIL"),
    ("mp-wg_obe-t_hsa.spv.dis", "qfObeSgHsa", "PASS"),
    ("mp-wg_obe-t_hsa.spv.dis", "qfObeSgObe", "PASS"),
    ("mp-wg_obe-t_hsa.spv.dis", "qfObeSgUnfair", "FAIL"),
    ("mp-wg_obe-t_hsa.spv.dis", "qfHsa", "FAIL"),
    ("mp-wg_hsa-t_obe.spvasm", "qfHsaSgObe", "PASS"),
    ("mp-wg_hsa-t_obe.spvasm", "qfHsaSgHsa", "FAIL"),
    ("mp-wg_hsa-t_obe.spvasm", "qfObe", "FAIL"),
    ("mp-wg_hsa-t_hsa.spvasm", "qfHsaSgHsa", "PASS"),
    ("mp-wg_hsa-t_hsa.spvasm", "qfHsaSgObe", "FAIL"),
    ("mp-wg_hsa-t_hsa.spvasm", "qfObe", "FAIL"),
)
"""(file, Dat3M's progress hierarchy, Dat3M's expected result), in SpirvLivenessTest's order."""

TOOLCHAIN_LIMITS = (
    "Invalid source language 'Slang'",
    "11 is not a SourceLanguage value",
)
"""Why Debian's SPIR-V tools and grammar cannot take a file: Slang's OpSource is newer
than their grammar. The toolchain's to lift. (Assembling SPIR-V 1.5 and 1.6 as 1.3 was
another, until assembly kept the module's own `; Version:`.)"""

INVALID = ("non-uniform-barrier-1.spv.dis", "non-uniform-barrier-2.spv.dis")
"""Declare `OpMemoryModel Logical Vulkan` without the VulkanMemoryModel capability: not
valid SPIR-V (spirv-val refuses it; Dat3M does not validate)."""
