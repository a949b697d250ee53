"""What a kernel reads as constants, set at launch (docs/kernels.md, "Launch settings"):
specialization constants (`--spec ID=V`, `--spec NAME=V`, `local_size_x_id`),
push constants (`--push`), the workgroup size (`--local-size`), from the command line
and the `// progress:` header. Each kernel's final memory is checked against a formula
worked out by hand from its source."""

from __future__ import annotations

from pathlib import Path

import pytest

from progress.cli.kernel import given_settings, kernel_system, terminal_memories
from progress.errors import InputError, UsageError
from progress.front.header import LaunchSettings, launch_settings, parse_local_size, parse_spec

LAUNCH = Path(__file__).parent / "data" / "launch"
REPRO = Path(__file__).parent / "data" / "repro"


def memory(path: Path, workgroups: str | None = None, **constants) -> dict[str, int]:
    """The one memory every run of the kernel ends in."""
    system = kernel_system(path, given_settings(workgroups, [], [], None, None, **constants))
    (final,) = terminal_memories(system, None, None)
    return dict(final)


def refused(path: Path, **constants) -> str:
    with pytest.raises(InputError) as caught:
        memory(path, **constants)
    return caught.value.render()


def test_a_shared_array_sized_by_a_specialization_constant():
    """spec_array.comp: `shared uint s[N]`, N a spec constant (default 4): its length was None."""
    assert memory(REPRO / "spec_array.comp") == {"out_": 1, **{f"wg0:s[{i}]": int(i == 0) for i in range(4)}}
    assert memory(REPRO / "spec_array.comp", specs=("N=2",)) == {"out_": 1, "wg0:s[0]": 1, "wg0:s[1]": 0}
    assert memory(REPRO / "spec_array.comp", specs=("0=1",)) == {"out_": 1, "wg0:s[0]": 1}


@pytest.mark.parametrize(
    "specs, message",
    [
        (("7=1",), "--spec 7=1: no specialization constant has SpecId 7 (the kernel's: 0 N)"),
        (("M=1",), "--spec M=1: no specialization constant has the name 'M' (the kernel's: 0 N)"),
        (("N=0",), "OpTypeArray: specialized to the length 0, not in 1..65536"),
    ],
)
def test_specialization_refusals_name_the_constant(specs, message):
    assert message in refused(REPRO / "spec_array.comp", specs=specs)


def spec_ops(a: int, b: int, flag: bool) -> dict[str, int]:
    """spec_ops.spvasm by hand: out[] = a+b, a-b, flag ? a : b, b, a<b, (a+b)/4 (32-bit,
    unsigned); the Workgroup array scratch is (a+b)/4 long and its last element is 1."""
    mask = 0xFFFFFFFF
    length = ((a + b) & mask) // 4
    out = [(a + b) & mask, (a - b) & mask, a if flag else b, b, int(a < b), length]
    return {f"out[{i}]": v for i, v in enumerate(out)} | {
        f"wg0:scratch[{i}]": int(i == length - 1) for i in range(length)
    }


@pytest.mark.parametrize(
    "specs, a, b, flag",
    [((), 5, 7, True), (("1=9", "2=2", "flag=false"), 9, 2, False), (("a=4294967295", "b=9"), 2**32 - 1, 9, True)],
)
def test_operations_on_specialization_constants_are_evaluated(specs, a, b, flag):
    assert memory(LAUNCH / "spec_ops.spvasm", specs=specs) == spec_ops(a, b, flag)


def reduction(workgroups: int, size: int) -> dict[str, int]:
    """reduce512.comp by hand: partial[i] = i + 1, then the tree (s = size/2, size/4, ... 1)
    adds partial[i + s] into partial[i] for i < s; each workgroup adds partial[0]."""
    partial = [i + 1 for i in range(size)]
    s = size // 2
    while s > 0:
        for i in range(s):
            partial[i] += partial[i + s]
        s //= 2
    cells = {f"wg{w}:partial[{i}]": v for w in range(workgroups) for i, v in enumerate(partial)}
    return {"total": workgroups * partial[0]} | cells


@pytest.mark.parametrize("size", ["1", "2", "4"])
def test_a_512_invocation_kernel_checked_at_a_few_invocations(size):
    """local_size_x_id with a default of 512: the header's --local-size 2 and the command line's;
    a --spec of the size's constant wins over the header's --local-size."""
    assert memory(LAUNCH / "reduce512.comp", local_size=size) == reduction(2, int(size))
    assert memory(LAUNCH / "reduce512.comp", specs=(f"0={size}",)) == reduction(2, int(size))


