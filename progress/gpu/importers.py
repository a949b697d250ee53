"""Readers of device results into `records.Run`s: the OOPSLA'21 artifact's layout and `progress run`'s files.

The artifact (`<N>_thread_<K>_instruction/<framework>/<device>.csv`, one file
per test group and device run): a header `Test File Name,<column>...,All
Passed`, one row per test (its number in the group, the suite's
`<N>t<K>i/<n>.axb`), and a footer `Total failures:,...` that counts failed
iterations per column (CUDA, Apple) or failing tests (Vulkan), and failing
tests under All Passed. Every number is checked against the rows. One run is
the files of one device across the groups of one layout folder.

`progress run` writes `results.csv` (`test,<heuristics>`) and `results.json`
(the device, the settings, `complete`, `tests`, and the inputs' digest),
read together. Both readers are pure: they take texts, the names to report,
and the suite the keys must belong to; a bad file is an InputError naming
the file, line and column, before anything is stored.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from progress.errors import InputError, SourcePosition
from progress.gpu.records import Cell, Run, Suite, check_run, content_hash, inputs_digest
from progress.gpu.results import CELL
from progress.source import source_lines

GROUP = re.compile(r"^(\d)_thread_(\d)_instruction$")
FOOTER = "Total failures:"
ALL_PASSED = "All Passed"
COLUMNS = {
    "No saturation Result": "plain",
    "No saturation (same subgroup)": "plain",
    "Round Robin Saturation Result": "rr",
    "Round Robin Saturation": "rr",
    "Chunking Saturation Result": "chunked",
    "Chunking Saturation": "chunked",
    "No saturation (diff. subgroup, 256 threads per workgroup)": "plain-wg256-diff-subgroup",
    "No saturation (same subgroup, 4 threads per workgroup)": "plain-wg4-same-subgroup",
}
"""The artifact's column titles and the heuristic each one is."""
ITERATIONS = {"CUDA": 20, "Vulkan": 20, "Apple": 21}
"""N of every `F (k/N)` in the artifact, per framework folder."""
FRAMEWORK_BACKEND = {"CUDA": "CUDA", "Vulkan": "Vulkan", "Apple": "Metal"}
DEVICES = {
    "laptop_940m": ("gf940m", "GeForce 940M", "CUDA 9.1, Ubuntu 18.04"),
    "toucan_quadro_rtx4000": ("rtx4k", "Quadro RTX 4000", "CUDA 11.2, Ubuntu 20.04"),
    "ipad_air_3_a12": ("a12", "Apple A12 (iPad Air 3)", "iOS 14.4"),
    "iphone_12_a14": ("a14", "Apple A14 (iPhone 12)", "iOS 14.4"),
    "intelHD620": ("hd620", "Intel HD Graphics 620", "Mesa 20.3.4, Debian"),
    "pixel5-adreno": ("a620", "Adreno 620 (Pixel 5)", "Android 11"),
    "galaxy-s20-mali": ("g77", "Mali-G77 (Galaxy S20)", "Android 11"),
    "results-NVIDIA-SHIELD-Android-TV": ("tx1", "Tegra X1 (NVIDIA Shield)", "Android 9"),
}
"""Artifact file stems -> the paper's short name (Table 5), the device, the driver and OS (section 6.3)."""
VARIANTS = {
    "-inter-workgroup": ("", "inter-workgroup"),
    "": ("", "inter-workgroup"),
    "_coop-inter-workgroup": ("-coop", "inter-workgroup, cooperative launch"),
    "_subgroup": ("-subgroup", "intra-warp (SIMT build)"),
    "_subgroup_sm70": ("-subgroup-sm70", "intra-warp, independent thread scheduling (sm_70)"),
}
"""What follows the device in a stem: the run's name suffix and its variant."""
INTRA_WARP = "intra-warp (progress run --scope lane)"
"""The variant of a `progress run --scope lane` run: its tests' threads were lanes of one warp."""
MAX_ID_DIGITS = 9


@dataclass(frozen=True)
class ArtifactFile:
    """One artifact CSV read: where it lies, its heuristics, rows in file order."""

    layout: str  # the folder holding the group folders
    group: str  # 2t2i
    framework: str
    stem: str
    path: str
    heuristics: tuple[str, ...]
    rows: tuple[tuple[str, tuple[int, ...], int], ...]  # (key, failed per heuristic, line)


def artifact_place(path: str) -> tuple[str, str, str, str]:
    """(layout folder, group, framework, stem) of `.../<N>_thread_<K>_instruction/<framework>/<stem>.csv`."""
    parts = PurePosixPath(path.replace("\\", "/"))
    match = GROUP.match(parts.parent.parent.name)
    if not match or parts.suffix != ".csv":
        raise InputError(
            f"{path}: an artifact results file lies in <N>_thread_<K>_instruction/<framework>/<device>.csv "
            "(the group is read from the folder name)"
        )
    return str(parts.parent.parent.parent), f"{match.group(1)}t{match.group(2)}i", parts.parent.name, parts.stem


