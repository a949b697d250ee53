"""naga under Node (progress/front/wgsl/naga.py): the pinned install, what is
missing named with its fix (exit 2), naga's refusals at the WGSL file:line:col,
the tools' limits, the cache; hostile sources end in a positioned error."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, progress_command

from progress.errors import InputError
from progress.front.header import LaunchSettings
from progress.front.spirv.load import load_kernel
from progress.front.spirv.toolchain import ToolLimits
from progress.front.wgsl import naga
from progress.front.wgsl.naga import NPM_DIR, PINNED, NagaRefusal, refusal_error, translate

GOOD = "@compute @workgroup_size(1)\nfn main() {\n    var x = 0u;\n    x += 1u;\n}\n"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "progress" / "wgsl"


def check(*args: str, env: dict | None = None, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        progress_command() + ["check", *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env
    )


def refusal(source: str, name: str = "k.wgsl") -> InputError:
    with pytest.raises(InputError) as caught:
        load_kernel(source.encode(), name, "wgsl")
    return caught.value


def test_the_pin_is_the_lock_files_and_the_installed_package():
    lock = json.loads((NPM_DIR / "package-lock.json").read_text())
    entry = lock["packages"]["node_modules/naga-wasm"]
    assert entry["version"] == PINNED and entry["integrity"].startswith("sha512-")
    assert json.loads((NPM_DIR / "package.json").read_text())["dependencies"] == {"naga-wasm": PINNED}
    assert naga.version() == f"naga-wasm {PINNED}"


def test_a_parse_error_is_at_the_wgsl_line_and_column_in_characters():
    source = "@compute @workgroup_size(1)\nfn main() { /* é é */ let x: u32 = 1i; }\n"
    error = refusal(source)
    assert (error.position.path, error.position.line, error.position.column) == ("k.wgsl", 2, 27)
    assert error.message == "naga: the type of `x` is expected to be `u32`, but got `i32`: definition of `x`"
    rendered = error.render().splitlines()
    assert (
        rendered[0]
        == "k.wgsl:2:27: error: naga: the type of `x` is expected to be `u32`, but got `i32`: definition of `x`"
    )
    assert rendered[2].index("^") - 4 == rendered[1][4:].index("x: u32")


def test_a_validation_error_says_why_and_where():
    source = (
        "@group(0) @binding(0) var<storage, read> a: array<u32>;\n"
        "@compute @workgroup_size(1)\nfn main() {\n    a[0] = 1u;\n}\n"
    )
    error = refusal(source)
    assert (error.position.line, error.position.column) == (4, 5)
    assert "writing to this location is not permitted" in error.message
    assert "doesn't relate to a valid destination for a store" in error.message


def test_an_error_without_a_position_names_the_file():
    source = "@compute @workgroup_size(1)\nfn main(@builtin(position) p: vec4f) {}\n"
    error = refusal(source)
    assert error.position is None
    assert error.message.startswith("k.wgsl: naga: Entry point main at Compute is invalid")
    assert "is not available at this stage" in error.message


def test_the_cli_prints_the_error_with_a_caret_and_goes_on(tmp_path):
    (tmp_path / "bad.wgsl").write_text("fn main( {\n")
    (tmp_path / "good.wgsl").write_text("// progress: --workgroups 2\n" + GOOD)
    done = check(str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    at = lines.index(next(line for line in lines if line.startswith(f"{tmp_path}/bad.wgsl:1:10: error: naga:")))
    assert lines[at + 1 : at + 3] == ["    fn main( {", "             ^"]
    assert "good  " in done.stdout  # the other file was checked


def test_hostile_sources_end_in_input_errors():
    deep = "fn f() -> u32 { return " + "(" * 5000 + "1u" + ")" * 5000 + "; }\n"
    assert "recursion limit" in refusal(deep).message
    braces = "fn f() {" + "{" * 3000 + "}" * 3000 + "}\n"
    assert refusal(braces).position.line == 1
    assert refusal("").message == "k.wgsl: the file is empty"
    with pytest.raises(InputError) as caught:
        load_kernel(b"fn main() {}\n\xff\n", "k.wgsl", "wgsl")
    assert str(caught.value.position) == "k.wgsl:2:1" and caught.value.message == "the file is not UTF-8 text"
    assert "entry point" in refusal("fn main() {}\n").message


def test_missing_node_is_named_with_its_package(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}
    (tmp_path / "k.wgsl").write_text(GOOD)
    done = check(str(tmp_path / "k.wgsl"), env=env)
    assert done.returncode == 2
    assert (
        "node is not installed (or not on PATH): reading WGSL needs it; install the Debian package nodejs"
        in done.stderr
    )


def test_a_missing_or_other_naga_is_named_with_the_fix(tmp_path):
    (tmp_path / "k.wgsl").write_text(GOOD)
    env = {**os.environ, "PROGRESS_NAGA_DIR": str(tmp_path / "none")}
    done = check(str(tmp_path / "k.wgsl"), env=env)
    assert done.returncode == 2
    assert f"naga-wasm {PINNED} is not installed" in done.stderr and "npm ci" in done.stderr
    other = tmp_path / "other" / "node_modules" / "naga-wasm"
    other.mkdir(parents=True)
    (other / "package.json").write_text('{"version": "29.0.0"}')
    done = check(str(tmp_path / "k.wgsl"), env={**os.environ, "PROGRESS_NAGA_DIR": str(tmp_path / "other")})
    assert done.returncode == 2
    assert f"naga-wasm 29.0.0 is installed in {tmp_path / 'other'}, progress reads WGSL with {PINNED}" in done.stderr


def test_limits_stop_node_with_a_message():
    with pytest.raises(InputError, match=r"naga did not finish within 0.001 s"):
        translate(GOOD + "// a\n", ToolLimits(timeout_s=0.001))
    with pytest.raises(InputError, match=r"naga under node .* \(it may use at most 64 MiB of memory here\)"):
        translate(GOOD + "// b\n", ToolLimits(timeout_s=30, memory_bytes=64 << 20))
    assert translate(GOOD + "// c\n", ToolLimits(timeout_s=30, memory_bytes=512 << 20))[:4] == naga.MAGIC


def test_outputs_are_cached(monkeypatch, private_cache):
    first = translate(GOOD)
    assert len(list(private_cache.glob("*.spv"))) == 1

    def no_node(*_args):
        raise AssertionError("node ran again")

    monkeypatch.setattr(naga, "_run", no_node)
    assert translate(GOOD) == first


def test_refusal_reports_are_read_as_naga_writes_them():
    report = (
        'error: expected identifier, found "{"\n'
        "  ┌─ wgsl:1:10\n  │\n1 │ fn main( {\n  │          ^ expected identifier\n\n"
    )
    error = refusal_error(NagaRefusal("parse", report), "fn main( {\n", "x.wgsl")
    assert str(error.position) == "x.wgsl:1:10"
    assert error.message == 'naga: expected identifier, found "{": expected identifier'
    nowhere = refusal_error(NagaRefusal("validation", "error: broken\n = because\n"), "", "x.wgsl")
    assert nowhere.position is None and nowhere.message == "x.wgsl: naga: broken (because)"


BALLOT = """enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32, 2>;
@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = subgroupBallot(i == 1u).x + 10u * subgroupShuffle(i + 1u, 1u - i);
}
"""


def test_enable_subgroups_is_taken_out_for_naga():
    """naga-wasm refused `enable subgroups;` by name ("not yet supported"; b0nes164's
    MetalMinRepro stress.wgsl) though it translates the built-ins: blanked, columns kept.
    Each lane writes ballot(i == 1).x = 2 plus 10 x the other lane's i + 1."""
    from progress.front.wgsl.enables import without_naga_refused

    kernel = load_kernel(BALLOT.encode(), "k.wgsl", "wgsl")
    cells = {k: v for k, v in kernel_finals(kernel).items()}
    assert cells == {"out[0]": 2 + 10 * 2, "out[1]": 2 + 10 * 1}
    assert any("`enable subgroups;` taken out" in note for note in kernel.notes)
    assert without_naga_refused("  enable f16, subgroups;\nx") == ("  enable f16;           \nx", True)
    assert without_naga_refused("enable f16;\n") == ("enable f16;\n", False)