def test_the_header_sets_the_local_size():
    system = kernel_system(LAUNCH / "reduce512.comp", LaunchSettings())
    assert system.per_group == 2
    assert dict(next(iter(terminal_memories(system, None, None)))) == reduction(2, 2)


def test_at_its_own_size_the_launch_is_taken():
    """512 invocations a workgroup are no longer refused (issue 29): the check is bounded
    by states and memory; --local-size still makes it small enough to finish."""
    system = kernel_system(LAUNCH / "reduce512.comp", given_settings(None, [], [], None, None, local_size="512"))
    assert system.per_group == 512 and len(system.groups) == 1024


def test_a_literal_size_read_as_gl_workgroupsize_gets_constants_of_its_own():
    """`local_size_x = 512` read through gl_WorkGroupSize: the built-in constant is given
    new constants (glslang shares %uint_512 with every other 512 of the kernel)."""
    assert memory(LAUNCH / "read_size.comp", "2", local_size="3") == {"total": 2}
    assert memory(LAUNCH / "read_size.comp", "1", local_size="1,1,1") == {"total": 1}


def test_a_literal_size_the_code_depends_on_without_reading_it_is_refused():
    text = refused(LAUNCH / "fixed_size.comp", local_size="2")
    assert "the workgroup size 512,1,1 is written into the kernel" in text
    assert "make it a specialization constant (local_size_x_id)" in text


def test_push_constants_are_zero_unless_given():
    assert memory(LAUNCH / "push.comp", "2") == {"counter": 0}
    assert memory(LAUNCH / "push.comp", "2", pushes=("params.step=3", "params.rounds=2")) == {"counter": 2 * 2 * 3}
    assert memory(LAUNCH / "push.comp", "1", pushes=("params=1",)) == {"counter": 1}  # every member
    assert "no push constant is called 'step'" in refused(LAUNCH / "push.comp", pushes=("step=1",))
    assert "the kernel has no push constants" in refused(LAUNCH / "read_size.comp", local_size="1", pushes=("x=1",))


def test_the_header_spelling_and_the_command_line_winning():
    text = "// progress: --spec N=2 --spec 1=true --push pc.n[1]=-1 --local-size 4,2\n#version 450\n"
    header = launch_settings(text, "k.comp", "glsl")
    assert header.spec == (("N", 2), ("1", 1))
    assert header.push == (("pc.n", 1, 0xFFFFFFFF),)
    assert header.local_size == (4, 2, 1)
    cli = given_settings(None, [], [], None, None, specs=("N=3",), pushes=("pc.n[1]=5",), local_size="8")
    merged = header.overridden_by(cli)
    assert merged.spec == (("1", 1), ("N", 3)) and merged.push == (("pc.n", 1, 5),) and merged.local_size == (8, 1, 1)


@pytest.mark.parametrize(
    "text, message",
    [
        ("N", "--spec wants ID=VALUE or NAME=VALUE"),
        ("N=maybe", "--spec wants ID=VALUE or NAME=VALUE"),
        ("N=4294967296", "not a 32-bit integer"),
        ("N=-2147483649", "not a 32-bit integer"),
        ("99999999999=1", "a SpecId is a 32-bit number"),
    ],
)
def test_bad_spec_values(text, message):
    with pytest.raises(UsageError, match=message):
        parse_spec(text)


@pytest.mark.parametrize("text", ["0", "2,0", "1025", "1,2,3,4", "2x2", "", "9" * 40])
def test_bad_local_sizes(text):
    with pytest.raises(UsageError, match="--local-size"):
        parse_local_size(text)


def test_specialized_launches_have_their_own_hash():
    plain = kernel_system(LAUNCH / "reduce512.comp", given_settings(None, [], [], None, None, local_size="1"))
    other = kernel_system(LAUNCH / "reduce512.comp", given_settings(None, [], [], None, None, local_size="4"))
    assert plain.digest != other.digest


def test_optimize_keeps_specialization_constants_and_refuses_a_folded_size():
    """spirv-opt -O keeps specialization constants (a pipeline still sets them), so the
    optimized module specializes the same; it folds a literal gl_WorkGroupSize into its
    uses, and then the optimized module's --local-size is refused, not checked wrong."""
    from progress.cli.kernel import check_kernel
    from progress.core.analyze import queries_for
    from progress.core.registry import all_models

    def run(path: Path, **constants):
        given = given_settings(None, [], [], None, True, **constants)
        return check_kernel(path, given, queries_for(all_models()), max_states=None, time_limit=None, witnesses=False)

    result = run(LAUNCH / "reduce512.comp")
    assert len(result.checked) == 2 and result.failed is None
    assert result.differences == (
        "reduce512: --optimize: the same verdicts and the same terminal memory states after spirv-opt -O",
    )
    folded = run(LAUNCH / "read_size.comp", local_size="3")
    assert len(folded.checked) == 1 and folded.failed is not None
    assert "the workgroup size 512,1,1 is written into the kernel" in folded.failed.message


