"""Dat3M's SPIR-V termination tests, as published, against Dat3M's expected results.

    python benchmarks/dat3m_termination.py [--dat3m DIR] > docs/results/dat3m_termination.md

Checks every file of DIR (default tests/data/dat3m/; Dat3M's
`spirv/vulkan/termination/`, unedited) with `progress check`'s front end and checker, its `; @Input:` /
`; @Config:` header read as launch settings, and prints one markdown table row
per row of Dat3M's SpirvLivenessTest: Dat3M's expected result, ours where its
progress hierarchy is one of our models (weak and strong fairness), or why
there is none (a scoped model, or the file refused and why). The SPIR-V tools
are the ones on PATH; their versions head the output.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from dat3m_rows import DAT3M, OURS, ROWS  # noqa: E402

from progress.cli.kernel import check_kernel  # noqa: E402
from progress.core.analyze import queries_for  # noqa: E402
from progress.core.registry import all_models  # noqa: E402
from progress.errors import InputError  # noqa: E402
from progress.front.header import LaunchSettings  # noqa: E402
from progress.front.spirv.toolchain import tool_version  # noqa: E402


def verdicts(name: str, folder: Path = DAT3M) -> dict[tuple[str, str], bool | None] | str:
    path = folder / name
    try:
        result = check_kernel(
            path.relative_to(REPO) if path.is_relative_to(REPO) else path,
            LaunchSettings(),
            queries_for(all_models()),
            max_states=None,
            time_limit=None,
            witnesses=False,
        )
    except InputError as error:
        return error.message.splitlines()[0]
    return {(v.model, v.fairness): v.terminates for v in result.checked[0].report.verdicts}


def word(terminates: bool | None) -> str:
    return {True: "PASS", False: "FAIL", None: "?"}[terminates]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dat3m", type=Path, default=DAT3M, help="the folder of Dat3M's termination tests")
    folder = parser.parse_args().dat3m.resolve()
    os.chdir(REPO)
    tools = [tool_version(t).split("\n")[0] for t in ("spirv-as",)]  # the toolchain's own, not PATH's
    print("# Dat3M's SPIR-V termination tests against ours\n")
    print(f"Written by `python benchmarks/dat3m_termination.py`; spirv-as: {tools[0]}.\n")
    print("| file | Dat3M's hierarchy | Dat3M expects | ours (weak, strong) | agree |")
    print("|---|---|---|---|---|")
    found = {name: verdicts(name, folder) for name in dict.fromkeys(row[0] for row in ROWS)}
    agree = compared = refused = scoped = 0
    for name, hierarchy, expected in ROWS:
        result = found[name]
        if hierarchy not in OURS:
            scoped += 1
            print(f"| {name} | {hierarchy} | {expected} | (a scoped model: not yet) | |")
        elif isinstance(result, str):
            refused += 1
            print(f"| {name} | {hierarchy} | {expected} | refused: {result} | |")
        else:
            model = OURS[hierarchy]
            weak, strong = word(result[(model, "weak")]), word(result[(model, "strong")])
            same = weak == strong == expected
            compared += 1
            agree += same
            print(f"| {name} | {hierarchy} | {expected} | {model}: {weak}, {strong} | {'yes' if same else 'NO'} |")
    files = sum(not isinstance(v, str) for v in found.values())
    print(
        f"\n{files} of {len(found)} files run as published; of the {len(ROWS)} rows, {compared} compared "
        f"({agree} agree), {refused} refused, {scoped} need a scoped model."
    )


if __name__ == "__main__":
    main()
