"""Run every doc's commands, the `long` blocks included, as tests/test_docs_commands.py
runs the others, and write docs/results/docs_commands.md (and .json): each
command's wall time, exit status and whether its output matched the doc's.

A session whose doc shows a package to install (a `file=DIR/pyproject.toml`
block: docs/models.md's plug-in) gets it installed the way the doc says,
`pip install DIR`, here with `--target` into the session's folder and
PYTHONPATH pointing there, so that this environment is left as it was.

    python3 benchmarks/docs_long_commands.py [--all]

Without --all only the docs that hold a `long` block run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from doc_commands import REPO, Command, File, all_steps, environment, mirror, mismatch, place  # noqa: E402

OUT = REPO / "docs" / "results"


def install_packages(steps: list, folder: Path) -> dict[str, str]:
    """pip-install each package the doc's files make; the environment that sees them."""
    env = {}
    for step in steps:
        if isinstance(step, File) and step.name.endswith("/pyproject.toml"):
            target = folder / ".site"
            package = folder / step.name.rsplit("/", 1)[0]
            pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(package)]
            subprocess.run(pip, check=True)
            env["PYTHONPATH"] = str(target)
    return env


def run_in(step: Command, folder: Path, extra: dict[str, str]) -> tuple[int, str]:
    env = {**environment(), **extra}
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", step.text],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=1800,
    )
    return done.returncode, done.stdout


def main() -> int:
    everything = "--all" in sys.argv
    rows = []
    for doc, steps in all_steps().items():
        if not any(isinstance(s, Command) and (s.long or everything) for s in steps):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            folder = mirror(Path(tmp))
            for step in steps:  # the package's files first, to install it; in order again below
                if isinstance(step, File):
                    assert place(step, folder) is None, step
            extra = install_packages(steps, folder)
            for step in steps:
                if isinstance(step, File):
                    place(step, folder)
                    continue
                start = time.monotonic()
                status, output = run_in(step, folder, extra)
                wall = time.monotonic() - start
                why = mismatch(step, status, output, folder)
                rows.append(
                    {
                        "doc": doc,
                        "line": step.line,
                        "command": step.text,
                        "long": step.long,
                        "wall_s": round(wall, 2),
                        "exit": status,
                        "matches": why is None,
                    }
                )
                print(f"{wall:7.2f} s  exit {status}  {'ok ' if why is None else 'BAD'}  {step.where}", flush=True)
                if why:
                    print(why)
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip(),
        "load": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    (OUT / "docs_commands.json").write_text(json.dumps({"meta": meta, "commands": rows}, indent=1) + "\n")
    lines = [
        "# The docs' long commands (issue 27)",
        "",
        "`python3 benchmarks/docs_long_commands.py`: every command of each doc that has a block",
        "marked `long` (tests/doc_commands.py says what that means), run from a folder standing in",
        "for the repository's root, its output compared with the doc's as",
        "tests/test_docs_commands.py compares the others'. Generated; do not edit.",
        "",
        f"Run {meta['date']} at {meta['commit']}, {meta['cpus']} CPUs, load average "
        f"{meta['load'][0]:.2f} at the end (a shared machine: wall times depend on the load).",
        "",
        "| doc | command | long | wall | exit | output as shown |",
        "|---|---|---|---:|---:|---|",
    ]
    for row in rows:
        command = row["command"].replace("|", "\\|")
        lines.append(
            f"| {row['doc']}:{row['line']} | `{command}` | {'yes' if row['long'] else ''} | {row['wall_s']:.2f} s "
            f"| {row['exit']} | {'yes' if row['matches'] else 'NO'} |"
        )
    (OUT / "docs_commands.md").write_text("\n".join(lines) + "\n")
    return 0 if all(r["matches"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