def read_artifact_file(path: str, text: str, suite: Suite) -> ArtifactFile:
    """One artifact CSV, every row and the footer checked (InputError at the first problem)."""
    layout, group, framework, stem = artifact_place(path)
    lines = source_lines(text.removeprefix("\ufeff"))
    at = _Positions(path, lines)
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if not numbered:
        raise at.error("the file is empty", 1)
    first, head = numbered[0][0], at.fields(numbered[0][0], numbered[0][1])
    if head[0] != "Test File Name":
        raise at.error("an artifact results file starts with the header `Test File Name,...`", first)
    heuristics, all_passed = _columns(head, at, first)
    expected = ITERATIONS.get(framework)
    tests = suite.by_key()
    rows: list[tuple[str, tuple[int, ...], int]] = []
    seen: dict[str, int] = {}
    footer = None
    for number, line in numbered[1:]:
        fields = at.fields(number, line)
        if footer is not None:
            raise at.error(f"a row after the `{FOOTER}` footer (line {footer[0]})", number)
        if fields[0] == FOOTER:
            footer = (number, fields)
            continue
        if len(fields) != len(head):
            raise at.error(f"{len(fields)} fields, the header has {len(head)}", number)
        key = _key(fields[0], group, tests, at, number)
        if key in seen:
            raise at.error(f"test {fields[0]} again (first on line {seen[key]})", number)
        seen[key] = number
        failed = tuple(_failed(fields[i], expected, at, number, i) for i in range(1, len(head)) if i != all_passed)
        if all_passed is not None and fields[all_passed] != ("F" if any(failed) else "P"):
            raise at.error(
                f"All Passed is {_shown(fields[all_passed])}, the row's results say otherwise", number, all_passed
            )
        rows.append((key, failed, number))
    if footer is None:
        last = numbered[-1][0]
        raise at.error(f"no `{FOOTER}` footer row after the last test: the file is truncated", last)
    _check_footer(footer, rows, expected or 0, all_passed, at)
    return ArtifactFile(layout, group, framework, stem, path, heuristics, tuple(rows))


def _columns(head: list[str], at: _Positions, line: int) -> tuple[tuple[str, ...], int | None]:
    """The heuristic of each column and the index of All Passed (last, if there)."""
    heuristics = []
    all_passed = None
    for index, title in enumerate(head[1:], 1):
        if title == ALL_PASSED and index == len(head) - 1:
            all_passed = index
        elif title in COLUMNS and COLUMNS[title] not in heuristics:
            heuristics.append(COLUMNS[title])
        else:
            known = ", ".join(sorted(set(COLUMNS)))
            raise at.error(f"unknown or repeated column {_shown(title)} (known: {known}, {ALL_PASSED})", line, index)
    if not heuristics:
        raise at.error("the header names no result column", line)
    return tuple(heuristics), all_passed


def _key(field: str, group: str, tests: Mapping[str, object], at: _Positions, line: int) -> str:
    if not field.isdigit() or len(field) > MAX_ID_DIGITS:
        raise at.error(f"the test name {_shown(field)} is not a test number", line)
    key = f"{group}/{int(field)}.axb"
    if key not in tests:
        raise at.error(f"test {field} of {group} is not in the suite (no {key}): a file of another suite?", line)
    return key


def _failed(field: str, expected: int | None, at: _Positions, line: int, index: int) -> int:
    """k of `F (k/N)`, 0 for `P`; N must be the framework's iterations and 1 <= k <= N."""
    match = CELL.match(field)
    if not match:
        raise at.error(f"not a result: {_shown(field)} (expected P or F (k/N))", line, index)
    if match.group(1) is None:
        return 0
    k, n = int(match.group(1)), int(match.group(2))
    if expected is not None and n != expected:
        raise at.error(f"{field}: the run has {expected} iterations", line, index)
    if not 1 <= k <= n:
        raise at.error(f"{field}: {k} of {n} iterations cannot fail", line, index)
    return k


