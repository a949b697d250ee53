"""The playground's kernels (GLSL, HLSL, SPIR-V assembly) through Starlette's
TestClient: verdicts against each kernel's `expect:` line (the corpus's
hand-derived verdicts), the lasso as `progress check` prints it, errors at
line:col, refusals at their source line, the limits (size, states, the
toolchain's time-out, the picture's bound), the launch fields, the URL.
"""

from __future__ import annotations

import html
import re
import subprocess
import time
from urllib.parse import parse_qs, urlparse

import pytest
from starlette.testclient import TestClient

from progress.core.registry import all_models
from progress.front.header import kernel_expectations
from progress.front.spirv import toolchain, tools
from progress.web.app import create_app
from progress.web.examples import FOLDER, KERNELS, examples
from progress.web.limits import Limits
from progress.web.site import Site
from tests.conftest import REPO, progress_command

CORPUS = REPO / "litmus" / "kernels"
TAS = (CORPUS / "tas_spinlock.comp").read_text()
KNOWN = {
    (model.name.upper(), fairness): model.name
    for model in all_models()
    for fairness in (("weak", "strong") if model.has_fairness else ("none",))
}


def client_of(tmp_path, **limits) -> TestClient:
    return TestClient(create_app(Site({}, tmp_path / "r.db", all_models(), Limits(**limits))))


@pytest.fixture
def client(tmp_path):
    return client_of(tmp_path)


def check(client, text: str, lang: str = "glsl", **params):
    return client.post("/api/check", params={"lang": lang, **params}, content=text.encode())


def verdicts(body) -> dict:
    return {(r["model"].upper(), r["fairness"]): r["terminates"] for r in body["results"]}


def test_the_examples_are_the_corpus_files():
    offered = {e.name: e for e in examples()}
    for name in KERNELS:
        target = (FOLDER / name).resolve()  # a link into the corpus (a WGSL one: litmus/wgsl/)
        assert target.is_relative_to(CORPUS.parent) and target.name == name.removeprefix("wgsl_")
        assert offered[name.rsplit(".", 1)[0]].text == target.read_text()


@pytest.mark.parametrize("example", [e for e in examples() if e.language != "axb"], ids=lambda e: e.name)
def test_every_kernel_example_gets_the_verdicts_its_header_expects(client, example):
    answer = check(client, example.text, example.language)
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    expected = kernel_expectations(example.text, example.name, example.language, KNOWN)
    assert len(expected) == 11 and verdicts(body) == expected
    assert body["language"] == example.language and body["inconclusive"] is False


