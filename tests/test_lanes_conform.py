"""Judging intra-warp runs at the lane scope (docs/semantics.md section 10, docs/gpu.md "Lanes")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from progress.cli import main
from progress.gpu.database import RunInfo
from progress.gpu.devices import scope_of

ROOT = Path(__file__).resolve().parent.parent
LANES = ROOT / "docs" / "results" / "gpu" / "lanes" / "lanes_sm90.csv"
SUITE = ROOT / "litmus" / "oopsla21"


def _conform(*args: str, capsys) -> dict:
    with pytest.raises(SystemExit) as exit_info:
        main(["conform", *args, "--suite", str(SUITE), "--format", "json"])
    assert exit_info.value.code == 0
    return json.loads(capsys.readouterr().out)


def test_the_h200_lanes_are_consistent_with_obe_only(capsys):
    """The committed H200 lane run, judged at the lane scope its metadata names:
    weak and strong OBE hold; HSA, LOBE and fair are violated (the 217 tests
    fail under every heuristic)."""
    report = _conform(str(LANES), capsys=capsys)
    assert report["scope"] == "lane" and report["tests"] == 483
    verdicts = {(m["model"], m["fairness"]): m["verdict"] for m in report["models"]}
    assert verdicts["OBE", "weak"] == verdicts["OBE", "strong"] == "consistent with"
    for model in ("HSA", "HSA+OBE", "LOBE", "fair"):
        assert verdicts[model, "weak"] == "violates"


def test_the_scope_changes_the_conformance_sets(tmp_path, capsys):
    """One test failing under plain, judged at both scopes: at the lane scope OBE's
    conformance set is OBE's (CADP's column), at the workgroup scope with every
    thread alone too; what differs is the reading, not the numbers (section 10's
    special case), so the scope is said in the report."""
    table = tmp_path / "r.csv"
    table.write_text("test,plain\n2t2i/3.axb,F (20/20)\n")
    lane = _conform(str(table), "--scope", "lane", capsys=capsys)
    workgroup = _conform(str(table), capsys=capsys)
    assert (lane["scope"], workgroup["scope"]) == ("lane", "workgroup")
    assert [m["conformance"] for m in lane["models"]] == [m["conformance"] for m in workgroup["models"]]


def test_intra_warp_runs_are_judged_at_the_lane_scope():
    def info(variant: str) -> RunInfo:
        return RunInfo(1, "r", "d", "cuda", "", "", variant, ("plain",), 20, "{}", "", "", "", 1, "")

    assert scope_of(info("intra-warp (SIMT build)")) == "lane"
    assert scope_of(info("intra-warp (progress run --scope lane)")) == "lane"
    assert scope_of(info("inter-workgroup")) == "workgroup"