def kernel_finals(kernel) -> dict[str, int]:
    from progress.cli.kernel import terminal_memories
    from progress.front.spirv.load import launch_system

    (final,) = terminal_memories(launch_system(kernel, "k", "k.wgsl"), None, None)
    return dict(final)


SHARED = """struct Pair { a: u32, b: array<u32, 2> }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> s: array<u32, 2>;
var<workgroup> p: Pair;
@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    s[i] = i + 1u;
    p.b[i] = 10u * (i + 1u);
    workgroupBarrier();
    out[i] = s[1u - i] + p.b[1u - i];
}
"""


def test_workgroup_arrays_lose_naga_s_layout_decorations():
    """naga writes ArrayStride on every array and Offset on every struct member, which Vulkan
    forbids in workgroup memory: spirv-val (2025.5, VUID-StandaloneSpirv-None-10684) refused
    every WGSL kernel with a `var<workgroup>` array (b0nes164's GPUPrefixSums csdl.wgsl).
    Lane i reads the other lane's s and p.b: out = [2 + 20, 1 + 10]."""
    kernel = load_kernel(SHARED.encode(), "k.wgsl", "wgsl", LaunchSettings(buffers={"out": 2}))
    assert kernel_finals(kernel) == {"out[0]": 22, "out[1]": 11, "wg0:s[0]": 1, "wg0:s[1]": 2} | {
        "wg0:p.a": 0,
        "wg0:p.b[0]": 10,
        "wg0:p.b[1]": 20,
    }
