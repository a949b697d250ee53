"""The results database (issue 20): the artifact's 11 runs and the committed H200 runs imported,
the paper's section 6.3 conclusions recomputed from them against oracles that share no code with
the importer (the raw CSVs read here with `csv`, the CADP verdicts), conform through the database
equal to conform on the CSV for every run, and a second import that changes nothing."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path

import pytest

from progress.cli import main
from progress.gpu.database import open_database

GPU = Path(__file__).resolve().parents[1] / "docs" / "results" / "gpu"
H200 = [
    ("h200-cuda-1", GPU / "run1.csv", "full"),
    ("h200-cuda-2", GPU / "run2.csv", "full"),
    ("h200-cuda-10it", GPU / "wgpu" / "h200_cuda.csv", "full"),
    ("h200-vulkan-10it", GPU / "wgpu" / "h200_wgpu.csv", "full"),
    ("h200-3t5i-1", GPU / "select3t5i" / "run1.csv", "3t5i"),
    ("h200-3t5i-2", GPU / "select3t5i" / "run2.csv", "3t5i"),
]
PAPER = ["a12", "a14", "gf940m", "rtx4k", "rtx4k-coop", "rtx4k-subgroup", "rtx4k-subgroup-sm70"]
PAPER += ["g77", "hd620", "a620", "tx1"]
INTER_WORKGROUP = ["a12", "a14", "gf940m", "rtx4k", "g77", "hd620", "a620", "tx1"]


def cli(args, capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        main([str(a) for a in args])
    captured = capsys.readouterr()
    return stop.value.code, captured.out, captured.err


def suites_for(kind: str, oopsla: Path, repo: Path) -> list[str]:
    if kind == "3t5i":
        return ["--suite", str(GPU / "select3t5i" / "suite")]
    return ["--suite", str(oopsla), "--suite", str(repo / "litmus"), "--suite", str(repo / "tests" / "data" / "gpu")]


@pytest.fixture(scope="module")
def db(tmp_path_factory, oopsla_dir, repo) -> Path:
    path = tmp_path_factory.mktemp("devices") / "results.db"
    imports = [["results", "import", oopsla_dir / "empirical_results", "--suite", oopsla_dir, "--db", path]]
    for name, table, kind in H200:
        imports.append(["results", "import", table, *suites_for(kind, oopsla_dir, repo), "--name", name, "--db", path])
    for args in imports:
        with pytest.raises(SystemExit) as stop:
            main([str(a) for a in args])
        assert stop.value.code == 0, args
    return path


@pytest.fixture(scope="module")
def report(db) -> dict:
    """`progress devices --format json`, by run name."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as stop:
        main(["devices", "--db", str(db), "--format", "json"])
    assert stop.value.code == 0
    return {run["name"]: run for run in json.loads(out.getvalue())["runs"]}


def raw_runs(oopsla: Path) -> dict[str, dict[str, dict[str, str]]]:
    """The artifact's CSVs read directly: {file stem: {suite key: {column title: cell}}}."""
    runs: dict[str, dict[str, dict[str, str]]] = {}
    for path in sorted((oopsla / "empirical_results").rglob("*.csv")):
        n, k = re.match(r"(\d)_thread_(\d)_instruction", path.parent.parent.name).groups()
        with path.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        for row in rows[:-1]:  # the last row is the footer
            runs.setdefault(path.stem, {})[f"{n}t{k}i/{row['Test File Name']}.axb"] = row
    return runs


def cadp(oopsla: Path) -> dict[str, dict[str, str]]:
    with (oopsla / "cadp_verdicts.csv").open() as handle:
        return {row["test"]: row for row in csv.DictReader(handle)}


def test_the_artifact_imports_as_its_eleven_runs(db):
    with open_database(db) as database:
        runs = {info.name: info for info in database.runs()}
    assert set(PAPER) <= set(runs) and len(runs) == 11 + len(H200)
    assert all(runs[name].tests == 483 for name in PAPER)
    assert runs["a12"].iterations == runs["a14"].iterations == 21 and runs["rtx4k"].iterations == 20
    assert runs["g77"].heuristics[:3] == ("plain", "rr", "chunked") and len(runs["g77"].heuristics) == 5
    assert runs["h200-3t5i-1"].tests == 83 and runs["h200-cuda-1"].tests == 498


def test_a_second_import_changes_nothing(db, oopsla_dir, repo, capsys):
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    code, out, _ = cli(
        ["results", "import", oopsla_dir / "empirical_results", "--suite", oopsla_dir, "--db", db], capsys
    )
    assert code == 0 and "11 runs: 0 new, 11 already there" in out
    args = ["results", "import", GPU / "run1.csv", *suites_for("full", oopsla_dir, repo), "--db", db]
    code, out, _ = cli(args, capsys)  # without --name: the name is a label, not part of the run
    assert code == 0 and "already in the database" in out
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_weak_hsa_and_obe_hold_on_every_device(report):
    for name in PAPER:
        for model in ("HSA/weak", "OBE/weak"):
            assert report[name]["models"][model]["verdict"] == "consistent with", (name, model)