def _check_footer(
    footer: tuple[int, list[str]],
    rows: list[tuple[str, tuple[int, ...], int]],
    iterations: int,
    all_passed: int | None,
    at: _Positions,
) -> None:
    """The footer counts, per column, failed iterations (CUDA, Apple) or failing
    tests (Vulkan), the same way in every column; All Passed: failing tests."""
    number, fields = footer
    columns = len(rows[0][1]) if rows else 0
    expected_fields = columns + 1 + (all_passed is not None)
    if len(fields) != expected_fields:
        raise at.error(f"the footer has {len(fields)} fields, expected {expected_fields}", number)
    if not all(field.isdigit() and len(field) <= 12 for field in fields[1:]):
        raise at.error("the footer's counts are not whole numbers", number)
    iterations_failed = [sum(r[1][i] for r in rows) for i in range(columns)]
    tests_failed = [sum(1 for r in rows if r[1][i]) for i in range(columns)]
    stated = [int(field) for field in fields[1 : columns + 1]]
    if stated != iterations_failed and stated != tests_failed:
        wrong = [i for i in range(columns) if stated[i] not in (iterations_failed[i], tests_failed[i])]
        bad = wrong[0] if wrong else next(i for i in range(columns) if stated[i] != iterations_failed[i])
        mixed = "" if wrong else " (it counts iterations in some columns and tests in others)"
        raise at.error(
            f"the footer says {stated[bad]}; the rows above give {iterations_failed[bad]} failed iterations in "
            f"{tests_failed[bad]} tests{mixed}",
            number,
            bad + 1,
        )
    if all_passed is not None and int(fields[-1]) != sum(1 for r in rows if any(r[1])):
        raise at.error(
            f"the footer says {fields[-1]} tests failed; the rows give {sum(1 for r in rows if any(r[1]))}",
            number,
            len(fields) - 1,
        )


def artifact_runs(files: list[ArtifactFile], suite: Suite) -> list[Run]:
    """One run per (layout folder, framework, device file stem), its files in group order."""
    grouped: dict[tuple[str, str, str], list[ArtifactFile]] = {}
    for item in files:
        grouped.setdefault((item.layout, item.framework, item.stem), []).append(item)
    runs = []
    for (_layout, framework, stem), members in grouped.items():
        members.sort(key=lambda item: item.group)
        for other in members[1:]:
            if other.heuristics != members[0].heuristics:
                raise InputError(f"{other.path}: its columns are not those of {members[0].path}, the same device run")
        runs.append(_artifact_run(framework, stem, members, suite))
    return runs


def _artifact_run(framework: str, stem: str, members: list[ArtifactFile], suite: Suite) -> Run:
    name, device, driver, variant, date = describe_stem(stem)
    heuristics = members[0].heuristics
    iterations = ITERATIONS.get(framework, 20)
    cells = tuple(
        Cell(key, heuristic, k, iterations)
        for item in members
        for key, failed, _line in item.rows
        for heuristic, k in zip(heuristics, failed)
    )
    settings = {"groups": [item.group for item in members], "source": "OOPSLA'21 artifact, empirical_results"}
    run = Run(
        name=name,
        device=device,
        backend=FRAMEWORK_BACKEND.get(framework, framework),
        driver=driver,
        date=date,
        variant=variant,
        heuristics=heuristics,
        iterations=iterations,
        settings=json.dumps(settings, sort_keys=True),
        suite=suite,
        cells=cells,
        source=", ".join(item.path for item in members),
    )
    _checked(run, members[0].path)
    return run


def describe_stem(stem: str) -> tuple[str, str, str, str, str]:
    """(name, device, driver, variant, date) of an artifact file stem such as
    `toucan_quadro_rtx4000_coop-inter-workgroup` or `pixel5-adreno-2021-02-06`."""
    date = ""
    dated = re.match(r"^(.*)-(\d{4}-\d{2}-\d{2})$", stem)
    if dated:
        stem, date = dated.group(1), dated.group(2)
    for prefix in sorted(DEVICES, key=len, reverse=True):
        if stem.startswith(prefix) and stem[len(prefix) :] in VARIANTS:
            short, device, driver = DEVICES[prefix]
            suffix, variant = VARIANTS[stem[len(prefix) :]]
            return short + suffix, device, driver, variant, date
    return stem, stem, "", "", date


def project_run(csv_path: str, csv_text: str, json_path: str, json_text: str, suite: Suite) -> Run:
    """The run `progress run` wrote to `csv_path` and its metadata `json_path`."""
    meta = _metadata(json_path, json_text)
    lines = source_lines(csv_text.removeprefix("\ufeff"))
    at = _Positions(csv_path, lines)
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if not numbered or at.fields(*numbered[0])[0] != "test":
        raise at.error("a results CSV starts with the header test,<heuristics...>", 1)
    head = at.fields(*numbered[0])
    if head[1:] != meta["heuristics"]:
        raise at.error(f"the columns are not the heuristics {','.join(meta['heuristics'])} of {json_path}", 1)
    tests = suite.by_key()
    rows: dict[str, dict[str, str]] = {}
    for number, line in numbered[1:]:
        fields = at.fields(number, line)
        if len(fields) != len(head):
            raise at.error(f"{len(fields)} fields, expected {len(head)}", number)
        if fields[0] not in tests:
            raise at.error(f"{fields[0]} is not a test of the suite: a file of another suite?", number)
        if fields[0] in rows:
            raise at.error(f"{fields[0]} again", number)
        for index, field in enumerate(fields[1:], 1):
            _failed(field, meta["iterations"], at, number, index)
        rows[fields[0]] = dict(zip(head[1:], fields[1:]))
    if isinstance(meta.get("tests"), int) and meta["tests"] != len(rows):
        last = numbered[-1][0]
        raise at.error(f"{len(rows)} tests, {json_path} says {meta.get('tests')}: truncated or edited?", last)
    return run_of(meta, rows, suite, csv_path)


