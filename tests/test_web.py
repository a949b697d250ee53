"""`progress serve` without a browser: pages, the check API, limits, submissions.

Through Starlette's TestClient (the ASGI app in process); the verdicts are
compared with the CADP verdicts and the paper's Table 4, not with the server
itself. tests/test_web_browser.py drives the same server in Chromium.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import signal
import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient

from progress.core.registry import all_models
from progress.front.axb.parse import parse_program
from progress.gpu.database import open_database
from progress.web.app import create_app
from progress.web.limits import Limits, RateLimiter
from progress.web.site import Site
from progress.web.suites import build_suite
from tests.conftest import progress_command

SMALL = {
    "done.axb": "thread 0\n  AXB(x, 0, 1, true, 1)\n",
    "spin.axb": "thread 0\n  AXB(x, 0, 0, false, 0)\n",
    "pair.axb": "thread 0\n  AXB(m0, 0, 0, true, 1)\nthread 1\n  AXB(m0, 1, 0, true, 0)\n",
}


def suite_of(name: str, files: dict[str, str]):
    entries = [(key, text, parse_program(text, key)) for key, text in files.items()]
    return build_suite(name, entries, all_models(), 100_000)


@pytest.fixture(scope="module")
def oopsla(oopsla_dir):
    files = {p.relative_to(oopsla_dir).as_posix(): p.read_text() for p in sorted(oopsla_dir.glob("*/*.axb"))}
    return suite_of("oopsla21", files)


@pytest.fixture
def site(tmp_path, oopsla):
    return Site({"oopsla21": oopsla, "small": suite_of("small", SMALL)}, tmp_path / "r.db", all_models())


@pytest.fixture
def client(site):
    return TestClient(create_app(site), client=("127.0.0.1", 50000))


def cadp(oopsla_dir: Path) -> dict[str, dict[str, str]]:
    with open(oopsla_dir / "cadp_verdicts.csv", newline="") as handle:
        return {row.pop("test"): row for row in csv.DictReader(handle)}


# -- the playground ---------------------------------------------------------


def test_check_api_gives_the_cadp_verdicts(client, oopsla_dir):
    expected = cadp(oopsla_dir)
    for key in ("2t2i/1.axb", "3t3i/17.axb", "2t4i/40.axb"):
        answer = client.post("/api/check", content=(oopsla_dir / key).read_bytes())
        assert answer.status_code == 200
        body = answer.json()
        got = {
            f"{r['model']}/{r['fairness']}": "P" if r["terminates"] else "F"
            for r in body["results"]
            if r["fairness"] != "none"
        }
        assert got == expected[key], key
        assert len(body["results"]) == 11 and body["inconclusive"] is False
        failing = [r for r in body["results"] if r["terminates"] is False]
        assert failing and all(r["lasso"] and "back to step" in r["lasso"] for r in failing)


def test_check_api_names_line_and_column(client):
    answer = client.post("/api/check", content=b"thread 0\n  AXB(x, 0, 5, true, 1)\n")
    assert answer.status_code == 400
    body = answer.json()
    assert (body["line"], body["column"]) == (2, 13)
    assert body["rendered"].startswith("test.axb:2:13: error: target 5 is out of range")


@pytest.mark.parametrize(
    "body, reason",
    [(b"", "no thread"), (b"\xff\xfe", "not UTF-8"), (b"thread 1\n  AXB(x,0,1,true,1)\n", "thread")],
)
def test_check_api_refuses_bad_text(client, body, reason):
    answer = client.post("/api/check", content=body)
    assert answer.status_code == 400 and reason in answer.json()["error"]


def test_check_api_refuses_a_large_test_unread(client, site):
    answer = client.post("/api/check", content=b"#" * (site.limits.max_test_bytes + 1))
    assert answer.status_code == 413


def test_a_check_past_the_state_bound_is_inconclusive(tmp_path):
    tight = TestClient(create_app(Site({}, tmp_path / "r.db", all_models(), Limits(max_states=5))))
    text = "thread 0\n  AXB(m, 1, 0, true, 1)\n  AXB(m, 0, end, true, 0)\nthread 1\n  AXB(m, 1, 0, true, 1)\n"
    body = tight.post("/api/check", content=text.encode()).json()
    assert body["inconclusive"] is True
    assert all(r["terminates"] is None and "state" in r["inconclusive"] for r in body["results"])
    page = tight.get("/playground", params={"test": text}).text
    assert "Inconclusive" in page and "nothing to draw" in page


def test_a_wide_test_stops_at_its_state_cell_bound(tmp_path):
    limits = Limits(time_limit_s=120.0)  # the state bound, not the clock, must stop it, even on a loaded machine
    client = TestClient(create_app(Site({}, tmp_path / "r.db", all_models(), limits)))
    text = "".join(f"thread {i}\n AXB(x,0,1,true,1)\n AXB(y,0,2,true,1)\n" for i in range(300))
    start = time.perf_counter()
    body = client.post("/api/check", content=text.encode()).json()
    bound = limits.max_state_cells // (300 + 2)
    assert body["inconclusive"] and body["results"][0]["inconclusive"] == f"stopped at the state bound of {bound}"
    assert time.perf_counter() - start < 30  # 0.1 s on an idle machine


@pytest.mark.parametrize(
    "text, where",
    [
        ("thread 0\n  AXB(x, 99999999999999999999999, 1, true, 1)\n", (2, 10)),
        ("thread 0\n  AXB(x, 0, 1, true, 1)\nthread 1\n", (3, 8)),
        ("thread 0\n  AXB(x, 0, 1, maybe, 1)\n", (2, 16)),
    ],
)
def test_bad_numbers_and_layouts_are_positioned(client, text, where):
    body = client.post("/api/check", content=text.encode()).json()
    assert body["ok"] is False and (body["line"], body["column"]) == where, body


def test_playground_page_draws_the_lasso(client, oopsla_dir):
    text = (oopsla_dir / "2t2i/1.axb").read_text()
    page = client.get("/playground", params={"test": text, "view": "OBE/weak"})
    assert page.status_code == 200
    assert "<svg" in page.text and "id=picture" in page.text and "id=lasso" in page.text
    assert "#c0392b" in page.text  # the loop drawn in red
    assert page.text.count("may not terminate") >= 6


def test_playground_error_is_inline_with_a_caret(client):
    page = client.get("/playground", params={"test": "thread 0\n  AXB(x, 0, 5, true, 1)\n"}).text
    assert "test.axb:2:13: error" in page and "class=bad" in page and "class=caret" in page


def test_playground_escapes_the_test(client):
    page = client.get("/playground", params={"test": "test <script>alert(1)</script>\nthread 0\n"}).text
    assert "<script>alert" not in page and "&lt;script&gt;" in page


# -- suites -----------------------------------------------------------------


def table_rows(page: str, klass: str) -> list[list[str]]:
    """The rows of the first table of class `klass`, each cell's text."""
    block = page.split(f'<table class="{klass}">')[1].split("</table>")[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", block.split("<tbody>")[1])
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td>(.*?)</td>", row)] for row in rows]


def test_serve_without_suites_serves_the_shipped_ones(tmp_path, monkeypatch):
    """`progress serve` with no --suite: its front page lists each folder of .axb tests in litmus/."""
    from click.testing import CliRunner

    from progress.cli import serve as serve_cli

    served = []
    monkeypatch.setattr(serve_cli, "_listen", lambda host, port: socket.create_server(("127.0.0.1", 0)))
    monkeypatch.setattr("progress.web.app.serve", lambda site, listener: (served.append(site), listener.close()))
    done = CliRunner().invoke(serve_cli.serve, ["--db", str(tmp_path / "r.db")])
    assert done.exit_code == 0, done.output
    assert "(4 suite(s)," in done.output
    page = TestClient(create_app(served[0])).get("/").text
    assert "no-suites" not in page
    litmus = Path(__file__).resolve().parents[1] / "litmus"
    for name, count in (("idioms", 7), ("oopsla21", 483), ("paper", 6), ("separating", 30)):
        assert len(list((litmus / name).rglob("*.axb"))) == count
        assert f'<a href="/suite/{name}">{name}</a></b><br>{count} tests:' in page
    assert "/suite/kernels" not in page  # GLSL, HLSL and SPIR-V kernels are no suite of .axb tests


def test_suite_page_shows_table_4_of_the_paper(client):
    page = client.get("/suite/oopsla21").text
    paper = table_rows(page, "classification")[:8]  # the paper's rule comes first
    expected = "HSA/weak 90 90|OBE/weak 12 12|LOBE/weak 20 122|fair/weak 201 323|HSA/strong 94 94|OBE/strong 0 0|"
    expected += "LOBE/strong 16 110|fair/strong 50 160"
    assert "|".join(" ".join(row) for row in paper) == expected
    lattice = table_rows(page.split("<h3>The lattice rule</h3>")[1], "classification")
    assert ["OBE/weak", "24", "24"] in lattice  # SPEC section 5: 24 tests pass weak OBE
    assert "id=shown>483 of 483 tests shown" in page


def test_filters_by_vector_and_edge(client, oopsla_dir):
    expected = cadp(oopsla_dir)
    page = client.get("/suite/oopsla21", params={"edge": "HSA+OBE/weak<LOBE/weak"}).text
    assert "id=shown>11 of 483" in page
    shown = re.findall(r'<a href="/suite/oopsla21/test/([^"]+)">', page)
    assert len(shown) == 11
    assert all(expected[k]["LOBE/weak"] == "P" and expected[k]["HSA+OBE/weak"] == "F" for k in shown)
    # the pages' order: unfair, then HSA, OBE, HSA+OBE, LOBE, fair under weak, the same under strong
    order = [f"{m}/{f}" for f in ("weak", "strong") for m in ("HSA", "OBE", "HSA+OBE", "LOBE", "fair")]
    vector = "F" + "".join(expected["2t2i/1.axb"][p] for p in order)  # every test fails unfair
    page = client.get("/suite/oopsla21", params={"vector": vector}).text
    count = sum(1 for row in expected.values() if "".join(row[p] for p in order) == vector[1:])
    assert f"id=shown>{count} of 483" in page and count > 0
    words = "passes weak: none; strong: every model"  # 2t2i/1: a strong test
    assert vector == "FFFFFFPPPPP" and f"{words} ({count} tests)" in html.unescape(page)  # the filter reads as words
    assert "no lattice edge" in client.get("/suite/oopsla21", params={"edge": "nope"}).text


def test_test_page_and_unknown_names(client):
    page = client.get("/suite/oopsla21/test/2t2i/1.axb")
    assert page.status_code == 200 and "<svg" in page.text and "No stored run holds this test yet" in page.text
    assert client.get("/suite/oopsla21/test/../etc/passwd").status_code == 404
    assert client.get("/suite/nope").status_code == 404
    assert client.get("/device/nope").status_code == 404


def test_plan_holds_the_wgpu_backends_shaders(client, oopsla):
    from progress.back.wgsl_source import shader

    plan = client.get("/api/suite/oopsla21/plan", params={"limit": 3}).json()
    assert plan["suite_hash"] == oopsla.hash and len(plan["tests"]) == 3
    for entry, test in zip(plan["tests"], oopsla.tests):
        assert entry["key"] == test.key and entry["wgsl"] == shader(test.program)
    assert client.get("/api/suite/oopsla21/plan", params={"limit": 0}).status_code == 400
    assert client.get("/api/suite/oopsla21/plan", params={"limit": 484}).status_code == 400


# -- submissions ------------------------------------------------------------


def submission(site, **changes) -> dict:
    small = site.suites["small"]
    body = {
        "suite": "small",
        "suite_hash": small.hash,
        "date": "2026-12-01T20:50:00.000Z",
        "adapter": {"vendor": "google", "architecture": "swiftshader", "device": "", "description": ""},
        "browser": "test",
        "settings": {
            "heuristics": ["plain", "rr", "chunked"],
            "iterations": 4,
            "deadline_s": 0.01,
            "instances": "auto",
        },
        "results": {
            "done.axb": {"plain": "P", "rr": "P", "chunked": "P"},
            "spin.axb": {"plain": "F (4/4)", "rr": "F (4/4)", "chunked": "F (4/4)"},
            "pair.axb": {"plain": "P", "rr": "P", "chunked": "P"},
        },
    }
    body.update(changes)
    return body


def test_a_submission_is_stored_once_and_shown(client, site):
    first = client.post("/api/suite/small/results", json=submission(site))
    assert first.status_code == 201 and first.json()["new"] is True
    again = client.post("/api/suite/small/results", json=submission(site))
    assert again.status_code == 200 and again.json()["run"] == first.json()["run"]
    with open_database(site.db) as database:
        (info,) = database.runs()
        assert database.rows(info.id)["spin.axb"] == {"plain": "F (4/4)", "rr": "F (4/4)", "chunked": "F (4/4)"}
    assert info.id == first.json()["run"] and info.backend == "webgpu"
    assert info.suite_hash == site.suites["small"].hash and info.date == "2026-12-01T20:50:00.000Z"
    device = client.get(first.json()["href"]).text
    # spin.axb never terminates, so it conforms to no model: nothing is violated; the run is on a
    # software adapter, so no model is "consistent" either: no failure seen, twice 10 cells
    assert "class=violates title" not in device and "class=consistent title" not in device
    assert device.count("class=unproven title") == 2 * 10
    assert "F (4/4)" in client.get("/suite/small/test/spin.axb").text


def test_a_strong_conformance_test_failing_violates_the_strong_models_only(client, site):
    body = submission(site)
    body["results"]["pair.axb"]["rr"] = "F (1/4)"  # pair.axb terminates under the strong models only
    assert client.post("/api/suite/small/results", json=body).status_code == 201
    page = client.get("/devices").text
    violated = set(re.findall(r'class=violates title="violates ([^:]+): 1 of', page))
    assert violated == {"fair/strong", "HSA/strong", "OBE/strong", "HSA+OBE/strong", "LOBE/strong"}


def test_a_failed_conformance_test_is_a_violation(client, site):
    body = submission(site)
    body["results"]["done.axb"]["rr"] = "F (2/4)"
    assert client.post("/api/suite/small/results", json=body).status_code == 201
    page = client.get("/devices").text
    assert page.count(">✗ 1</span>") == 10  # done.axb terminates under every model (unfair has no column)
    assert "done.axb" in client.get("/device/google%20swiftshader").text


def refusals(site):
    def cells(results):
        return submission(site, results=results)

    spin = {"plain": "F (4/4)", "rr": "F (4/4)", "chunked": "F (4/4)"}
    return [
        (b"{", "not JSON"),
        (b"[1]", "expected a JSON object"),
        (submission(site, suite_hash="0" * 16), "another or an edited suite"),
        (submission(site, suite="oopsla21"), "sent to suite small"),
        (submission(site, suite="nope"), "sent to suite small"),
        (cells({"other.axb": spin}), "not in suite small"),
        (cells({"spin.axb": {"plain": "F (4/4)", "rr": "F (4/4)"}}), "one cell for each"),
        (cells({"spin.axb": {**spin, "rr": "X"}}), "not a result cell"),
        (cells({"spin.axb": {**spin, "rr": "F (5/4)"}}), "impossible"),
        (cells({"spin.axb": {**spin, "rr": "F (0/4)"}}), "impossible"),
        (cells({"spin.axb": {**spin, "rr": "F (2/3)"}}), "but 4 ran"),
        (cells({"spin.axb": {**spin, "rr": 7}}), "expected P or F"),
        (cells({}), "non-empty"),
        (submission(site, settings={"heuristics": ["fast"], "iterations": 4, "deadline_s": 0.01}), "heuristics"),
        (submission(site, settings={"heuristics": ["plain"], "iterations": 0, "deadline_s": 0.01}), "iterations"),
        (submission(site, settings={"heuristics": ["plain"], "iterations": True, "deadline_s": 1}), "iterations"),
        (submission(site, settings={"heuristics": ["plain"], "iterations": 4, "deadline_s": 1e9}), "deadline"),
        (submission(site, adapter={"vendor": "x" * 300}), "at most 200"),
        (submission(site, adapter={"vendor": "a\x1b[2J"}), "printable"),
        (submission(site, date="yesterday"), "ISO 8601"),
        (submission(site, calibration={"x": "y" * 3000}), "exceed"),
        (b'{"suite": "small", "suite": "small"}', "appears twice"),
        (b'{"suite": NaN}', "not a number"),
    ]


def test_bad_submissions_are_refused_with_the_reason(tmp_path, oopsla):
    site = Site(
        {"oopsla21": oopsla, "small": suite_of("small", SMALL)},
        tmp_path / "r.db",
        all_models(),
        Limits(submissions_per_minute=1000),
    )
    client = TestClient(create_app(site))
    for body, reason in refusals(site):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        answer = client.post("/api/suite/small/results", content=data)
        assert answer.status_code in (400, 404), (reason, answer.text)
        assert reason in answer.json()["error"], (reason, answer.json())
    assert not site.db.exists() or open_database(site.db).runs() == []
    big = client.post("/api/suite/small/results", content=b" " * (site.limits.max_body_bytes + 1))
    assert big.status_code == 413


def test_submissions_are_rate_limited(client, site):
    site.rate = RateLimiter(site.limits.submissions_per_minute, clock=lambda: 0.0)  # no refill while it runs
    codes = [client.post("/api/suite/small/results", content=b"{").status_code for _ in range(8)]
    assert codes[: site.limits.submissions_per_minute] == [400] * site.limits.submissions_per_minute
    assert codes[-1] == 429


def test_rate_limiter_refills_over_time():
    now = [0.0]
    limiter = RateLimiter(2, 60.0, clock=lambda: now[0])
    assert [limiter.allow("a") for _ in range(3)] == [True, True, False]
    assert limiter.allow("b")
    now[0] = 30.0
    assert limiter.allow("a") and not limiter.allow("a")


# -- the command ------------------------------------------------------------


def test_serve_refuses_bad_input_before_serving(tmp_path):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "t.axb").write_text("thread 0\n  AXB(x, 0, 9, true, 1)\n")
    (tmp_path / "db").write_bytes(b"junk" * 1000)
    cases = [
        (["--suite", str(tmp_path / "bad")], "t.axb:2:13: error: target 9"),
        (["--suite", str(tmp_path / "missing")], "not a directory"),
        (["--port", "70000"], "70000"),
        (["--host", "no.such.host.invalid"], "--host"),
        (["--db", str(tmp_path / "db")], "db"),
    ]
    for args, reason in cases:
        command = [*progress_command(), "serve", "--db", str(tmp_path / "new.db"), *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stderr)
        assert reason in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)