def test_weak_lobe_is_violated_by_a12_and_g77_only_with_the_same_11_tests_under_rr(report, oopsla_dir):
    violators = {name for name in PAPER if report[name]["models"]["LOBE/weak"]["verdict"] == "violates"}
    assert violators == {"a12", "g77"}
    failed = {name: report[name]["models"]["LOBE/weak"]["failed"] for name in violators}
    assert failed["a12"]["plain"] == failed["a12"]["chunked"] == failed["g77"]["plain"] == []
    assert failed["g77"]["chunked"] == []
    assert failed["a12"]["rr"] == failed["g77"]["rr"] and len(failed["a12"]["rr"]) == 11
    # The oracle: the raw CSV cells and the CADP verdicts, no code of the importer or the checker.
    verdicts, raw = cadp(oopsla_dir), raw_runs(oopsla_dir)
    lobe = {key for key, row in verdicts.items() if row["LOBE/weak"] == "P"}
    for stem in ("ipad_air_3_a12-inter-workgroup", "galaxy-s20-mali-2021-02-07"):
        rr = next(title for title in next(iter(raw[stem].values())) if title.startswith("Round Robin"))
        expected = sorted((k for k in lobe if raw[stem][k][rr] != "P"), key=lambda k: list(raw[stem]).index(k))
        assert failed["a12"]["rr"] == expected


def test_chunked_failures_per_device_match_the_raw_files(report, oopsla_dir):
    raw = raw_runs(oopsla_dir)
    counted = {}
    for stem, rows in raw.items():
        chunked = next(title for title in next(iter(rows.values())) if title.startswith("Chunking"))
        counted[stem] = sum(1 for row in rows.values() if row[chunked] != "P")
    by_name = {"a12": "ipad_air_3_a12-inter-workgroup", "gf940m": "laptop_940m-inter-workgroup"}
    by_name |= {"g77": "galaxy-s20-mali-2021-02-07", "tx1": "results-NVIDIA-SHIELD-Android-TV"}
    for name, stem in by_name.items():
        figures = report[name]["figures"]["chunked"]
        assert figures["deterministic"] + figures["nondeterministic"] == counted[stem]
    chunked = {n: sum(report[n]["figures"]["chunked"].values()) for n in INTER_WORKGROUP}
    expected = {"a12": 246, "a14": 246, "gf940m": 246, "rtx4k": 246, "g77": 251, "hd620": 246, "a620": 246}
    assert chunked == expected | {"tx1": 246}


def test_cooperative_launch_and_independent_thread_scheduling_give_weak_fairness(report):
    for name in ("rtx4k-coop", "rtx4k-subgroup-sm70"):
        assert report[name]["models"]["fair/weak"]["verdict"] == "consistent with"
    assert report["rtx4k"]["models"]["fair/weak"]["verdict"] == "violates"
    simt = report["rtx4k-subgroup"]["models"]
    assert simt["fair/weak"]["verdict"] == "violates" and simt["LOBE/weak"]["verdict"] == "consistent with"


def artifact_csv(rows: dict[str, dict[str, str]], path: Path) -> list[str]:
    """An artifact run as a `progress run` CSV, written here from the raw cells."""
    titles = [t for t in next(iter(rows.values())) if t not in ("Test File Name", "All Passed")]
    names = ["plain", "rr", "chunked", "plain-wg256-diff-subgroup", "plain-wg4-same-subgroup"][: len(titles)]
    lines = ["test," + ",".join(names)] + [key + "," + ",".join(row[t] for t in titles) for key, row in rows.items()]
    path.write_text("\n".join(lines) + "\n")
    return names


