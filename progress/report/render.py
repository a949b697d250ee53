"""Render check results as text or JSON-ready dicts. Pure: returns strings."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from progress.core.analyze import NO_FAIRNESS, TestReport, Verdict
from progress.core.program import Program
from progress.core.witness import Lasso, LassoStep

Fragments = dict[int | LassoStep, str]  # report_json's rendered lassos (by id) and steps

TERMINATES = "guaranteed to terminate"
MAY_NOT = "may not terminate"
INCONCLUSIVE = "inconclusive"


def phrase(verdict: Verdict) -> str:
    return phrase_of(verdict.terminates)


def phrase_of(terminates: bool | None) -> str:
    """The words for a verdict: True, False, or None (inconclusive)."""
    if terminates is None:
        return INCONCLUSIVE
    return TERMINATES if terminates else MAY_NOT


def label(verdict: Verdict) -> str:
    """`OBE weak`, or the bare name for a model without fairness."""
    return verdict.model if verdict.fairness == NO_FAIRNESS else f"{verdict.model} {verdict.fairness}"


def verdict_line(report: TestReport, verdict: Verdict) -> str:
    """One stable, grep-able line: `name: MODEL FAIRNESS: verdict (sizes)`."""
    if verdict.terminates is None:
        detail = f"{verdict.reason}, {verdict.states} states explored"
    else:
        detail = f"{_count(verdict.states, 'state')}, {_count(verdict.transitions, 'transition')}"
    return f"{report.program.name}: {label(verdict)}: {phrase(verdict)} ({detail})"


def expectation_lines(name: str, expected: int, wrong: list[tuple[str, str, bool, bool | None]]) -> list[str]:
    """`check --expect-header`'s lines for a test whose header states
    `expected` verdicts, `wrong` of which (front.expect.mismatches) do not hold."""
    if not expected:
        return [f"{name}: its header states none of the checked verdicts (nothing compared)"]
    if not wrong:
        return [f"{name}: all {expected} expected verdicts hold"]
    return [
        f"{name}: {model} {fairness}: expected {phrase_of(want)}, got {phrase_of(got)}"
        for model, fairness, want, got in wrong
    ]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def table(report: TestReport, path: str) -> str:
    """A verdict table: one row per model, weak and strong columns."""
    rows: dict[str, dict[str, Verdict]] = {}
    for v in report.verdicts:
        rows.setdefault(v.model, {})[v.fairness] = v
    width = max([5] + [len(m) for m in rows])
    lines = [
        f"{report.program.name}  {path}  hash {report.hash}",
        f"  {'model':<{width}}  {'weak':<25}{'strong':<25}states",
    ]
    for model, cells in rows.items():
        weak = cells.get("weak") or cells.get(NO_FAIRNESS)
        strong = cells.get("strong") or cells.get(NO_FAIRNESS)
        size = max(v.states for v in cells.values())
        lines.append(f"  {model:<{width}}  {_cell(weak):<25}{_cell(strong):<25}{size}")
    stopped = next((v for v in report.verdicts if v.terminates is None), None)
    if stopped is not None:
        lines.append(f"  inconclusive: {stopped.reason} ({stopped.states} states explored)")
    return "\n".join(lines)


def _cell(verdict: Verdict | None) -> str:
    return "-" if verdict is None else phrase(verdict)


def lasso_text(lasso: Lasso, program: Program, indent: str = "    ") -> str:
    """Numbered steps; the loop marked; `back to step k`; the diagnosis."""
    lines = [f"{indent}{lasso.summary}"]
    if lasso.loop_start:
        lines.append(f"{indent}from the start:")
    for index, step in enumerate(lasso.steps):
        if index == lasso.loop_start:
            lines.append(f"{indent}loop:")
        lines.append(indent + "  " + _step_text(index, step, program))
    lines.append(f"{indent}  back to step {lasso.loop_start}")
    return "\n".join(lines)


def _step_text(index: int, step: LassoStep, program: Program) -> str:
    memory = " ".join(f"{loc}={value}" for loc, value in step.memory)
    pcs = ",".join(str(pc) for pc in step.pcs)
    fair = "{" + ",".join(str(t) for t in step.fair) + "}"
    thread = program.threads[step.thread]
    instr = thread[step.instruction].text(len(thread))
    return f"{index:>3}  [{memory} | pc {pcs}] F={fair:<8} T{step.thread}:{step.instruction}  {instr}"


def kernel_lasso_text(lasso: Lasso, indent: str = "    ") -> str:
    """A kernel's lasso in source terms: per step the invocation
    (workgroup.invocation), F, the source line and its text, and the shared
    memory the step changed; the loop marked, or the deadlock's waits."""
    lines = [f"{indent}{lasso.summary}"]
    if lasso.loop_start:
        lines.append(f"{indent}from the start:")
    steps = lasso.steps
    fairs = ["F={" + ",".join(_short(lasso.names[u]) for u in step.fair) + "}" for step in steps]
    wheres = [step.note.where if step.note else "?" for step in steps]
    widths = (max(map(len, fairs), default=0), max(map(len, wheres), default=0))
    for index, step in enumerate(steps):
        if index == lasso.loop_start:
            lines.append(f"{indent}loop:")
        after = steps[index + 1].memory if index + 1 < len(steps) else _closing_memory(lasso)
        changed = [f"{cell} {old}->{new}" for (cell, old), (_, new) in zip(step.memory, after) if old != new]
        text = (step.note.text or step.note.action) if step.note else ""
        if step.note and step.note.text and "performed for invocations" in step.note.action:
            text += f"  ({step.note.action.split(': ', 1)[-1]}: one collective step)"
        effect = "  [" + ", ".join(changed) + "]" if changed else ""
        unit = _short(lasso.names[step.thread])
        lines.append(
            f"{indent}  {index:>3}  {unit:<5} {fairs[index]:<{widths[0]}}  {wheres[index]:<{widths[1]}}  {text}{effect}"
        )
    if lasso.kind == "deadlock":
        lines.append(f"{indent}  then nothing is enabled:")
        lines += [f"{indent}    {lasso.names[u]} waits at {note.where}  {note.text}" for u, note in lasso.waits]
    else:
        lines.append(f"{indent}  back to step {lasso.loop_start}")
    return "\n".join(lines)


