"""The hand-written JSON Lines encoder equals json.dumps of the dict form."""

from __future__ import annotations

import json

from progress.core.analyze import check_program, queries_for
from progress.core.registry import all_models
from progress.front.axb.parse import parse_program
from progress.report.render import report_dict, report_json


def _same(report, path):
    assert report_json(report, path) == json.dumps(report_dict(report, path), separators=(",", ":"))


def test_encoder_matches_json_dumps_on_the_suite(oopsla_dir):
    queries = queries_for(all_models())
    for path in sorted(oopsla_dir.glob("2t*/*.axb"))[:120]:
        _same(check_program(parse_program(path.read_text(), str(path)), queries), str(path))


def test_encoder_escapes_names_and_reports_inconclusive_checks():
    text = "test spin\nthread 0\n  AXB(x, 0, 0, false, 0)\nthread 1\n  AXB(x, 0, end, true, 1)\n"
    program = parse_program(text, 'dir with "quotes"/ünïcode.axb')
    report = check_program(program, queries_for(all_models()), max_states=1)
    assert all(v.terminates is None for v in report.verdicts)
    _same(report, 'dir with "quotes"/ünïcode.axb')
    decoded = json.loads(report_json(report, "x.axb"))
    assert decoded["results"][0]["inconclusive"].startswith("stopped at the state bound")