@pytest.mark.long
def test_conform_through_the_database_equals_conform_on_the_csv_for_every_run(db, oopsla_dir, repo, tmp_path, capsys):
    with open_database(db) as database:
        runs = {info.name: info for info in database.runs()}
    stems = {
        "ipad_air_3_a12-inter-workgroup": "a12",
        "iphone_12_a14-inter-workgroup": "a14",
        "laptop_940m-inter-workgroup": "gf940m",
        "toucan_quadro_rtx4000-inter-workgroup": "rtx4k",
        "toucan_quadro_rtx4000_coop-inter-workgroup": "rtx4k-coop",
        "toucan_quadro_rtx4000_subgroup": "rtx4k-subgroup",
        "toucan_quadro_rtx4000_subgroup_sm70": "rtx4k-subgroup-sm70",
        "galaxy-s20-mali-2021-02-07": "g77",
        "intelHD620-2021-03-16": "hd620",
        "pixel5-adreno-2021-02-06": "a620",
        "results-NVIDIA-SHIELD-Android-TV": "tx1",
    }
    cases = []
    for stem, rows in raw_runs(oopsla_dir).items():
        artifact_csv(rows, tmp_path / f"{stem}.csv")
        cases.append((stems[stem], tmp_path / f"{stem}.csv", ["--suite", oopsla_dir]))
    cases += [(name, table, suites_for(kind, oopsla_dir, repo)) for name, table, kind in H200]
    assert len(cases) == len(runs)
    for name, table, suites in cases:
        code, on_csv, _ = cli(["conform", table, *suites, "--format", "json"], capsys)
        assert code == 0
        code, on_db, _ = cli(["conform", "--db", db, "--run", runs[name].id, "--format", "json"], capsys)
        assert code == 0
        csv_report, db_report = json.loads(on_csv), json.loads(on_db)
        assert csv_report["not_in_suite"] == [] and csv_report["tests"] == runs[name].tests
        assert db_report["models"] == csv_report["models"], name
        code, text_db, _ = cli(["conform", "--db", db, "--run", name], capsys)
        code, text_csv, _ = cli(["conform", table, *suites], capsys)
        assert text_db.split("\n", 1)[1] == text_csv.split("\n", 1)[1], name


def test_diff_of_two_h200_runs_names_the_three_flips_of_the_report(db, capsys):
    code, out, _ = cli(["devices", "--db", db, "--diff", "h200-cuda-1", "h200-cuda-2"], capsys)
    assert code == 0
    # docs/results/gpu/report.md, "Two runs": 37 rows differ, 3 (test, heuristic) pairs flip.
    assert "2t3i/45.axb: F (1/20) -> P" in out and "2t3i/59.axb: F (1/20) -> P" in out
    assert "2t4i/32.axb: P -> F (1/20)" in out
    assert re.search(r"rr: \d+ cells differ, 3 between P and F", out)
    assert "plain: " in out and "chunked: 0 cells differ" in out


def test_devices_page_and_plot_are_deterministic(db, tmp_path, capsys):
    pages, plots = [], []
    for n in range(2):
        plot = tmp_path / f"fig{n}.svg"
        code, out, _ = cli(["devices", "--db", db, "--format", "md", "--plot", plot], capsys)
        assert code == 0
        pages.append(out)
        plots.append(plot.read_bytes())
    assert pages[0] == pages[1] and plots[0] == plots[1]
    assert "| a12 |" in pages[0] and "weak LOBE" in pages[0] and plots[0].startswith(b"<?xml")


def test_the_figure_draws_each_run_with_its_own_counts_even_under_one_name():
    from progress.report.plot import draw_device_figures

    apart = draw_device_figures(["x", "x"], ["plain"], [{"plain": (1, 0)}, {"plain": (5, 2)}], "svg")
    alike = draw_device_figures(["x", "x"], ["plain"], [{"plain": (5, 2)}, {"plain": (5, 2)}], "svg")
    assert apart != alike
    assert apart == draw_device_figures(["x", "x"], ["plain"], [{"plain": (1, 0)}, {"plain": (5, 2)}], "svg")


def test_lane_scope_runs_are_hatched_and_labelled_in_the_figure():
    from progress.report.plot import draw_device_figures

    counts = [{"plain": (3, 0)}, {"plain": (3, 0)}]
    marked = draw_device_figures(["x", "y"], ["plain"], counts, "svg", [False, True]).decode()
    plain = draw_device_figures(["x", "y"], ["plain"], counts, "svg").decode()
    assert "y (lanes)" in marked and "x (lanes)" not in marked and "(lanes)" not in plain
    assert "<pattern" in marked and "<pattern" not in plain  # matplotlib draws a hatch as an SVG pattern


def test_two_fresh_imports_give_the_same_database_bytes(tmp_path, oopsla_dir, capsys):
    files = []
    for n in range(2):
        path = tmp_path / f"r{n}.db"
        code, _, _ = cli(
            ["results", "import", oopsla_dir / "empirical_results", "--suite", oopsla_dir, "--db", path], capsys
        )
        assert code == 0
        files.append(path.read_bytes())
    assert files[0] == files[1]


@pytest.mark.long
def test_the_committed_devices_page_is_what_its_command_writes(repo, tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, str(repo / "benchmarks" / "devices_report.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for name in ("devices.md", "devices.json", "devices_fig12.svg"):
        assert (tmp_path / name).read_bytes() == (repo / "docs" / "results" / name).read_bytes(), name