def test_an_operation_without_a_value_is_refused_at_its_line(tmp_path):
    text = (LAUNCH / "spec_ops.spvasm").read_text().replace("UDiv %sum %u4", "UDiv %sum %b")
    (tmp_path / "div.spvasm").write_text(text)
    assert memory(tmp_path / "div.spvasm", specs=("a=4",))["out[5]"] == (4 + 7) // 7
    message = refused(tmp_path / "div.spvasm", specs=("b=0",))
    assert "div.spvasm:44:9: error: OpSpecConstantOp: OpUDiv cannot be evaluated (division by zero)" in message


KERNELS = Path(__file__).parents[1] / "litmus" / "kernels"


def test_hlsl_specialization_and_push_constants():
    """hlsl_spec_ticket_lock.hlsl: `[[vk::constant_id(1)]] ROUNDS` and a
    `[[vk::push_constant]]` ConstantBuffer; every workgroup adds `increments`
    ROUNDS times under the lock, and serves as many tickets as it took. (Cells
    by buffer and index: glslang named the array member, Slang's is left out.)"""
    path = KERNELS / "hlsl_spec_ticket_lock.hlsl"

    def cells(workgroups: str | None = None, **constants) -> tuple[int, int, int]:
        final = memory(path, workgroups, **constants)
        value = {(name.split(".")[0].split("[")[0], name.rsplit("[", 1)[1]): v for name, v in final.items()}
        return value[("tickets", "0]")], value[("tickets", "1]")], value[("counter", "0]")]

    assert cells() == (4, 4, 2 * 2 * 3)  # the header: 2 workgroups, ROUNDS=2, pc.increments=3
    assert cells("3", specs=("1=1",), pushes=("pc.increments=5",)) == (3, 3, 3 * 1 * 5)
    assert cells("1", specs=("ROUNDS=3",), pushes=("pc=0",)) == (3, 3, 0)
    assert "no specialization constant has SpecId 7" in refused(path, specs=("7=1",))


@pytest.mark.parametrize("spec", ["0=4", "0=1"])
def test_a_spec_and_a_local_size_of_one_constant_are_refused(spec):
    """--local-size 2 and --spec 0=4 on one command line: the --spec won silently (a kernel
    checked at 4 invocations while the user asked for 2); now refused, both named, at the
    line that declares the size. An equal value is no conflict; the command line's --spec
    still wins over the header's --local-size (test above)."""
    text = refused(LAUNCH / "reduce512.comp", local_size="2", specs=(spec,))
    assert f"--spec {spec} and --local-size 2,1,1 both set the specialization constant 0" in text
    assert "reduce512.comp:6:" in text and "local_size_x_id = 0" in text
    assert memory(LAUNCH / "reduce512.comp", local_size="2", specs=("0=2",)) == reduction(2, 2)


def test_the_header_giving_both_is_refused(tmp_path):
    kernel = tmp_path / "both.comp"
    kernel.write_text((LAUNCH / "reduce512.comp").read_text().replace("--local-size 2", "--local-size 2 --spec 0=4"))
    assert "--spec 0=4 and --local-size 2,1,1 both set" in refused(kernel)


def test_init_reaches_a_member_of_an_array_of_structs(tmp_path):
    """`--init g_queue[0].m_head=1` (AnKi's job queue: an array of structs) was refused by the
    option's grammar (NAME or NAME[INDEX] only)."""
    from progress.front.header import parse_init

    assert parse_init("a[1].b[2]=5") == ("a[1].b", 2, 5)
    kernel = tmp_path / "q.comp"
    kernel.write_text(
        "#version 450\nlayout(local_size_x = 1) in;\nstruct Q { uint a; uint b; };\n"
        "layout(std430, binding = 0) buffer B { Q q[]; };\nvoid main() { q[1].b += 1u; }\n"
    )
    system = kernel_system(kernel, given_settings(None, ["q=2"], ["q[1].b=5"], None, None))
    (final,) = terminal_memories(system, None, None)
    assert dict(final) == {"q[0].a": 0, "q[0].b": 0, "q[1].a": 0, "q[1].b": 6}