def test_a_kernel_lasso_is_printed_as_progress_check_prints_it(client, tmp_path):
    body = check(client, TAS, view="HSA/weak").json()
    lasso = next(r["lasso"] for r in body["results"] if (r["model"], r["fairness"]) == ("HSA", "weak"))
    assert "kernel.comp:25  while (atomicExchange(lock, 1u) != 0u) {  [lock 0->1]" in lasso
    (tmp_path / "kernel.comp").write_text(TAS)
    done = subprocess.run(
        [*progress_command(), "check", "kernel.comp", "--model", "HSA", "--weak"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    printed = done.stdout.splitlines()[1:-1]  # between the verdict line and the summary
    assert [line.removeprefix("    ") for line in printed] == lasso.splitlines()
    assert body["launch"] == "2 workgroups of 1 invocation"


def test_the_kernel_page_draws_the_lasso_and_its_picture(client):
    page = client.get("/playground", params={"lang": "glsl", "test": TAS, "view": "HSA/weak"})
    assert page.status_code == 200
    assert "<svg" in page.text and "id=picture" in page.text and "id=lasso" in page.text
    assert "#c0392b" in page.text  # the loop drawn in red
    # a state: the cells, then each invocation's line, action and the values it holds
    shown = html.unescape(page.text)
    assert all(
        f">{line}</text>" in shown for line in ("lock=1 counter=0", "0.0 :27 Load counter", "0.0 :27 Store counter [1]")
    )
    assert "launched with 2 workgroups of 1 invocation" in page.text


def test_a_deadlock_is_drawn_and_its_waits_listed(client):
    page = client.get("/playground", params={"example": "barrier_divergence"})
    assert page.status_code == 200 and "<svg" in page.text
    assert "then nothing is enabled" in page.text and "waits at kernel.comp:27" in page.text
    assert page.text.count("may not terminate") >= 11


def test_a_compile_error_is_at_its_line_and_column(client):
    text = TAS.replace("counter = counter + 1u;", "counter = counter + missing;")
    line = TAS.splitlines().index("    counter = counter + 1u;") + 1
    body = check(client, text).json()
    assert body["ok"] is False and (body["line"], body["column"]) == (line, 25), body
    assert body["rendered"].startswith(f"kernel.comp:{line}:25: error: 'missing' : undeclared identifier")
    page = client.get("/playground", params={"lang": "glsl", "test": text}).text
    assert f"kernel.comp:{line}:25: error" in page and "class=bad" in page and "class=caret" in page


@pytest.mark.parametrize(
    "construct, refusal",
    [
        ("counter = uint(exp(float(counter)));", "Exp of GLSL.std.450 is not supported"),
        ("counter = readFirstInvocationARB(counter);", "this subgroup operation is not supported"),
    ],
)
def test_an_unsupported_construct_is_refused_at_its_line(client, construct, refusal):
    text = TAS.replace("#version 450\n", "#version 450\n#extension GL_ARB_shader_ballot : enable\n")
    text = text.replace("    counter = counter + 1u;", "    " + construct)
    body = check(client, text).json()
    assert body["ok"] is False and refusal in body["error"], body
    assert text.splitlines()[body["line"] - 1].strip() == construct


def test_an_oversize_kernel_is_refused_unread(client):
    big = TAS + "//" + "x" * 16_384 + "\n"
    assert check(client, big).status_code == 413
    assert client.get("/playground", params={"lang": "glsl", "test": big}).status_code == 413
    assert check(client, TAS, init="x=1 " * 5000).status_code == 413  # the launch fields count too


def test_a_kernel_past_the_state_bound_is_inconclusive(tmp_path):
    tight = client_of(tmp_path, max_states=5)
    body = check(tight, (CORPUS / "ticket_lock.comp").read_text()).json()
    assert body["inconclusive"] is True
    assert all(r["terminates"] is None and "state bound of 5" in r["inconclusive"] for r in body["results"])
    page = tight.get("/playground", params={"example": "ticket_lock"}).text
    assert "Inconclusive" in page and "nothing to draw" in page


def test_a_kernel_past_the_time_bound_is_inconclusive(tmp_path):
    hasty = client_of(tmp_path, time_limit_s=1e-6)  # the clock is read every 256 states; this kernel has 2,173
    body = check(hasty, (CORPUS / "occupancy_discovery.comp").read_text()).json()
    assert body["inconclusive"] is True
    assert all(r["terminates"] is None and r["inconclusive"] == "stopped at the time limit" for r in body["results"])


def test_a_kernel_larger_than_the_picture_bound_says_so(client):
    page = client.get("/playground", params={"example": "occupancy_discovery"}).text
    note = re.search(r"id=picture-note>([^<]*)", page)
    assert note is not None and note.group(1).endswith("pictures are drawn up to 400"), note
    assert "<svg" not in page and "id=lasso" in page  # HSA weak, drawn by default, fails: its lasso is shown


def test_the_compiler_is_bounded_in_time(tmp_path, monkeypatch):
    fake = tmp_path / "bin"
    fake.mkdir()
    script = fake / "glslangValidator"
    script.write_text('#!/bin/sh\ncase "$1" in --version) echo fake 1.0;; *) sleep 30;; esac\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:/usr/bin:/bin")
    monkeypatch.setattr(tools, "cmeel_prefix", lambda: None)  # the fake, not the PyPI glslang
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no cached compile of an earlier run
    toolchain.tool_version.cache_clear()
    try:
        start = time.perf_counter()
        body = check(client_of(tmp_path, tool_timeout_s=0.5), TAS).json()
        assert time.perf_counter() - start < 10
    finally:
        toolchain.tool_version.cache_clear()
    assert body["ok"] is False and body["error"] == "glslangValidator did not finish within 0.5 s"


def test_the_compiler_is_bounded_in_memory(tmp_path):
    doubling = "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 25))
    text = TAS.replace("#version 450\n", "#version 450\n#define A0 + 1u\n" + doubling)
    text = text.replace("counter = counter + 1u;", "counter = 0u A24;")  # 16 million terms
    start = time.perf_counter()
    body = check(client_of(tmp_path, tool_memory_bytes=128 << 20), text).json()
    assert time.perf_counter() - start < 10  # stopped by the memory limit, not the 10 s time-out
    assert body["ok"] is False
    assert re.fullmatch(
        r"glslangValidator was stopped by signal \d+: it may use at most 128 MiB of memory here", body["error"]
    )


def test_launch_fields_override_the_header(client):
    alone = check(client, TAS, workgroups="1").json()
    assert alone["launch"] == "1 workgroup of 1 invocation"
    assert all(r["terminates"] is True for r in alone["results"])  # one workgroup finds the lock free
    bad = check(client, TAS, workgroups="99").json()
    assert bad["ok"] is False and bad["error"] == "the launch fields: --workgroups '99' is outside 1..64"
    held = check(client, TAS, init="lock=1 counter=5").json()
    assert held["launch"] == "2 workgroups of 1 invocation, init lock=1 counter=5"
    assert all(r["terminates"] is False for r in held["results"])  # nobody holds the lock that is taken


COUNTS = """\
// progress: --workgroups 2 --buffer data=2
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
void main() {
    atomicAdd(data[gl_WorkGroupID.x], 1u);
}
"""


def test_buffer_fields_replace_the_headers_and_a_run_time_error_is_reported(client):
    given = check(client, COUNTS, buffer="data=3", init="data[2]=7").json()
    assert given["launch"] == "2 workgroups of 1 invocation, buffers data=3, init data[2]=7"
    assert all(r["terminates"] is True for r in given["results"])
    short = check(client, COUNTS, buffer="data=1")
    assert short.status_code == 400
    assert "kernel.comp:6: OpAccessChain: index 1 is out of bounds of an array of length 1" in short.json()["error"]


def test_launch_fields_and_unknown_languages_are_refused_with_axb(client):
    axb = "thread 0\n  AXB(x, 0, 1, true, 1)\n"
    body = check(client, axb, "axb", workgroups="2").json()
    assert body["ok"] is False and "launch fields" in body["error"]
    body = check(client, axb, "cobol").json()
    assert body["ok"] is False and "unknown language 'cobol'" in body["error"]
    assert client.get("/playground", params={"example": "nothing"}).status_code == 404


def test_the_kernel_and_its_language_live_in_the_url(client):
    params = {"lang": "glsl", "test": TAS, "workgroups": "3"}
    page = client.get("/playground", params=params).text
    shown = re.search(r"<textarea[^>]*>(.*?)</textarea>", page, re.S)
    assert shown is not None and html.unescape(shown.group(1)) == TAS
    assert '<option value="glsl" selected' in page and 'value="3"' in page
    draws = [html.unescape(href) for href in re.findall(r'<a class="draw" href="(/playground\?[^"]*)"', page)]
    assert len(draws) == 10  # every verdict but the one drawn
    for href in draws:
        again = parse_qs(urlparse(href).query)
        assert {key: again[key] for key in params} == {key: [value] for key, value in params.items()}
    followed = client.get(draws[0]).text
    assert "launched with 3 workgroups of 1 invocation" in followed
    assert followed.count("<tr>") == page.count("<tr>")  # the same verdicts, another one drawn


def test_an_empty_playground_offers_the_examples(client):
    page = client.get("/playground", params={"lang": "glsl"}).text
    assert html.escape(TAS.splitlines()[3]) in page  # the first GLSL example, unchecked
    assert "id=result></div>" in page
    for example in examples():
        assert f'href="/playground?example={example.name}"' in page
    axb = client.get("/playground").text
    assert "<fieldset id=launch hidden disabled>" in axb and "test mutex" in axb


@pytest.mark.parametrize(
    "directive, where",
    [
        ('#include "../../etc/hostname"', (3, 2)),  # glslang would resolve it from its working folder
        ('# /* hidden */ include "../../etc/hostname"', (3, 16)),
        ('#inc\\\nlude "../../etc/hostname"', None),  # a line continuation joins it
        ('#include\u00e9"../../etc/hostname"', (3, 2)),
    ],
)
def test_a_kernel_that_would_read_another_file_is_refused_before_compiling(client, directive, where):
    text = (
        f"#version 450\n#extension GL_GOOGLE_include_directive : require\n{directive}\n"
        + TAS.split("#version 450\n")[1]
    )
    for lang in ("glsl", "hlsl"):
        body = check(client, text, lang).json()
        assert body["ok"] is False and "#include is not read here" in body["error"], body
        assert (body["line"], body["column"]) == (where or (None, None))


def test_names_from_a_kernel_are_escaped(client):
    text = (CORPUS / "spvasm_spinlock.spvasm").read_text()
    hostile = text.replace('OpMemberName %Mem 0 "lock"', 'OpMemberName %Mem 0 "<img src=x onerror=alert(1)>"')
    assert hostile != text
    page = client.get("/playground", params={"lang": "spvasm", "test": hostile, "view": "HSA/weak"})
    assert page.status_code == 200 and "<svg" in page.text
    assert "<img" not in page.text and "&lt;img src=x onerror=alert(1)&gt;" in page.text


SIZED = """\
#version 450
layout(local_size_x = 256, local_size_x_id = 0) in;
layout(constant_id = 1) const uint ROUNDS = 4;
layout(push_constant) uniform P { uint step; } pc;
layout(set = 0, binding = 0) buffer Data { uint total; };
void main() {
    for (uint i = 0u; i < ROUNDS; i++) {
        atomicAdd(total, pc.step);
    }
}
"""


def test_constant_fields_specialize_the_kernel(client):
    """--spec, --push and --local-size as the playground's fields: a 256-invocation kernel at 2."""
    too_big = check(client, SIZED).json()  # taken since issue 29, and stopped by the playground's state bound
    assert too_big["launch"] == "1 workgroup of 256 invocations" and too_big["inconclusive"] is True
    body = check(client, SIZED, local_size="2", spec="ROUNDS=1", push="pc.step=3").json()
    assert body["ok"] is True, body
    assert body["launch"] == "1 workgroup of 2 invocations, spec ROUNDS=1, push pc.step=3"
    assert all(r["terminates"] is True for r in body["results"])
    bad = check(client, SIZED, local_size="0").json()
    assert bad["ok"] is False and bad["error"].startswith("the launch fields: --local-size '0'")
    page = client.get("/playground", params={"lang": "glsl", "test": SIZED, "local_size": "2", "push": "pc.step=1"})
    assert page.status_code == 200 and 'name="local_size" id="local_size" value="2"' in page.text