@pytest.mark.parametrize(
    "signal_number, code, said", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]
)
def test_serve_stops_on_a_signal(tmp_path, signal_number, code, said):
    command = [*progress_command(), "serve", "--port", "0", "--db", str(tmp_path / "r.db")]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert child.stdout is not None and "http://127.0.0.1:" in child.stdout.readline()
    child.send_signal(signal_number)
    _, err = child.communicate(timeout=30)
    assert child.returncode == code and err.strip() == said and "Traceback" not in err


def test_pages_are_deterministic(client, oopsla_dir):
    text = (oopsla_dir / "3t3i/7.axb").read_text()
    for address, params in [
        ("/playground", {"test": text, "view": "LOBE/weak"}),
        ("/suite/oopsla21", {"edge": "HSA+OBE/weak<LOBE/weak"}),
        ("/suite/oopsla21/test/3t3i/7.axb", {}),
    ]:
        first, second = client.get(address, params=params), client.get(address, params=params)
        assert first.status_code == 200 and first.content == second.content, address
    answers = [client.post("/api/check", content=text.encode()).content for _ in range(2)]
    assert answers[0] == answers[1]


# -- the playground's form, its draw links, the words --------------------------------


def test_a_posted_form_is_read_with_its_typed_line_ends(client):
    text = "# line.\n" * 2000 + SMALL["pair.axb"]
    assert len(text.encode()) < 16_384 < len(text.replace("\n", "\r\n").encode())
    form = urlencode({"lang": "axb", "test": text.replace("\n", "\r\n")})
    page = client.post("/playground", content=form, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert page.status_code == 200 and page.text.count("may not terminate") >= 5
    shown = re.search(r"<textarea[^>]*>(.*?)</textarea>", page.text, re.S)
    assert shown is not None and html.unescape(shown.group(1)) == text


def test_an_oversized_test_keeps_its_text_in_the_playground(client, site):
    text = "#" * (site.limits.max_test_bytes + 10) + "\n" + SMALL["pair.axb"]
    page = client.post("/playground", data={"test": text})
    assert page.status_code == 413 and "<title>Playground" in page.text
    assert f"the test is {len(text)} bytes" in page.text and html.escape(text[-40:]) in page.text


def test_a_draw_checks_one_verdict_alone(client, monkeypatch):
    import progress.web.playground as playground

    asked = []
    real = playground.check_program

    def counting(program, queries, **options):
        asked.append(len(queries))
        return real(program, queries, **options)

    monkeypatch.setattr(playground, "check_program", counting)
    fragment = client.get("/playground/view", params={"test": SMALL["pair.axb"], "view": "OBE/weak"})
    assert fragment.status_code == 200 and fragment.text.startswith('<section id=view data-view="OBE/weak">')
    assert asked == [1] and "<svg" in fragment.text
    client.get("/playground", params={"test": SMALL["pair.axb"]})
    assert asked == [1, 11]


def test_a_suite_test_page_checks_only_the_drawn_verdict(client, monkeypatch):
    import progress.web.site as site_module

    asked = []
    real = site_module.check_program
    monkeypatch.setattr(site_module, "check_program", lambda p, q, **o: asked.append(len(q)) or real(p, q, **o))
    page = client.get("/suite/small/test/pair.axb", params={"view": "HSA/weak"})
    assert page.status_code == 200 and asked == [1]  # the other verdicts are the suite's, checked at start
    assert client.get("/suite/small/test/pair.axb/view", params={"view": "fair/strong"}).status_code == 200
    assert asked == [1, 1]


def test_the_downloads_are_the_clis_output(client, tmp_path):
    folder = tmp_path / "small"
    folder.mkdir()
    for name, text in SMALL.items():
        (folder / name).write_text(text)
    for address, args in [
        ("/suite/small/matrix.csv", ["--matrix", "--format", "csv"]),
        ("/suite/small/matrix.json", ["--matrix", "--format", "json"]),
        ("/suite/small/classification-paper.csv", ["--rule", "paper", "--format", "csv"]),
        ("/suite/small/classification-lattice.csv", ["--format", "csv"]),
    ]:
        cli = subprocess.run([*progress_command(), "classify", str(folder), *args], capture_output=True, text=True)
        answer = client.get(address)
        assert answer.status_code == 200, address
        if address.endswith(".json"):  # the same up to the tests' order (the CLI's is the paths')
            got, want = answer.json(), json.loads(cli.stdout)
            assert got["columns"] == want["columns"]
            assert sorted(got["tests"], key=str) == sorted(want["tests"], key=str), address
        else:
            assert sorted(answer.text.splitlines()) == sorted(cli.stdout.splitlines()), address
        assert "attachment" in answer.headers["content-disposition"]
    assert client.get("/suite/small/nothing.csv").status_code == 404


def test_run_and_device_files(client, site):
    stored = client.post("/api/suite/small/results", json=submission(site)).json()
    rows = client.get(f"/run/{stored['run']}.csv").text.splitlines()
    assert rows[0] == "test,plain,rr,chunked" and "spin.axb,F (4/4),F (4/4),F (4/4)" in rows
    data = client.get("/devices.json").json()
    assert [r["device"] for r in data["runs"]] == ["google swiftshader"] and data["runs"][0]["software"] is True
    table = list(csv.DictReader(io.StringIO(client.get("/devices.csv").text)))
    assert table[0]["fair/weak"] == "consistent" and table[0]["software"] == "True"
    summary = client.get("/summary.json").json()["groups"]
    assert summary[0]["vendor"] == "Google (SwiftShader)" and summary[0]["browser"] == "test"


def test_a_user_agent_is_stored_as_a_browser_name_and_notes_are_kept(client, site):
    agent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
    stored = client.post("/api/suite/small/results", json=submission(site, browser=agent, notes="an RTX 4000\nlaptop"))
    assert stored.status_code == 201, stored.text
    with open_database(site.db) as database:
        settings = json.loads(database.runs()[-1].settings)
    assert settings["browser"] == "Chrome 124 on Linux" and settings["notes"] == "an RTX 4000\nlaptop"
    device = client.get(stored.json()["href"]).text
    assert "Mozilla" not in device and "an RTX 4000" in device
    bad = client.post("/api/suite/small/results", json=submission(site, notes="x" * 501))
    assert bad.status_code == 400 and "notes" in bad.json()["error"]


@pytest.mark.parametrize(
    "agent, name",
    [
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 "
            "Safari/537.36 Edg/120.0.2210.91",
            "Edge 120 on Windows",
        ),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 "
            "Safari/605.1.15",
            "Safari 17 on macOS",
        ),
        ("Mozilla/5.0 (X11; Linux x86_64; rv:141.0) Gecko/20100101 Firefox/141.0", "Firefox 141 on Linux"),
        (
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile "
            "Safari/537.36",
            "Chrome 124 on Android",
        ),
        ("Mozilla/5.0 (compatible; Something/1.0)", "a browser"),
        ("Chrome 124 on Linux", "Chrome 124 on Linux"),
    ],
)
def test_a_browser_is_named_by_family_version_and_system(agent, name):
    from progress.web.runs import browser_summary

    assert browser_summary(agent) == name


