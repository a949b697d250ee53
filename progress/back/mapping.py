"""The launch heuristics' index arithmetic as kernel text, for the CUDA, C and WGSL writers.

The reference is `progress.gpu.heuristics` (pure Python: `slot`, `workgroup_of`);
the GPU tests compare the mapping a kernel records with it.
"""

from __future__ import annotations


def mapping_c() -> str:
    """The same arithmetic as a C/CUDA function body (shared by both generators).

    `h` is the heuristic's code (0 plain, 1 rr, 2 chunked), `w` the workgroup,
    `n` the test's thread count, `m` the instance count.
    """
    return (
        "if (h == 2) { *instance = (int)(w % m); *thread = (int)(w / m); }\n"
        "    else { *instance = (int)(w / n); *thread = (int)(w % n); }"
    )


def mapping_wgsl() -> str:
    """The same arithmetic as WGSL statements (for `wgsl_source`).

    `params.h` is the heuristic's code, `w` the workgroup, `n` the test's
    thread count, `m` the instance count; it assigns `instance` and `thread`.
    """
    return "if (params.h == 2u) { instance = w % m; thread = w / m; }\n    else { instance = w / n; thread = w % n; }"


def lane_mapping_c() -> str:
    """`progress.gpu.heuristics.lane_slot` as a C/CUDA function body: `b` the
    block, `lane` the lane, `n`, `m` as in `mapping_c`; false for an idle lane."""
    return (
        "unsigned int k = 32u / n;\n"
        "    if (h == 0) { if (b != 0u || lane >= n) return false; *instance = 0; *thread = (int)lane; return true; }\n"
        "    if (lane >= k * n) return false;\n"
        "    unsigned int local = (h == 2) ? lane % k : lane / n;\n"
        "    *thread = (int)((h == 2) ? lane / k : lane % n);\n"
        "    unsigned int i = b * k + local;\n"
        "    if (i >= m) return false;\n"
        "    *instance = (int)i;\n"
        "    return true;"
    )


def lane_mapping_wgsl(width: int) -> str:
    """`progress.gpu.heuristics.lane_slot` for subgroups of `width` lanes as WGSL
    statements (for `wgsl_source.lane_shader`): `b` the block (workgroup),
    `lane` the local invocation, `n`, `m` as in `mapping_wgsl`; it assigns
    `instance` and `thread`, and `idle` (true for an idle lane)."""
    return (
        f"let k = {width}u / n;\n"
        "    if (params.h == 0u) { idle = b != 0u || lane >= n; instance = 0u; thread = lane; }\n"
        "    else if (lane >= k * n) { idle = true; }\n"
        "    else {\n"
        "        var local: u32;\n"
        "        if (params.h == 2u) { local = lane % k; thread = lane / k; }\n"
        "        else { local = lane / n; thread = lane % n; }\n"
        "        instance = b * k + local;\n"
        "        idle = instance >= m;\n"
        "    }"
    )
