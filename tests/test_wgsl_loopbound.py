"""naga's loop bound (wgpu's force_loop_bounding): found in every loop naga
writes, removed, and the kernel checked as its WGSL says; the same counter
written by the kernel itself is kept; near misses of the shape are not
taken for it (progress/front/wgsl/loopbound.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO
from in_process import progress

from progress.front.spirv.decode import decode
from progress.front.spirv.ir import PointerType, VectorType
from progress.front.wgsl.compile import wgsl_to_spirv
from progress.front.wgsl.loopbound import loop_bounds
from progress.front.wgsl.naga import translate

SPIN = """// progress: --workgroups 2
@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) group: vec3<u32>) {
    if (group.x == 0u) {
        atomicStore(&flag, 1u);
    } else {
        while (atomicLoad(&flag) == 0u) {
        }
    }
}
"""

LOOPS = """@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;

fn wait() {
    loop {
        if (atomicLoad(&flag) != 0u) { break; }
    }
}

@compute @workgroup_size(1)
fn main() {
    for (var i = 0u; i < 2u; i++) {
        while (atomicLoad(&flag) == 7u) {
            loop {
                let seen = atomicLoad(&flag);
                continuing { break if seen != 3u; }
            }
        }
    }
    wait();
}
"""

OWN_COUNTER = """// progress: --workgroups 2
@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) group: vec3<u32>) {{
    if (group.x == 0u) {{
        atomicStore(&flag, 1u);
    }} else {{
        var bound = vec2<u32>({start});
        loop {{
            if (all(vec2<u32>(0u) == bound)) {{ break; }}
            bound -= vec2<u32>(select(0u, 1u, bound.y == 0u), 1u);
            if (atomicLoad(&flag) != 0u) {{ break; }}
        }}
    }}
}}
"""
ALL_ONES = "0xFFFFFFFFu, 0xFFFFFFFFu"


def check(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return progress("check", *args, cwd=cwd)  # in this process (tests/in_process.py)


def loops(binary: bytes) -> int:
    return sum(i.opcode == "OpLoopMerge" for i in decode(binary).instructions)


def test_naga_bounds_every_loop_and_every_bound_is_removed():
    raw = translate(LOOPS)
    assert loops(raw) == 4
    assert len(loop_bounds(decode(raw))) == 4
    compiled = wgsl_to_spirv(LOOPS, "loops.wgsl")
    assert compiled.unbounded == 4
    module = decode(compiled.binary)
    assert loops(compiled.binary) == 4 and not loop_bounds(module)
    assert not [i for i in module.instructions if i.opcode == "OpAll"]
    vectors = {t for t, kind in module.view.types.items() if isinstance(kind, VectorType)}
    pointers = {t for t, kind in module.view.types.items() if isinstance(kind, PointerType) and kind.pointee in vectors}
    assert not [i for i in module.instructions if i.opcode == "OpVariable" and i.result_type in pointers]
    assert "removed from 4 loops: checked as the WGSL says, without it" in compiled.notes[0]


def test_the_spin_is_checked_as_the_wgsl_says_not_as_naga_bounded_it(tmp_path):
    (tmp_path / "spin.wgsl").write_text(SPIN)
    done = check("--model", "unfair", "spin.wgsl", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "unfair: may not terminate" in done.stdout
    assert "spin.wgsl:9  while (atomicLoad(&flag) == 0u) {" in done.stdout
    assert "naga's loop bound (wgpu's force_loop_bounding" in done.stderr + done.stdout
    # naga's module as compiled: the spin ends after 2^64 turns, the counter in every state
    (tmp_path / "bounded.spv").write_bytes(translate(SPIN))
    done = check("--model", "unfair", "--workgroups", "2", "--max-states", "3000", "bounded.spv", cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "inconclusive" in done.stdout


def test_a_kernels_own_counter_of_that_shape_is_kept(tmp_path):
    source = OWN_COUNTER.format(start=ALL_ONES)
    compiled = wgsl_to_spirv(source, "own.wgsl")
    assert compiled.unbounded == 1  # naga's, not the kernel's
    module = decode(compiled.binary)
    bound = next(v for v, name in module.view.names.items() if name == "bound")
    variable = module.view.definitions[bound]
    init = module.view.constants[variable.operands[1].value]
    assert [module.view.constants[c].value for c in init.constituents] == [0xFFFFFFFF, 0xFFFFFFFF]
    assert [i.opcode for i in module.instructions].count("OpAll") == 1
    (tmp_path / "own.wgsl").write_text(source)
    done = check("--model", "unfair", "--max-states", "3000", "own.wgsl", cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr  # 2^64 turns of the kernel's own counter
    (tmp_path / "short.wgsl").write_text(OWN_COUNTER.format(start="0u, 2u"))
    done = check("short.wgsl", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr  # its own bound ends the wait under every model
    assert "removed from 1 loop:" in done.stdout


ONE_LOOP = "@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;\n" + (
    "@compute @workgroup_size(1)\nfn main() {\n    while (atomicLoad(&flag) == 0u) {\n    }\n}\n"
)


def _extra_use(text: str) -> str:
    load = re.search(r"(%\w+) = OpLoad %v2uint %loop_bound", text).group(1)
    return re.sub(r"(OpStore %loop_bound %\w+)", rf"\1\n%extra = OpCopyObject %v2uint {load}", text)


def _extra_store(text: str) -> str:
    init = re.search(r"OpVariable %_ptr_Function_v2uint Function (%\w+)", text).group(1)
    return re.sub(r"(OpStore %loop_bound %\w+)", rf"\1\nOpStore %loop_bound {init}", text)


NEAR_MISSES = {
    "starts below all ones": lambda t: re.sub(
        r"(OpConstantComposite %v2uint %uint_4294967295) %uint_4294967295", r"\1 %uint_1", t
    ),
    "tests another lane": lambda t: re.sub(r"(OpCompositeExtract %uint %\w+) 1\n", r"\1 0\n", t),
    "borrows the other way": lambda t: re.sub(r"(OpSelect %uint %\w+) %uint_1 %uint_0", r"\1 %uint_0 %uint_1", t),
    "decrements the high lane": lambda t: re.sub(r"(OpCompositeConstruct %v2uint) (%\w+) %uint_1", r"\1 %uint_1 \2", t),
    "compares for inequality": lambda t: t.replace("OpIEqual %v2bool", "OpINotEqual %v2bool"),
    "any lane": lambda t: t.replace("OpAll %bool", "OpAny %bool"),
    "counts up": lambda t: t.replace("OpISub %v2uint", "OpIAdd %v2uint"),
    "stays in the loop at zero": lambda t: re.sub(
        r"(OpAll %bool %\w+\n\s+OpSelectionMerge %\w+ None\n\s+OpBranchConditional %\w+) (%\w+) (%\w+)", r"\1 \3 \2", t
    ),
    "its value read elsewhere": _extra_use,
    "its variable written elsewhere": _extra_store,
}


@pytest.fixture(scope="module")
def one_loop_text(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("naga") / "one.spv"
    path.write_bytes(translate(ONE_LOOP))
    return subprocess.run(["spirv-dis", str(path)], capture_output=True, text=True, check=True).stdout


def assembled(text: str, tmp_path: Path) -> bytes:
    (tmp_path / "k.spvasm").write_text(text)
    subprocess.run(["spirv-as", str(tmp_path / "k.spvasm"), "-o", str(tmp_path / "k.spv")], check=True)
    return (tmp_path / "k.spv").read_bytes()


def test_the_shape_survives_disassembly(one_loop_text, tmp_path):
    assert len(loop_bounds(decode(assembled(one_loop_text, tmp_path)))) == 1


@pytest.mark.parametrize("miss", NEAR_MISSES, ids=list(NEAR_MISSES))
def test_near_misses_are_not_naga_s_bound(miss, one_loop_text, tmp_path):
    mutated = NEAR_MISSES[miss](one_loop_text)
    assert mutated != one_loop_text
    assert loop_bounds(decode(assembled(mutated, tmp_path))) == []