def test_the_docs_are_served_with_their_links(client):
    page = client.get("/docs/web")
    assert page.status_code == 200 and "<article class=doc>" in page.text
    assert 'href="devices"' in page.text and 'href="devices.md"' not in page.text
    assert 'href="kernels#' in page.text or 'href="kernels"' in page.text
    assert 'id="tests"' in page.text  # headings keep GitHub's anchors
    assert client.get("/docs").status_code == 200 and 'href="/docs/semantics"' in client.get("/docs").text
    for bad in ("/docs/../pyproject", "/docs/nope", "/docs/images/../../pyproject.toml", "/docs/%2e%2e/README"):
        assert client.get(bad).status_code == 404, bad
    image = client.get("/docs/images/witness-livelock.png")
    assert image.status_code == 200 and image.content[:4] == b"\x89PNG"


def test_every_term_of_the_glossary_has_its_anchor(client):
    from progress.web.glossary import TERMS

    page = client.get("/glossary").text
    for term in TERMS.values():
        assert f'<dt id="{term.anchor}">' in page, term.name
    assert len({term.anchor for term in TERMS.values()}) == len(TERMS)


@pytest.mark.parametrize(
    "line, index, length, words",
    [
        ("AXB(x, 0, 1, true, 5)", 0, 2, "stores 5 to x"),
        ("AXB(x, 0, 0, false, 0)", 0, 1, "waits while x is 0 (a spin-wait)"),
        (
            "AXB(m, 1, 0, true, 1)",
            0,
            2,
            "swaps 1 into m, again and again while the old value was 1 (a spin lock's acquire)",
        ),
        ("AXB(x, 1, 3, false, 0)", 0, 3, "reads x; if the old value was 1 it jumps to the end, else it goes on"),
        (
            "AXB(x, 2, 0, true, 7)",
            2,
            3,
            "swaps 7 into x; if the old value was 2 it goes back to instruction 0, else it goes on",
        ),
    ],
)
def test_an_instruction_in_words(line, index, length, words):
    from progress.web.explain import instruction_words

    body = "".join("  AXB(y, 0, 1, true, 1)\n" if i != index else f"  {line}\n" for i in range(length))
    instr = parse_program(f"thread 0\n{body}", "t.axb").threads[0][index]
    assert instruction_words(instr, index, length) == words