def _closing_memory(lasso: Lasso) -> tuple[tuple[str, int], ...]:
    return lasso.end if lasso.kind == "deadlock" else lasso.steps[lasso.loop_start].memory


def _short(name: str) -> str:
    """`workgroup 1 invocation 0` as `1.0`."""
    parts = name.split()
    return f"{parts[1]}.{parts[3]}" if len(parts) == 4 else name


def csv_header(queries: Iterable[Any]) -> str:
    """The CSV header line of `check --format csv`: test, one column per verdict
    (`unfair`, `fair/weak`, ... as in the artifact's verdict CSV), hash."""
    labels = [q.model.name if q.fairness == NO_FAIRNESS else f"{q.model.name}/{q.fairness}" for q in queries]
    return _csv_line(["test", *labels, "hash"])


def csv_row(report: TestReport, path: str) -> str:
    """One test's CSV row: `P` guaranteed to terminate, `F` may not, `?` inconclusive."""
    cells = ["?" if v.terminates is None else "P" if v.terminates else "F" for v in report.verdicts]
    return _csv_line([path, *cells, report.hash])


def _csv_line(fields: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(fields)
    return out.getvalue()


def report_dict(report: TestReport, path: str) -> dict[str, Any]:
    """The JSON Lines object for one test."""
    lassos: dict[int, dict[str, Any]] = {}
    return {
        "test": report.program.name,
        "file": path,
        "hash": report.hash,
        "results": [_verdict_dict(v, lassos) for v in report.verdicts],
    }


def _verdict_dict(verdict: Verdict, lassos: dict[int, dict[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "model": verdict.model,
        "fairness": verdict.fairness,
        "terminates": verdict.terminates,
        "states": verdict.states,
        "transitions": verdict.transitions,
        "witness": None if verdict.witness is None else _cached_lasso_dict(verdict.witness, lassos),
    }
    if verdict.reason is not None:
        result["inconclusive"] = verdict.reason
    return result


def _cached_lasso_dict(lasso: Lasso, lassos: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """Verdicts often share one Lasso object; render it once."""
    if id(lasso) not in lassos:
        lassos[id(lasso)] = lasso_dict(lasso)
    return lassos[id(lasso)]


def lasso_dict(lasso: Lasso) -> dict[str, Any]:
    result: dict[str, Any] = {
        "kind": lasso.kind,
        "loop_start": lasso.loop_start,
        "running": list(lasso.running),
        "starving": list(lasso.starving),
        "escapes": [{"step": step, "thread": thread} for step, thread in lasso.escapes],
        "steps": [_step_dict(s) for s in lasso.steps],
    }
    if lasso.names:
        result["summary"] = lasso.summary
        result["units"] = list(lasso.names)
        if lasso.kind == "deadlock":
            result["waits"] = [{"unit": u, **note._asdict()} for u, note in lasso.waits]
            result["end"] = dict(lasso.end)
    return result


def _step_dict(step: LassoStep) -> dict[str, Any]:
    result: dict[str, Any] = {
        "memory": dict(step.memory),
        "pcs": list(step.pcs),
        "fair": list(step.fair),
        "thread": step.thread,
        "instruction": step.instruction,
    }
    if step.note is not None:
        result.update(step.note._asdict())
    return result


def report_json(report: TestReport, path: str) -> str:
    """`report_dict` as compact JSON text, byte for byte what
    `json.dumps(report_dict(report, path), separators=(",", ":"))` gives,
    written directly because verdicts share lassos and lassos share steps."""
    fragments: Fragments = {}
    results = ",".join(_verdict_json(v, fragments) for v in report.verdicts)
    return (
        f'{{"test":{_string(report.program.name)},"file":{_string(path)},'
        f'"hash":{_string(report.hash)},"results":[{results}]}}'
    )


def _verdict_json(verdict: Verdict, fragments: Fragments) -> str:
    terminates = "null" if verdict.terminates is None else ("true" if verdict.terminates else "false")
    witness = "null" if verdict.witness is None else _lasso_json(verdict.witness, fragments)
    text = (
        f'{{"model":{_string(verdict.model)},"fairness":{_string(verdict.fairness)},'
        f'"terminates":{terminates},"states":{verdict.states},"transitions":{verdict.transitions},'
        f'"witness":{witness}'
    )
    if verdict.reason is not None:
        text += f',"inconclusive":{_string(verdict.reason)}'
    return text + "}"


def _lasso_json(lasso: Lasso, fragments: Fragments) -> str:
    key = id(lasso)
    if key not in fragments:
        escapes = ",".join(f'{{"step":{step},"thread":{thread}}}' for step, thread in lasso.escapes)
        steps = ",".join(_step_json(step, fragments) for step in lasso.steps)
        fragments[key] = (
            f'{{"kind":{_string(lasso.kind)},"loop_start":{lasso.loop_start},'
            f'"running":[{_ints(lasso.running)}],"starving":[{_ints(lasso.starving)}],'
            f'"escapes":[{escapes}],"steps":[{steps}]{_units_json(lasso)}}}'
        )
    return fragments[key]


def _step_json(step: LassoStep, fragments: Fragments) -> str:
    if step not in fragments:
        memory = ",".join(f"{_string(loc)}:{value}" for loc, value in step.memory)
        source = ""
        if step.note is not None:
            where, text, action = step.note
            source = f',"where":{_string(where)},"text":{_string(text)},"action":{_string(action)}'
        fragments[step] = (
            f'{{"memory":{{{memory}}},"pcs":[{_ints(step.pcs)}],"fair":[{_ints(step.fair)}],'
            f'"thread":{step.thread},"instruction":{step.instruction}{source}}}'
        )
    return fragments[step]


def _units_json(lasso: Lasso) -> str:
    """A kernel lasso's extra keys: the unit names, a deadlock's waits and end memory."""
    if not lasso.names:
        return ""
    text = f',"summary":{_string(lasso.summary)},"units":[{",".join(_string(n) for n in lasso.names)}]'
    if lasso.kind == "deadlock":
        waits = ",".join(
            f'{{"unit":{u},"where":{_string(n.where)},"text":{_string(n.text)},"action":{_string(n.action)}}}'
            for u, n in lasso.waits
        )
        end = ",".join(f"{_string(loc)}:{value}" for loc, value in lasso.end)
        text += f',"waits":[{waits}],"end":{{{end}}}'
    return text


def _ints(values: Iterable[int]) -> str:
    return ",".join(map(str, values))


@lru_cache(maxsize=4096)
def _string(text: str) -> str:
    """A JSON string literal (names, fairness and locations repeat a lot)."""
    return json.dumps(text)