def _metadata(path: str, text: str) -> dict[str, Any]:
    """The run's JSON metadata, with the fields a run needs checked."""
    try:
        meta = json.loads(text)
    except ValueError as error:
        line, column = getattr(error, "lineno", 1), getattr(error, "colno", 1)
        lines = source_lines(text)
        raise _Positions(path, lines).error(f"not JSON: {getattr(error, 'msg', error)}", line, column=column) from None
    if not isinstance(meta, dict):
        raise InputError(f"{path}: the metadata is not a JSON object")
    if meta.get("complete") is not True:
        raise InputError(f"{path}: the run is not complete (`complete` is not true): finish it with --resume first")
    wanted = {"device": str, "backend": str, "heuristics": list, "iterations": int, "started": str}
    for name, kind in wanted.items():
        if not isinstance(meta.get(name), kind) or isinstance(meta.get(name), bool):
            raise InputError(f"{path}: the metadata has no {name} ({kind.__name__})")
    return meta


def run_of(meta: Mapping[str, Any], rows: Mapping[str, Mapping[str, str]], suite: Suite, source: str) -> Run:
    """The Run of `progress run`'s metadata and rows ({key: {heuristic: cell}}), checked;
    shared by the CSV import and `progress run --db`. A digest of the inputs
    in `meta` must match the suite's programs of the run's keys."""
    digest = meta.get("inputs")
    if isinstance(digest, str) and suite.programs:
        if inputs_digest((key, suite.programs[key]) for key in rows) != digest:
            raise InputError(
                f"{source}: the tests of --suite are not the ones this run ran (its inputs digest differs)"
            )
    heuristics = tuple(meta["heuristics"])
    iterations = meta["iterations"]
    cells = []
    for key, row in rows.items():
        for heuristic in heuristics:
            match = CELL.match(row[heuristic])
            failed = 0 if match is None or match.group(1) is None else int(match.group(1))
            cells.append(Cell(key, heuristic, failed, iterations))
    api = meta.get("api")
    backend = f"{meta['backend']}-{api.lower()}" if isinstance(api, str) and api else str(meta["backend"])
    settings = {name: meta.get(name) for name in ("deadline_s", "instances")}
    run = Run(
        name=f"{meta['device']} {backend}",
        device=str(meta["device"]),
        backend=backend,
        driver=str(meta.get("driver", "")),
        date=str(meta["started"]),
        variant=INTRA_WARP if meta.get("scope") == "lane" else "inter-workgroup",
        heuristics=heuristics,
        iterations=iterations,
        settings=json.dumps(settings, sort_keys=True),
        suite=suite,
        cells=tuple(cells),
        source=source,
    )
    _checked(run, source)
    return run


def _checked(run: Run, path: str) -> None:
    try:
        check_run(run)
        content_hash(run)
    except (ValueError, TypeError) as error:
        raise InputError(f"{path}: {error}") from None


class _Positions:
    """Errors at a line (and field) of one file."""

    def __init__(self, path: str, lines: list[str]):
        self.path, self.lines = path, lines

    def fields(self, number: int, line: str) -> list[str]:
        try:
            return next(csv.reader([line]))
        except csv.Error as error:
            raise self.error(f"not CSV: {error}", number) from None

    def error(self, message: str, line: int, field: int = 0, column: int | None = None) -> InputError:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if column is None:
            column = _column(text, field)
        text, column = _window(text, max(column, 1))
        return InputError(message, SourcePosition(self.path, line, column, text))


def _window(text: str, column: int, width: int = 160) -> tuple[str, int]:
    """A long line cut to `width` characters around `column` (marked with `...`), and the column in it."""
    if len(text) <= width:
        return text, column
    start = max(0, column - 1 - width // 2)
    head = "..." if start else ""
    return head + text[start : start + width] + "...", column - start + len(head)


def _shown(field: str) -> str:
    """A field quoted for a message, shortened when long enough to flood it."""
    return repr(field) if len(field) <= 60 else f"{field[:40]!r}...({len(field)} characters)"


def _column(text: str, field: int) -> int:
    """The 1-based column where field `field` of a CSV line starts."""
    position, quoted = 0, False
    for index, char in enumerate(text):
        if field == 0:
            return index + 1
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            field -= 1
            position = index + 2
    return position or 1