def test_an_unknown_address_is_a_page(client):
    page = client.get("/nothing/here")
    assert page.status_code == 404 and "<title>Page not found" in page.text and "<nav>" in page.text


def test_no_server_path_is_published(client, site):
    import dataclasses

    from progress.gpu import records

    body = submission(site)
    small = site.suites["small"]
    header = {
        "name": "imported",
        "device": "Quadro RTX 4000",
        "backend": "CUDA",
        "driver": "",
        "date": "2026-01-05T10:00:00.000Z",
        "variant": "inter-workgroup",
        "heuristics": ["plain", "rr", "chunked"],
        "iterations": 4,
        "settings": {"deadline_s": 0.05},
    }
    run = records.submitted_run(small.record, small.hash, header, body["results"])
    with open_database(site.db, writable=True) as database:
        database.import_runs([dataclasses.replace(run, source="/srv/secret/place/rtx4k.csv")])
    assert client.get("/api/runs").json()["runs"][0]["source"] == "rtx4k.csv"
    for address in ("/devices", "/device/Quadro%20RTX%204000", "/devices.json", "/devices.csv", "/summary.json"):
        assert "/srv/secret" not in client.get(address).text, address


def test_a_lane_scope_run_is_tagged_on_the_devices_pages(client, site):
    from progress.gpu import records

    body = submission(site)
    small = site.suites["small"]
    header = {
        "name": "lanes",
        "device": "NVIDIA H200",
        "backend": "wgpu-vulkan",
        "driver": "",
        "date": "2026-12-02T16:42:07Z",
        "variant": "intra-warp (progress run --scope lane)",
        "heuristics": ["plain", "rr", "chunked"],
        "iterations": 4,
        "settings": {"deadline_s": 0.05},
    }
    with open_database(site.db, writable=True) as database:
        database.import_runs([records.submitted_run(small.record, small.hash, header, body["results"])])
    for address in ("/devices", "/device/NVIDIA%20H200"):
        page = client.get(address).text
        assert page.count("/glossary#lane-scope") >= 1, address  # the run, tagged (the device page: twice)
    assert "lane scope" in client.get("/glossary").text
    assert client.get("/devices").text.count("/glossary#lane-scope") == 1  # not the other runs
